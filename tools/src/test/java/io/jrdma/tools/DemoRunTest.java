package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.examples.DemoRun;
import io.jrdma.soft.Threading;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The demo behind {@code jrdma demo}, on addresses of its own so that it never meets another test's devices: in this
 * JVM, and as {@code jrdma demo} in a JVM of its own in every threading mode.
 */
class DemoRunTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldRunEveryOperationAndPrintItsPackets() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = DemoRun.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), "127.0.3.1", "127.0.3.2");
        String out = bytes.toString(StandardCharsets.UTF_8);

        assertEquals(0, rc, out);
        assertDemo(out, "127.0.3.1", "127.0.3.2");
    }

    /**
     * {@code jrdma demo} runs to completion and exits 0 in every threading mode ({@code -Djrdma.threading}), its two
     * devices on 127.0.143.M1 and 127.0.143.M2 (M the mode's ordinal + 1). In invoker mode nothing but the demo's
     * own thread drives either device, so waiting for a completion on one must drive the other too.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void shouldRunToCompletionInEveryThreadingMode(Threading mode, @TempDir Path dir) throws Exception {
        String a = "127.0.143." + (mode.ordinal() + 1) + "1";
        String b = "127.0.143." + (mode.ordinal() + 1) + "2";
        try (ChildJvm demo = ChildJvm.jrdma(dir, "demo", mode, null, "demo", "-a", a, "-b", b)) {
            ChildJvm.awaitAll(demo);
            assertEquals(0, demo.status(), demo.describe());
            assertTrue(demo.err().isEmpty(), demo.describe());
            assertDemo(demo.out(), a, b);
            assertTrue(demo.out().startsWith("jrdma demo: RC queue pairs between soft RoCEv2 devices on " + a + " and "
                    + b + ", path MTU 1024, " + mode.name().toLowerCase(Locale.ROOT) + " engine\n"), demo.describe());
        }
    }

    /** Every operation's packets, completions and data checks, in order, between devices on {@code a} and {@code b}. */
    static void assertDemo(String out, String a, String b) {
        for (String expected : new String[] {"RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST",
            "RC_SEND_ONLY_WITH_IMMEDIATE", "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_LAST", "RC_RDMA_READ_REQUEST",
            "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_LAST", "RC_ACKNOWLEDGE", "data verified",
            a + " -> " + b + " RC_SEND_FIRST", a + " <- " + b + " RC_ACKNOWLEDGE", "imm=0x1234abcd",
            "opcode=RDMA_READ byte_len=2500", "demo OK"}) {
            assertTrue(out.contains(expected), "missing '" + expected + "' in\n" + out);
        }
        assertEquals(4, count(out, "data verified"), out);
        assertTrue(out.indexOf("RC_SEND_FIRST") < out.indexOf("RC_RDMA_WRITE_FIRST")
                && out.indexOf("RC_RDMA_WRITE_FIRST") < out.indexOf("RC_RDMA_READ_REQUEST"), out);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
