package io.jrdma.soft;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A completion channel: a bounded queue of CQ events. A CQ is disarmed when it raises an event, so it is queued at
 * most once at a time and the queue never needs more room than the context may have CQs.
 */
final class SoftChannel implements CompletionChannel {

    final SoftContext context;
    private final ArrayBlockingQueue<SoftCq> events = new ArrayBlockingQueue<>(SoftLimits.MAX_CQ);
    /** How long a waiter polls before it sleeps. */
    private final WaitSpin spin = new WaitSpin();
    final UseCount users = new UseCount();
    boolean closed;

    SoftChannel(SoftContext context) {
        this.context = context;
    }

    void signal(SoftCq cq) {
        events.offer(cq);
    }

    /**
     * The next event, or null at the deadline. Where waiters drive the engine (not in dedicated mode), a waiter first
     * polls for a while, running passes, as {@link WaitSpin} says (not while the cores are crowded), then sleeps in
     * the kernel: in the engine's receive ({@link Engine#progressOrWait}), so that the datagram that brings the
     * event wakes it directly (one wake-up, not two). In dedicated mode it sleeps on the queue the engine thread fills.
     */
    @Override
    public CompletionQueue awaitEvent(Duration timeout) {
        SoftCq cq = events.poll();
        if (cq != null || timeout.isZero() || timeout.isNegative()) {
            return cq;
        }
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Engine engine = context.engine;
        boolean drive = engine.waitersDrive();
        boolean polls = drive && WaitSpin.ENABLED;
        cq = polls ? pollFirst(engine, start, deadline) : null;
        while (cq == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            if (drive) {
                engine.progressOrWait(left);
                cq = events.poll();
            } else {
                try {
                    cq = events.poll(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
        if (polls) {
            spin.ended(System.nanoTime() - start, cq != null);
        }
        return cq;
    }

    /**
     * The waiter's polls before it sleeps: passes until an event, the end of the window, the deadline or a contended
     * verdict (the polls are a spin to {@link CallerBackoff}, which judges the cores by them).
     */
    private SoftCq pollFirst(Engine engine, long start, long deadline) {
        CallerBackoff backoff = engine.backoff;
        long window = spin.windowNs(start);
        if (window <= 0) {
            return null;
        }
        if (backoff.crowded(start)) {
            spin.contended(start);
            return null;
        }
        long end = start + Math.min(window, deadline - start);
        long last = start;
        long nextYield = start + WaitSpin.YIELD_FIRST_NS;
        while (true) {
            int work = engine.waiterPass();
            SoftCq cq = events.poll();
            if (cq != null) {
                context.counters.addAtomic(Counter.WAITER_POLLED, 1);
                return cq;
            }
            long now = System.nanoTime();
            if (work <= 0) {
                backoff.spun(now, now - last, start);
            }
            if (backoff.crowded(now)) {
                spin.contended(now);
                return null;
            }
            if (now - end >= 0) {
                return null;
            }
            if (now - nextYield >= 0) {
                Thread.yield(); // the thread that answers may have been woken onto this core, behind this one
                Preemptions.sinceLast(); // a yield that let it run counts as an involuntary switch: not a preemption
                now = System.nanoTime();
                nextYield = now + WaitSpin.YIELD_EVERY_NS;
            }
            last = now;
        }
    }

    @Override
    public void close() {
        context.destroyChannel(this);
    }

    /** Destroyed (control path, device lock held): every later use of it fails. */
    void markClosed() {
        closed = true;
    }
}
