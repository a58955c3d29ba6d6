package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    /** What the look at the machine's idle cores answers. */
    private final AtomicInteger spare = new AtomicInteger(IdleCores.BUSY);
    private final CallerBackoff backoff = new CallerBackoff(counters, () -> pendingSwitches.getAndSet(0),
            t -> spare.get());
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
    void aLongSpinThatIsPreemptedMakesTheCoresCrowdedAtOnce() {
        // a spinner that holds its core until the end of its time slice while the thread it woke waits behind it:
        // one preemption after 1 ms of spin, a short gap (the other thread answered quickly once it ran)
        backoff.worked();
        backoff.shouldWait(now);
        for (long spun = 0; spun < CallerBackoff.LONG_SPIN_NS; spun += US) {
            now += US;
            assertFalse(backoff.shouldWait(now));
        }
        assertFalse(backoff.crowded(now), "no preemption yet");
        pendingSwitches.set(1);
        now += 50 * US;
        backoff.shouldWait(now);
        assertTrue(backoff.crowded(now), "preempted after a long spin: 50 us of 1 ms is under the share rule");
        assertFalse(backoff.contended(now));
        assertEquals(1, counters.get(Counter.CALLER_CROWDED));
        backoff.worked();
        long spun = spinUntilWait(US, CallerBackoff.SPIN_NS);
        assertTrue(spun <= CallerBackoff.CONTENDED_SPIN_NS + 2 * US, "crowded spin lasted " + spun);
        backoff.waited(CallerBackoff.BULK_WORK, CallerBackoff.BULK_BYTES);
        assertFalse(backoff.moderated(now), "crowded: the waits stay the ones a datagram ends");
        now += CallerBackoff.CONTENDED_NS;
        assertFalse(backoff.crowded(now), "the verdict expires");
    }

    @Test
    void anAnswerThatCameWhileALongSpinWasSwitchedOutMakesTheCoresCrowded() {
        // the peer's thread waited behind the spin for the rest of its slice, answered while it was switched out,
        // and the first poll back finds the answer: no empty poll sees the gap
        backoff.worked();
        for (long spun = 0; spun <= CallerBackoff.LONG_SPIN_NS; spun += US) {
            assertFalse(backoff.shouldWait(now));
            now += US;
        }
        now += 60 * US;
        backoff.answered(now); // not switched out: the caller did something else (no sign)
        assertFalse(backoff.crowded(now));
        for (long spun = 0; spun <= CallerBackoff.LONG_SPIN_NS; spun += US) {
            assertFalse(backoff.shouldWait(now));
            now += US;
        }
        pendingSwitches.set(1);
        now += 60 * US;
        backoff.answered(now);
        assertTrue(backoff.crowded(now));
        assertEquals(1, counters.get(Counter.CALLER_CROWDED));
        // a short spin's answer after a preemption: no sign
        CallerBackoff other = new CallerBackoff(counters, () -> 1, t -> IdleCores.BUSY);
        for (int i = 0; i < 100; i++) {
            other.shouldWait(now);
            now += US;
            other.shouldWait(now);
            now += 60 * US;
            other.answered(now);
        }
        assertFalse(other.crowded(now));
    }

    @Test
    void withACoreToSpareALongSpinPreemptedIsTwoPollersSharingACoreAndTheSpinStaysLong() {
        // two pollers on one core while the other idles: each waits for the core behind the other, as beside a busy
        // process, but a long spin is what lets the idle core take one of them
        spare.set(IdleCores.SPARE);
        longSpinPreempted();
        assertFalse(backoff.crowded(now));
        backoff.worked();
        long spun = spinUntilWait(US, 2 * CallerBackoff.SPIN_NS);
        assertTrue(spun > CallerBackoff.SPIN_NS, "the spin stays long: " + spun);
        assertEquals(0, counters.get(Counter.CALLER_CROWDED));
        spare.set(IdleCores.UNKNOWN); // the first look has nothing to compare with: the sign counts
        longSpinPreempted();
        assertTrue(backoff.crowded(now));
    }

    /** A spin of just over {@link CallerBackoff#LONG_SPIN_NS}, switched out, then the poll that finds the answer. */
    private void longSpinPreempted() {
        backoff.worked();
        for (long spun = 0; spun <= CallerBackoff.LONG_SPIN_NS; spun += US) {
            backoff.shouldWait(now);
            now += US;
        }
        pendingSwitches.set(1);
        now += 60 * US;
        backoff.answered(now);
    }

    @Test
    void aShortSpinThatIsPreemptedIsNot() {
        backoff.worked();
        backoff.shouldWait(now);
        now += CallerBackoff.LONG_SPIN_NS - 20 * US;
        backoff.shouldWait(now); // no switch in that step: not spinning time, but the spin's clock runs
        pendingSwitches.set(1);
        now += 15 * US;
        backoff.shouldWait(now);
        assertFalse(backoff.crowded(now));
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
        CallerBackoff blind = new CallerBackoff(counters, () -> -1, t -> IdleCores.UNKNOWN);
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

    @Test
    void aCallerPollsInALoopWhileItPollsWithinTheHoldTimeOrWaitsBetweenSuchPolls() {
        CallerBackoff b = new CallerBackoff(counters, () -> 0, now -> IdleCores.UNKNOWN);
        long t = 1_000_000_000L;
        assertFalse(b.spinning(t), "never polled");
        assertFalse(b.shouldWait(t));
        assertTrue(b.spinning(t + 1_000), "an empty poll a microsecond ago");
        assertFalse(b.spinning(t + CallerBackoff.SPINNING_NS), "none for the hold time");
        b.answered(t + 50_000);
        assertTrue(b.spinning(t + 51_000), "a poll that found its answer counts too");
        b.shouldWait(t + 60_000); // say it waits now, 10 us after its last poll
        b.woke(t + 110_000);
        assertTrue(b.spinning(t + 111_000), "back from a wait it began in a loop of polls");
        b.shouldWait(t + 2_000_000); // the next poll, 1.9 ms later, waits too
        b.woke(t + 2_050_000);
        assertFalse(b.spinning(t + 2_051_000), "back from a wait it began after a gap: it may not poll again soon");
    }
}
