package io.jrdma.soft;

import java.util.concurrent.TimeUnit;

/**
 * How long a completion channel's waiter polls before it sleeps in the kernel: a governor like the guest haltpoll
 * cpuidle governor's and KVM's halt polling. The window starts at zero; a wait whose event came within
 * {@link #GROW_WITHIN_NS} of its start, but after the window, doubles it (from {@link #START_NS}, at most
 * {@link #MAX_NS}); a longer wait, or one that ended without an event, halves it (below the start: zero). So a
 * ping-pong whose answers come while the waiter could still be polling stops paying two wake-ups a round trip (on a
 * virtual machine whose idle vCPUs halt, a sleeping thread is woken in tens of microseconds), while a waiter whose
 * events are far apart soon polls not at all and sleeps at once, as before.
 *
 * <p>The polls are a caller's spin to {@link CallerBackoff}: they feed its contended verdict, and they stop when it
 * holds (a poller on shared cores takes the core that another thread, perhaps the one that is to answer, waits for;
 * and where no core idles, a sleeping thread is woken without the halted vCPU's cost that the polls save). A waiter
 * that meets the verdict does not poll for {@link #FIRST_HOLD_NS}; met again within as long after the hold, the hold
 * doubles, up to {@link #LONGEST_HOLD_NS}: beside a busy process the polls are preempted again as soon as they resume,
 * until the verdict comes back (on a quiet machine the verdict comes seldom, and the hold stays short). The polls
 * still cost the blocking ping-pong's tail beside a busy process, where no vCPU halts and a wake-up is cheap: off
 * with the setting {@code jrdma.waiter-poll} / {@code JRDMA_WAITER_POLL} = {@code off}. They yield the core
 * {@link #YIELD_FIRST_NS} in and every {@link #YIELD_EVERY_NS} after: the datagram that woke the answering thread was
 * sent from this core, and a sync wake-up puts that thread behind the poller.
 *
 * <p>One per channel; its waiters use it one at a time in the usual case, and a race between two only misjudges one
 * window: the fields are plain.
 */
final class WaitSpin {

    /** The first window after a wait that a longer one would have caught. */
    static final long START_NS = TimeUnit.MICROSECONDS.toNanos(10);
    /** The longest window: more than a wake-up on this kind of machine, so that a ping-pong's answers are caught. */
    static final long MAX_NS = TimeUnit.MICROSECONDS.toNanos(50);
    /** A wait whose event came this soon after it began grows the window; a longer one shrinks it. */
    static final long GROW_WITHIN_NS = TimeUnit.MICROSECONDS.toNanos(200);
    /** A poller yields its core this long into its window... */
    static final long YIELD_FIRST_NS = TimeUnit.MICROSECONDS.toNanos(5);
    /** ... and again every this long. */
    static final long YIELD_EVERY_NS = TimeUnit.MICROSECONDS.toNanos(15);

    /** The first hold after a contended verdict. */
    static final long FIRST_HOLD_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The longest hold. */
    static final long LONGEST_HOLD_NS = TimeUnit.MILLISECONDS.toNanos(1600);

    /** Whether waiters poll at all ({@code jrdma.waiter-poll}, on unless off). */
    static final boolean ENABLED = Settings.enabled("jrdma.waiter-poll", "JRDMA_WAITER_POLL");

    private long windowNs;
    private long holdNs = FIRST_HOLD_NS;
    /** When the current hold ends (meaningful while {@link #held}). */
    private long heldUntilNs;
    private boolean held;

    /** The window a waiter that begins at {@code now} polls for (0: it sleeps at once). */
    long windowNs(long now) {
        if (held && now - heldUntilNs < 0) {
            return 0;
        }
        return windowNs;
    }

    /** A waiter met the contended verdict at {@code now}: no polls for a hold, longer when it came back soon. */
    void contended(long now) {
        if (held && now - heldUntilNs < 0) {
            return;
        }
        holdNs = held && now - heldUntilNs <= FIRST_HOLD_NS ? Math.min(LONGEST_HOLD_NS, 2 * holdNs) : FIRST_HOLD_NS;
        heldUntilNs = now + holdNs;
        held = true;
    }

    /**
     * A wait, from the first look that found no event, lasted {@code waitedNs} and ended with an event or not
     * ({@code event}): the window grows, stays or shrinks. Returns the new window.
     */
    long ended(long waitedNs, boolean event) {
        if (event && waitedNs <= windowNs) {
            return windowNs; // caught by the polls: the window is right
        }
        if (event && waitedNs <= GROW_WITHIN_NS) {
            windowNs = windowNs == 0 ? START_NS : Math.min(MAX_NS, 2 * windowNs);
        } else {
            windowNs = windowNs / 2 < START_NS ? 0 : windowNs / 2;
        }
        return windowNs;
    }
}
