package io.jrdma.examples.noncontig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark engine on real soft devices (127.0.50.x): every method moves a layout that must be split into
 * several work requests, and a destination damaged after the transfer — a wrong byte in a block, a byte written into
 * a gap — stops the run with a message naming the method and the place.
 */
class NoncontigBenchTest {

    private static NoncontigConfig config(Layout l, int maxSge, String a, String b) {
        return new NoncontigConfig(List.of(l), maxSge, 5, 1, Duration.ofMillis(50),
                io.jrdma.verbs.Mtu.MTU_1024, io.jrdma.soft.Threading.INVOKER, a, b, Duration.ofSeconds(10), null,
                List.of());
    }

    @Test
    void shouldMoveAndVerifyASplitLayoutWithEveryMethod() {
        Layout l = new Layout(5, 23, 9); // 23 blocks at 4 SGEs per request: 6 work requests
        try (Arena arena = Arena.ofShared();
                NoncontigBench bench = NoncontigBench.open(config(l, 4, "127.0.50.31", "127.0.50.32"),
                        new Tape(arena), arena)) {
            List<Result> results = bench.measure(l);
            assertEquals(Method.values().length, results.size());
            for (Result r : results) {
                assertEquals(r.method().zeroCopy() ? 6 : 1, r.workRequests(), r.toString());
                assertTrue(r.iterations() >= NoncontigBench.ROUNDS, r.toString());
                assertTrue(r.mbPerSecond() > 0, r.toString());
            }
        }
    }

    @Test
    void shouldFailWhenAByteInABlockIsWrong() {
        Layout l = new Layout(4, 10, 12);
        try (Arena arena = Arena.ofShared();
                NoncontigBench bench = NoncontigBench.open(config(l, 0, "127.0.50.33", "127.0.50.34"),
                        new Tape(arena), arena)) {
            MemorySegment b = bench.bufferB();
            long at = bench.stridedB() + l.blockOffset(7) + 2; // block 7, byte 2: message offset 30
            bench.afterTransfer(m -> {
                if (m == Method.SG_SEND_RECV) {
                    b.set(ValueLayout.JAVA_BYTE, at, (byte) ~b.get(ValueLayout.JAVA_BYTE, at));
                }
            });
            VerificationFailedException e = assertThrows(VerificationFailedException.class, () -> bench.measure(l));
            assertTrue(e.getMessage().startsWith("sg-SEND/RECV"), e.getMessage());
            assertTrue(e.getMessage().contains("message offset 30 (block 7, byte 2)"), e.getMessage());
        }
    }

    @Test
    void shouldFailWhenAGapIsWritten() {
        Layout l = new Layout(4, 10, 12);
        try (Arena arena = Arena.ofShared();
                NoncontigBench bench = NoncontigBench.open(config(l, 0, "127.0.50.35", "127.0.50.36"),
                        new Tape(arena), arena)) {
            MemorySegment a = bench.bufferA();
            bench.afterTransfer(m -> {
                if (m == Method.PACK_READ) {
                    a.set(ValueLayout.JAVA_BYTE, l.blockOffset(3) + 5, (byte) 1); // in the gap after block 3
                }
            });
            VerificationFailedException e = assertThrows(VerificationFailedException.class, () -> bench.measure(l));
            assertTrue(e.getMessage().startsWith("pack-READ"), e.getMessage());
            assertTrue(e.getMessage().contains("gap after block 3"), e.getMessage());
        }
    }
}
