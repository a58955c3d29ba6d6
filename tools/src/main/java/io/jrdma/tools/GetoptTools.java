package io.jrdma.tools;

import io.jrdma.tools.cmatose.UcmatoseCommand;
import io.jrdma.tools.cmatose.UdaddyCommand;
import io.jrdma.tools.perftest.PerftestCommand;
import io.jrdma.tools.pingpong.RcPingpongCommand;
import io.jrdma.tools.pingpong.UdPingpongCommand;
import io.jrdma.tools.rping.RpingCommand;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.function.ToIntFunction;

/**
 * The tools whose command line is the real program's own getopt one (perftest's eight, the two pingpongs, rping,
 * ucmatose, udaddy), started straight from {@link Jrdma#main} without picocli: picocli gives them every argument
 * anyway, and building its model by reflection is most of their start-up where the JVM runs slowly (an emulated
 * guest: seconds). They exit as under picocli: the tool's status, or 1 with {@code jrdma NAME: error: MESSAGE} for an
 * exception.
 */
final class GetoptTools {

    private GetoptTools() {
    }

    /** The tool named {@code name} as a function of its arguments, or null when it is not one of them. */
    static ToIntFunction<String[]> find(String name) {
        return switch (name) {
            case RcPingpongCommand.NAME -> RcPingpongCommand::run;
            case UdPingpongCommand.NAME -> UdPingpongCommand::run;
            case RpingCommand.NAME -> RpingCommand::run;
            case UcmatoseCommand.NAME -> UcmatoseCommand::run;
            case UdaddyCommand.NAME -> UdaddyCommand::run;
            default -> PerftestCommand.isTool(name) ? a -> PerftestCommand.run(name, a) : null;
        };
    }

    /** Runs {@code commandLine}'s tool (its first element, {@link #find} not null) on the rest; the exit status. */
    static int run(String[] commandLine, PrintStream err) {
        String name = commandLine[0];
        try {
            return find(name).applyAsInt(Arrays.copyOfRange(commandLine, 1, commandLine.length));
        } catch (RuntimeException e) {
            err.println("jrdma " + name + ": error: " + Jrdma.message(e));
            err.flush();
            return Jrdma.FAILURE;
        }
    }
}
