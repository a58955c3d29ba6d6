package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.examples.Throughput;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Mtu;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The throughput program completes its transfers and prints a table with a positive rate for each operation. */
class ThroughputTest {

    @Test
    void shouldPrintWriteAndReadRatesAgainstTheBaseline() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = Throughput.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), 4L << 20, Mtu.MTU_4096,
                Threading.INVOKER, 1);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, out);
        assertTable(out);
    }

    /**
     * {@code jrdma throughput} without {@code -t} runs in the threading {@code -Djrdma.threading} names, to completion,
     * in every mode: a JVM of its own, devices on 127.0.145.M1 and 127.0.145.M2 (M the mode's ordinal + 1).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void shouldRunToCompletionInEveryThreadingMode(Threading mode, @TempDir Path dir) throws Exception {
        String a = "127.0.145." + (mode.ordinal() + 1) + "1";
        String b = "127.0.145." + (mode.ordinal() + 1) + "2";
        try (ChildJvm t = ChildJvm.jrdma(dir, "throughput", mode, null, "throughput", "-s", "4", "-r", "1", "-a", a,
                "-b", b)) {
            ChildJvm.awaitAll(t);
            assertEquals(0, t.status(), t.describe());
            assertTrue(t.err().isEmpty(), t.describe());
            assertTrue(t.out().startsWith("jrdma throughput: 4 MiB messages, path MTU 4096, "
                    + mode.name().toLowerCase(Locale.ROOT) + " engine, best of 1 rounds\n"), t.describe());
            assertTable(t.out());
        }
    }

    /** {@code -t} wins over the setting. */
    @Test
    void theThreadingOptionShouldWinOverTheSetting(@TempDir Path dir) throws Exception {
        try (ChildJvm t = ChildJvm.jrdma(dir, "throughput", Threading.INVOKER, null, "throughput", "-s", "1", "-r",
                "1", "-t", "ADAPTIVE", "-a", "127.0.145.41", "-b", "127.0.145.42")) {
            ChildJvm.awaitAll(t);
            assertEquals(0, t.status(), t.describe());
            assertTrue(t.out().startsWith("jrdma throughput: 1 MiB messages, path MTU 4096, adaptive engine, "),
                    t.describe());
            assertTable(t.out());
        }
    }

    private static void assertTable(String out) {
        for (String op : new String[] {"memory copy \\(baseline\\)", "RDMA WRITE", "RDMA READ"}) {
            Matcher m = Pattern.compile(op + "\\s+(\\d+)\\s+([0-9.]+)").matcher(out);
            assertTrue(m.find(), op + " missing in\n" + out);
            assertTrue(Long.parseLong(m.group(1)) > 0, out);
        }
    }
}
