package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link IdleCores}: {@code /proc/stat}'s first line parsed, the half-a-core rule, looks at most every 50 ms. */
class IdleCoresTest {

    @Test
    void idleAndIowaitOfTheFirstLineAreSummed() {
        assertEquals(3872657 + 2271, idle("cpu  4232923 1772 799627 3872657 2271 0 149410 2161 0 0\ncpu0 1 2 3 4 5\n"));
        assertEquals(-1, idle("cpu  1 2 3\ncpu0 4 5 6 7 8\n"), "a first line with fewer than five numbers");
        assertEquals(-1, idle("intr 1 2"), "no number where idle is");
    }

    @Test
    void halfACoreIdleOnAverageIsToSpare() {
        long span = TimeUnit.MILLISECONDS.toNanos(100);
        assertEquals(IdleCores.SPARE, IdleCores.spare(5, span), "50 ms idle in 100 ms");
        assertEquals(IdleCores.BUSY, IdleCores.spare(4, span), "40 ms idle in 100 ms");
        assertEquals(IdleCores.SPARE, IdleCores.spare(20, span), "two idle cores");
    }

    @Test
    void aLookComesAtMostEveryFiftyMillisecondsAndAFirstOneKnowsNothing() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/stat")), "no /proc/stat here");
        long now = System.nanoTime() + 2 * IdleCores.MAX_SPAN_NS; // a second after any look another test made
        assertEquals(IdleCores.UNKNOWN, IdleCores.spareSince(now), "no earlier look within a second");
        assertEquals(IdleCores.UNKNOWN, IdleCores.spareSince(now + IdleCores.MIN_SPAN_NS - 1), "no new look");
        int a = IdleCores.spareSince(now + IdleCores.MIN_SPAN_NS);
        assertTrue(a == IdleCores.SPARE || a == IdleCores.BUSY, "a look over 50 ms: " + a);
    }

    private static long idle(String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(b.length + 8);
            MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 8, b.length);
            return IdleCores.idleOfFirstLine(s, 8, b.length);
        }
    }
}
