package io.jrdma.tools.cmatose;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jrdma udaddy [options]}: librdmacm's udaddy, UD over SIDR (see {@link Cmatose}). */
@Command(name = UdaddyCommand.NAME,
        description = {"udaddy: UD queue pairs resolved with rdma_cm (SIDR), datagrams both ways, udaddy's flags.",
            "  jrdma udaddy [-b addr] [-c connections] [-C count] [-S size]            (server)",
            "  jrdma udaddy -s server [-b addr] [-c connections] [-C count] [-S size]  (client)"})
public final class UdaddyCommand implements Callable<Integer> {

    public static final String NAME = "udaddy";

    @Parameters(paramLabel = "ARG", description = "udaddy's options")
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return run(args.toArray(String[]::new));
    }

    /** Runs the tool on its getopt command line {@code args} (what follows its name); returns the exit status. */
    public static int run(String[] args) {
        return Cmatose.run(CmatoseOptions.Tool.UDADDY, args, System.out, System.err);
    }
}
