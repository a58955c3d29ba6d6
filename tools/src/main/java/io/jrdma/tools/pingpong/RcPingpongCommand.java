package io.jrdma.tools.pingpong;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jrdma rc_pingpong [options] [host]}: ibv_rc_pingpong, interoperating with it (see {@link Pingpong}). */
@Command(name = RcPingpongCommand.NAME,
        description = {"ibv_rc_pingpong: RC SEND ping-pong with ibv_rc_pingpong's flags, TCP exchange and output.",
            "  jrdma rc_pingpong [-d DEV] [-g GIDX] [-s SIZE] [-n ITERS] ...          (server)",
            "  jrdma rc_pingpong [-d DEV] [-g GIDX] [-s SIZE] [-n ITERS] ... HOST     (client)",
            "  jrdma rc_pingpong --help   for every flag"})
public final class RcPingpongCommand implements Callable<Integer> {

    public static final String NAME = "rc_pingpong";

    @Parameters(paramLabel = "ARG", description = "ibv_rc_pingpong's options and host")
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return run(args.toArray(String[]::new));
    }

    /** Runs the tool on its getopt command line {@code args} (what follows its name); returns the exit status. */
    public static int run(String[] args) {
        return Pingpong.run(Options.Kind.RC, args, System.out, System.err);
    }
}
