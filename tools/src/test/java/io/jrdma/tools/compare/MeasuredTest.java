package io.jrdma.tools.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.tools.CompilerWork;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The latency clients' warm-up: at least warmup_ms, then on while the JIT compiler works, and not for ever. */
class MeasuredTest {

    private static final long MS = 1_000_000L;

    @Test
    void theWarmUpGoesOnWhileTheCompilerWorksAndEndsOnceALookFindsItQuiet() {
        AtomicLong work = new AtomicLong(100);
        Measured m = new Measured(1_000 * MS, 3_000 * MS, 0, work::get);
        assertFalse(m.measures(999 * MS), "inside warmup_ms");
        assertFalse(m.measures(1_000 * MS), "the first look has nothing to compare with");
        work.addAndGet(5); // compiled in the next 50 ms
        assertFalse(m.measures(1_000 * MS + Measured.LOOK_NS - 1), "between looks");
        assertFalse(m.measures(1_000 * MS + Measured.LOOK_NS), "the compiler worked since the last look");
        assertFalse(m.over(10_000 * MS), "not begun, not over");
        long start = 1_000 * MS + 2 * Measured.LOOK_NS;
        assertTrue(m.measures(start), "a look that finds the compiler quiet begins the interval");
        assertTrue(m.measures(start + 1), "and every round trip after it is measured");
        assertFalse(m.over(start + 3_000 * MS - 1));
        assertTrue(m.over(start + 3_000 * MS), "duration_ms after the interval began, not after warmup_ms");
        assertTrue(m.field().equals(" warmup_ms=" + start / MS), m.field());
    }

    @Test
    void aCompilerThatNeverGoesQuietDelaysTheIntervalByAtMostFiveSeconds() {
        AtomicLong work = new AtomicLong();
        Measured m = new Measured(1_000 * MS, 3_000 * MS, 0, work::incrementAndGet);
        long t = 0;
        while (!m.measures(t)) {
            t += MS;
            assertTrue(t <= 1_000 * MS + Measured.MORE_NS, "the warm-up went on past its bound: " + t);
        }
        assertEquals(1_000 * MS + Measured.MORE_NS, t);
    }

    @Test
    void withoutAFigureForTheCompilerTheWarmUpIsWarmupMs() {
        Measured m = new Measured(200 * MS, 100 * MS, 5 * MS, () -> -1);
        assertFalse(m.measures(204 * MS));
        assertTrue(m.measures(205 * MS));
        assertEquals(" warmup_ms=200", m.field());
    }

    @Test
    void theCompilersWorkGrowsWhileThisJvmCompiles() {
        long before = CompilerWork.sofar();
        assertTrue(before >= 0, "a HotSpot JVM on Linux has compiler threads: " + before);
        // a method nothing else calls: it is compiled while this loop runs it hot, and not before
        long end = System.nanoTime() + 5_000 * MS;
        long sum = 0;
        for (int i = 0; CompilerWork.sofar() == before && System.nanoTime() - end < 0; i++) {
            for (int j = 0; j < 1_000; j++) {
                sum += onlyHere(i, j);
            }
        }
        assertTrue(CompilerWork.sofar() > before, "no compiler work seen while new code ran hot (" + sum + ")");
    }

    private static long onlyHere(int i, int j) {
        return (long) i * 31 + (j ^ 0x5bd1e995) % 13;
    }
}
