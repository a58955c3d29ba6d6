package io.jrdma.tools.cmatose;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jrdma ucmatose [options]}: librdmacm's ucmatose, RC connections over the CM (see {@link Cmatose}). */
@Command(name = UcmatoseCommand.NAME,
        description = {"ucmatose: many RC connections over rdma_cm, messages both ways, with ucmatose's flags.",
            "  jrdma ucmatose [-b addr] [-c connections] [-C count] [-S size] [-p port]            (server)",
            "  jrdma ucmatose -s server [-b addr] [-c connections] [-C count] [-S size] [-p port]  (client)"})
public final class UcmatoseCommand implements Callable<Integer> {

    public static final String NAME = "ucmatose";

    @Parameters(paramLabel = "ARG", description = "ucmatose's options")
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return run(args.toArray(String[]::new));
    }

    /** Runs the tool on its getopt command line {@code args} (what follows its name); returns the exit status. */
    public static int run(String[] args) {
        return Cmatose.run(CmatoseOptions.Tool.UCMATOSE, args, System.out, System.err);
    }
}
