package io.jrdma.tools.perftest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code jrdma ib_send_bw|ib_send_lat|ib_write_bw|ib_write_lat|ib_read_bw|ib_read_lat|ib_atomic_bw|ib_atomic_lat
 * [options] [host]}: one instance per perftest tool, each a thin main over {@link Perftest}. Every argument goes to
 * perftest's own getopt-style parser ({@link Options}), {@code --help} included.
 */
@Command(name = "perftest")
public final class PerftestCommand implements Callable<Integer> {

    private final Tool tool;

    @Parameters(paramLabel = "ARG", description = "perftest's options and host")
    private List<String> args = new ArrayList<>();

    private PerftestCommand(Tool tool) {
        this.tool = tool;
    }

    /** Adds the eight tools to {@code jrdma} as subcommands named after the perftest programs. */
    public static void register(CommandLine jrdma) {
        for (Tool tool : Tool.values()) {
            register(jrdma, tool);
        }
    }

    /**
     * Adds only the tool named {@code name} (a perftest program's name) to {@code jrdma}; false when no tool has that
     * name.
     */
    public static boolean register(CommandLine jrdma, String name) {
        for (Tool tool : Tool.values()) {
            if (tool.command.equals(name)) {
                register(jrdma, tool);
                return true;
            }
        }
        return false;
    }

    private static void register(CommandLine jrdma, Tool tool) {
        CommandLine cl = new CommandLine(new PerftestCommand(tool));
        String what = switch (tool.verb) {
            case SEND -> "SEND";
            case WRITE -> "RDMA WRITE";
            case READ -> "RDMA READ";
            case ATOMIC -> "atomic (FETCH_AND_ADD or CMP_AND_SWAP)";
        };
        cl.getCommandSpec().usageMessage().description(
                "perftest's " + tool.command + ": " + what + (tool.bw ? " bandwidth" : " latency")
                        + ", with perftest 4.5's flags, TCP exchange and result table.",
                "  jrdma " + tool.command + " [-d DEV] [-x GIDX] [-s SIZE] [-n ITERS] ...          (server)",
                "  jrdma " + tool.command + " [-d DEV] [-x GIDX] [-s SIZE] [-n ITERS] ... HOST     (client)",
                "  jrdma " + tool.command + " --help   for every flag");
        // perftest's getopt command line: every argument goes to the tool's own parser
        cl.setUnmatchedOptionsArePositionalParams(true);
        cl.setStopAtPositional(true);
        jrdma.addSubcommand(tool.command, cl);
    }

    @Override
    public Integer call() {
        return Perftest.run(tool, args.toArray(String[]::new), System.out, System.err);
    }

    /** Whether {@code name} is one of the eight perftest programs. */
    public static boolean isTool(String name) {
        for (Tool tool : Tool.values()) {
            if (tool.command.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** Runs perftest program {@code name} ({@link #isTool}) on its getopt command line {@code args}. */
    public static int run(String name, String[] args) {
        for (Tool tool : Tool.values()) {
            if (tool.command.equals(name)) {
                return Perftest.run(tool, args, System.out, System.err);
            }
        }
        throw new IllegalArgumentException("no perftest program " + name);
    }
}
