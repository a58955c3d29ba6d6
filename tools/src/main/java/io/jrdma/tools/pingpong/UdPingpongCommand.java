package io.jrdma.tools.pingpong;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jrdma ud_pingpong [options] [host]}: ibv_ud_pingpong, interoperating with it (see {@link Pingpong}). */
@Command(name = UdPingpongCommand.NAME,
        description = {"ibv_ud_pingpong: UD SEND ping-pong with ibv_ud_pingpong's flags, TCP exchange and output.",
            "  jrdma ud_pingpong [-d DEV] [-g GIDX] [-s SIZE] [-n ITERS] ...          (server)",
            "  jrdma ud_pingpong [-d DEV] [-g GIDX] [-s SIZE] [-n ITERS] ... HOST     (client)",
            "  jrdma ud_pingpong --help   for every flag"})
public final class UdPingpongCommand implements Callable<Integer> {

    public static final String NAME = "ud_pingpong";

    @Parameters(paramLabel = "ARG", description = "ibv_ud_pingpong's options and host")
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return run(args.toArray(String[]::new));
    }

    /** Runs the tool on its getopt command line {@code args} (what follows its name); returns the exit status. */
    public static int run(String[] args) {
        return Pingpong.run(Options.Kind.UD, args, System.out, System.err);
    }
}
