package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The callers' spin budget and wait kind ({@link CallerBackoff}) on a synthetic clock, with the kernel's count of
 * involuntary context switches replaced by the test's: when a spin gives up, when the cores count as contended (a
 * share of the spinning time switched out, not one preemption, not the caller's own sleeps), and when a wait is a
 * timed sleep.
 */
class CallerBackoffTest {

    private static final long US = TimeUnit.MICROSECONDS.toNanos(1);

    private final Counters counters = new Counters();
    /** Involuntary switches the next query reports (then 0). */
    private final AtomicLong pendingSwitches = new AtomicLong();
    private final CallerBackoff backoff = new CallerBackoff(counters, () -> pendingSwitches.getAndSet(0));
    private long now = 1_000_000_000L;

    /** Empty polls every {@code stepNs} until one should wait; returns how long the spin lasted. */
    private long spinUntilWait(long stepNs, long maxNs) {
        long start = now;
        while (now - start < maxNs) {
            if (backoff.shouldWait(now)) {
                return now - start;
            }
            now += stepNs;
        }
        throw new AssertionError("the spin never gave up within " + maxNs + " ns");
    }

    @Test
    void quietSpinGivesUpAfterTheFullBudget() {
        long spun = spinUntilWait(US, 10 * CallerBackoff.SPIN_NS);
        assertTrue(spun > CallerBackoff.SPIN_NS && spun <= CallerBackoff.SPIN_NS + 2 * US, "spun " + spun);
        assertFalse(backoff.contended(now));
        assertEquals(0, counters.get(Counter.CALLER_CONTENDED));
    }

    @Test
    void aQuietSpinOutlastsTheSchedulersMigrationCost() {
        // Linux keeps a thread that ran within sched_migration_cost (500 us) where it is: a poller that sleeps
        // sooner, waking on its sender's core, kept two ping-pong processes on one core (contention.md)
        long migrationCost = TimeUnit.MICROSECONDS.toNanos(500);
        long spun = spinUntilWait(US, 100 * CallerBackoff.SPIN_NS);
        assertTrue(spun >= 10 * migrationCost, "a quiet spin gave up after " + spun + " ns");
    }

    @Test
    void theFirstSpinAfterBeingAwayYieldsEvery25usAndAPingPongsSpinsNever() {
        int yields = spinYields(200); // the first spin: nothing before it, so the caller was away
        long after = CallerBackoff.YIELD_AFTER_NS / US;
        long every = CallerBackoff.YIELD_EVERY_NS / US;
        int expected = (int) (1 + (200 - 1 - after) / every); // 1 us steps: at 5, 30, ..., 180 us
        assertEquals(8, expected, "the constants this test was written for");
        assertEquals(expected, yields, "yields " + after + " us into the spin, then every " + every + " us");
        for (int message = 0; message < 100; message++) { // a ping-pong: answers every 60 us, never away
            assertEquals(0, spinYields(60), "message " + message);
        }
        now += CallerBackoff.AWAY_NS + US; // the application slept
        assertEquals(expected, spinYields(200), "back from being away");
        makeContended(1);
        now += CallerBackoff.AWAY_NS + US;
        assertEquals(0, spinYields(60), "a contended spin waits after 30 us instead; it does not yield");
    }

    /** A spin of {@code steps} empty polls 1 us apart, then work; how many times it was told to yield. */
    private int spinYields(int steps) {
        int yields = 0;
        for (int i = 0; i < steps; i++) {
            backoff.shouldWait(now);
            if (backoff.shouldYield(now)) {
                yields++;
                backoff.yielded(now);
            }
            now += US;
        }
        backoff.worked();
        return yields;
    }

    @Test
    void workStartsANewSpin() {
        spinUntilWait(US, 10 * CallerBackoff.SPIN_NS);
        backoff.worked();
        now += US;
        assertFalse(backoff.shouldWait(now), "the first empty poll after work spins again");
    }

    @Test
    void anOccasionalPreemptionIsNotContention() {
        // 1 us steps, and every 200 us one 20 us gap in which the thread was switched out: 10 % of the spin
        for (int round = 0; round < 40; round++) {
            backoff.worked();
            for (int step = 0; step < 200; step++) {
                backoff.shouldWait(now);
                now += US;
            }
            pendingSwitches.set(1);
            now += 20 * US;
            backoff.shouldWait(now);
            now += US;
        }
        assertFalse(backoff.contended(now));
        assertEquals(0, counters.get(Counter.CALLER_CONTENDED));
    }

    @Test
    void aSpinSwitchedOutForMuchOfItsTimeMakesTheCoresContended() {
        backoff.worked();
        makeContended(10);
        assertEquals(1, counters.get(Counter.CALLER_CONTENDED));
        backoff.worked();
        long spun = spinUntilWait(US, CallerBackoff.SPIN_NS);
        assertTrue(spun <= CallerBackoff.CONTENDED_SPIN_NS + 2 * US, "contended spin lasted " + spun);
        now += CallerBackoff.CONTENDED_NS;
        assertFalse(backoff.contended(now), "the verdict expires");
    }

    @Test
    void theCallersOwnSleepsBetweenPollsAreNotSpinningTime() {
        // long gaps with no involuntary switch (the application slept or worked), each after a short spin
        for (int i = 0; i < 1000; i++) {
            backoff.shouldWait(now);
            now += 300 * US;
            backoff.shouldWait(now);
            now += US;
        }
        assertFalse(backoff.contended(now));
    }

    @Test
    void withoutTheKernelsCountALongGapCountsAsSwitchedOut() {
        CallerBackoff blind = new CallerBackoff(counters, () -> -1);
        blind.worked();
        for (int i = 0; i < 100 && !blind.contended(now); i++) {
            blind.shouldWait(now);
            now += US;
            blind.shouldWait(now);
            now += CallerBackoff.PREEMPTED_NS + US;
        }
        assertTrue(blind.contended(now));
    }

    @Test
    void onlyABulkTransferOnContendedCoresGetsTimedWaits() {
        backoff.waited(CallerBackoff.BULK_WORK, 0);
        assertFalse(backoff.moderated(now), "bulk, but the cores are idle");
        makeContended(1);
        backoff.waited(1, 100);
        assertFalse(backoff.moderated(now), "a ping-pong's wait: one small datagram");
        backoff.waited(1, CallerBackoff.BULK_BYTES);
        assertTrue(backoff.moderated(now), "a receiver woken by a window's worth of data");
        backoff.waited(CallerBackoff.BULK_WORK, 40);
        assertTrue(backoff.moderated(now), "a requester woken by an ACK that let it send a window's worth");
        assertEquals(2, counters.get(Counter.CALLER_MODERATED_WAITS));
    }

    @Test
    void onContendedCoresABulkTransferWaitsWithoutSpinning() {
        makeContended(1);
        backoff.waited(1, 100); // a ping-pong: spins its contended budget first
        backoff.worked();
        assertFalse(backoff.shouldWait(now), "the first empty poll starts the spin");
        now += US;
        assertFalse(backoff.shouldWait(now), "within the contended spin");
        backoff.waited(CallerBackoff.BULK_WORK, CallerBackoff.BULK_BYTES); // a window's worth moved
        backoff.worked();
        assertFalse(backoff.shouldWait(now), "the first empty poll");
        now += US;
        assertTrue(backoff.shouldWait(now), "bulk on contended cores: wait at once, the peer needs the core");
    }

    /** Spins of {@code steps} 1 us steps, each followed by a 40 us gap switched out, until the cores are contended. */
    private void makeContended(int steps) {
        for (int i = 0; i < 200 && !backoff.contended(now); i++) {
            for (int step = 0; step < steps; step++) {
                backoff.shouldWait(now);
                now += US;
            }
            pendingSwitches.set(1);
            now += 40 * US;
            backoff.shouldWait(now);
        }
        assertTrue(backoff.contended(now));
    }
}
