package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code jrdma NAME ...} builds only what NAME needs: picocli's model of that one subcommand, or none at all for the
 * tools that parse their own getopt command line ({@link GetoptTools}); without a known name every subcommand is
 * there, so the usage and the "did you mean" list them all. Each route exits as the full command line does.
 */
class CommandLineRoutingTest {

    private static final Set<String> GETOPT = Set.of("rc_pingpong", "ud_pingpong", "rping", "ucmatose", "udaddy",
            "ib_send_bw", "ib_send_lat", "ib_write_bw", "ib_write_lat", "ib_read_bw", "ib_read_lat", "ib_atomic_bw",
            "ib_atomic_lat");

    @Test
    void aKnownNameBuildsOnlyItsOwnSubcommand() {
        for (String name : new String[] {"ib_send_lat", "ib_atomic_bw", "rping", "stat", "bench", "hello-verbs",
            "capture"}) {
            assertEquals(Set.of(name), Jrdma.commandLine(name).getSubcommands().keySet(), name);
        }
    }

    @Test
    void noNameOrAnUnknownOneBuildsThemAll() {
        Set<String> all = new TreeSet<>(Jrdma.commandLine().getSubcommands().keySet());
        assertEquals(26, all.size(), all.toString());
        assertTrue(all.containsAll(GETOPT), all.toString());
        assertEquals(all, new TreeSet<>(Jrdma.commandLine(null).getSubcommands().keySet()));
        assertEquals(all, new TreeSet<>(Jrdma.commandLine("ib_sendlat").getSubcommands().keySet()));
        assertEquals(all, new TreeSet<>(Jrdma.commandLine("--help").getSubcommands().keySet()));
    }

    @Test
    void theGetoptToolsAreExactlyTheOnesThatTakeEveryArgument() {
        for (String name : Jrdma.commandLine().getSubcommands().keySet()) {
            assertEquals(GETOPT.contains(name), GetoptTools.find(name) != null, name);
        }
        assertNull(GetoptTools.find("ib_sendlat"));
        assertNotNull(GetoptTools.find("ib_read_lat"));
    }

    /** The same command lines through picocli and straight: the same exit status. */
    @Test
    void aGetoptToolExitsAsItDoesUnderPicocli() {
        String[][] lines = {{"ib_write_bw", "-V"}, {"ib_read_bw", "-A", "CMP_AND_SWAP"},
            {"ib_write_bw", "-d", "nosuchdev", "--timeout=1"}, {"rc_pingpong", "--bogus"}, {"rping", "-x"}};
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (PrintStream quiet = new PrintStream(sink, true, StandardCharsets.UTF_8)) {
            System.setOut(quiet);
            System.setErr(quiet);
            for (String[] line : lines) {
                CommandLine full = Jrdma.commandLine().setOut(new PrintWriter(quiet, true))
                        .setErr(new PrintWriter(quiet, true));
                int viaPicocli = full.execute(line);
                int straight = GetoptTools.run(line, quiet);
                assertEquals(viaPicocli, straight, String.join(" ", line) + ": " + sink);
            }
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        assertTrue(sink.toString(StandardCharsets.UTF_8).contains("nosuchdev"), sink.toString(StandardCharsets.UTF_8));
    }
}
