package io.jrdma.soft;

import java.util.concurrent.locks.LockSupport;

/**
 * Dedicated mode: where a caller's empty poll sleeps instead of spinning. The engine thread does the work, so an empty
 * poll only spins; but while the cores are contended ({@link CallerBackoff}), after the contended budget the caller
 * sleeps until the engine thread's next pass with work ({@link #wake}), at most {@link CallerBackoff#MODERATED_NS},
 * not to take the core from the engine threads that produce what it waits for (beside one busy process a sender
 * spinning on its CQ left both a tenth of a core).
 */
final class DedicatedCallerSleep {

    private final CallerBackoff backoff;
    /** A caller whose poll sleeps until the engine thread's next pass with work (or null). */
    private volatile Thread sleeper;

    DedicatedCallerSleep(CallerBackoff backoff) {
        this.backoff = backoff;
    }

    /**
     * After a caller's poll of {@code cq} (null: {@code Context.progress()}) that {@code found} completions or not.
     *
     * @return 0 when the call slept (the caller then looks at the CQ again), -1 when it did not
     */
    int afterPoll(boolean found, SoftCq cq) {
        if (found) {
            backoff.answered(System.nanoTime());
            return -1;
        }
        if (!backoff.shouldSleep(System.nanoTime())) {
            return -1;
        }
        Thread me = Thread.currentThread();
        sleeper = me; // before the look at the CQ: the engine thread writes the CQ, then reads this
        if (cq == null || !cq.hasCompletions()) {
            LockSupport.parkNanos(CallerBackoff.MODERATED_NS);
        }
        if (sleeper == me) {
            sleeper = null;
        }
        return 0;
    }

    /** On the engine thread after a pass that did work: wakes a caller asleep in its poll. */
    void wake() {
        Thread t = sleeper;
        if (t != null) {
            sleeper = null;
            LockSupport.unpark(t);
        }
    }
}
