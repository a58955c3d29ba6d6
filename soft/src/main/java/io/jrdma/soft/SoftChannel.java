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
    final UseCount users = new UseCount();
    boolean closed;

    SoftChannel(SoftContext context) {
        this.context = context;
    }

    void signal(SoftCq cq) {
        events.offer(cq);
    }

    @Override
    public CompletionQueue awaitEvent(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Engine engine = context.engine;
        while (true) {
            SoftCq cq = events.poll();
            if (cq != null) {
                return cq;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            if (engine.waitersDrive()) {
                // this waiting thread drives the device until an event or the deadline: it sleeps in the kernel's
                // receive, so the datagram that brings the event wakes it directly (one wake-up, not two)
                engine.progressOrWait(left);
            } else {
                try {
                    cq = events.poll(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                if (cq != null) {
                    return cq;
                }
            }
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
