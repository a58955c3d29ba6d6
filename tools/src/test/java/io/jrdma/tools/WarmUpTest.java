package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Counter;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Context;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The tools' JIT warm-up: a loopback pair on the tool's own device, as many iterations as the setting says. */
class WarmUpTest {

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.warmup");
        System.clearProperty("jrdma.trace");
    }

    @Test
    void runsTheIterationsAskedForOverRealLoopbackPackets() {
        System.setProperty("jrdma.warmup", "300");
        try (Context ctx = SoftDevice.builder().name("warm").address("127.0.71.1").build().open()) {
            long sentBefore = sentPackets(ctx);
            assertEquals(300, WarmUp.run(ctx, 1, -1, 4096, err), errBytes.toString(StandardCharsets.UTF_8));
            // 150 SENDs and 150 WRITEs of 4 KiB at MTU 1024: 4 packets each, and an ACK for each message
            assertTrue(sentPackets(ctx) - sentBefore >= 300 * 4, "packets sent: " + (sentPackets(ctx) - sentBefore));
            assertEquals(300, WarmUp.run(ctx, 1, 1, 2, err), "a second warm-up on the same context (all freed)");
        }
        assertEquals("", errBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void offWhenSetToZeroOrWhenTracing() {
        System.setProperty("jrdma.warmup", "0");
        assertEquals(0, WarmUp.iterations());
        System.setProperty("jrdma.warmup", "50");
        assertEquals(50, WarmUp.iterations());
        System.setProperty("jrdma.trace", "stderr");
        assertEquals(0, WarmUp.iterations(), "a traced run shows only the peer's packets");
    }

    @Test
    void aBadSettingIsAClearError() {
        System.setProperty("jrdma.warmup", "lots");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, WarmUp::iterations);
        assertTrue(e.getMessage().contains("JRDMA_WARMUP"), e.getMessage());
    }

    private static long sentPackets(Context ctx) {
        return ((SoftContext) ctx).counters().get(Counter.SENT_PKTS);
    }
}
