package io.jrdma.tools.rping;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jrdma rping -s|-c [options]}: librdmacm's rping over the connection manager (see {@link Rping}). */
@Command(name = RpingCommand.NAME,
        description = {"rping: RDMA READ/WRITE ping-pong over rdma_cm, with rping's flags, protocol and output.",
            "  jrdma rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]          (server)",
            "  jrdma rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]  (client)"})
public final class RpingCommand implements Callable<Integer> {

    public static final String NAME = "rping";

    @Parameters(paramLabel = "ARG", description = "rping's options")
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return run(args.toArray(String[]::new));
    }

    /** Runs the tool on its getopt command line {@code args} (what follows its name); returns the exit status. */
    public static int run(String[] args) {
        return Rping.run(args, System.out, System.err);
    }
}
