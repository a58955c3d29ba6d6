package io.jrdma.soft;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WorkCompletion;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue: a single-producer (engine) single-consumer (poller) ring of preallocated completions.
 * A completion that finds the ring full is an overrun: it is counted and the CQ is put in error, never dropped
 * silently.
 */
final class SoftCq implements CompletionQueue {

    private static final int DISARMED = 0;
    private static final int ARMED_ANY = 1;
    private static final int ARMED_SOLICITED = 2;

    final SoftContext context;
    final SoftChannel channel;
    private final int capacity;
    private final WorkCompletion[] ring;
    private final int mask;
    private volatile long head; // next to poll (consumer)
    private volatile long tail; // next to fill (engine)
    private final AtomicInteger armed = new AtomicInteger(DISARMED);
    private volatile boolean overrun;
    final AtomicInteger eventsRaised = new AtomicInteger();
    private final AtomicInteger eventsAcked = new AtomicInteger();
    final UseCount users = new UseCount();
    boolean closed;

    SoftCq(SoftContext context, int cqe, SoftChannel channel) {
        this.context = context;
        this.channel = channel;
        this.capacity = cqe;
        int size = Integer.highestOneBit(Math.max(2, cqe) * 2 - 1);
        ring = new WorkCompletion[size];
        for (int i = 0; i < size; i++) {
            ring[i] = new WorkCompletion();
        }
        mask = size - 1;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] wcs, int max) {
        Engine engine = context.engine;
        int work = engine.callerPass();
        int n = take(wcs, max);
        if (engine.callerIdle(work, n > 0, this) >= 0) { // it waited, then ran a pass: take in what ended the wait
            n = take(wcs, max);
        }
        return n;
    }

    /** Whether completions wait to be polled (any thread). */
    boolean hasCompletions() {
        return tail != head;
    }

    /** Copies out up to {@code max} completions. */
    private int take(WorkCompletion[] wcs, int max) {
        long h = head;
        long available = tail - h;
        if (available == 0 && overrun) {
            throw new VerbsException(Errno.EIO, "completion queue overrun: more than " + capacity
                    + " completions were outstanding; the CQ is in error");
        }
        int n = (int) Math.min(available, Math.min(max, wcs.length));
        for (int i = 0; i < n; i++) {
            wcs[i].copyFrom(ring[(int) (h + i) & mask]);
        }
        if (n > 0) {
            head = h + n;
        }
        return n;
    }

    /**
     * Engine side ({@link CompletionWriter#push}): the ring slot the next completion is written into, or null when
     * the ring is full. An overrun loses the completion and puts the CQ in error: counted, and CQ_ERR raised once.
     */
    WorkCompletion claim() {
        if (tail - head >= capacity) {
            if (!overrun) {
                overrun = true;
                context.counters.increment(Counter.CQ_OVERRUN);
                context.events.raise(AsyncEvent.ofCq(AsyncEventType.CQ_ERR, this)); // once: the CQ stays in error
            }
            return null;
        }
        return ring[(int) tail & mask];
    }

    /**
     * Engine side: makes the completion written into the {@link #claim}ed slot visible to pollers, and raises the
     * channel event when armed for it ({@code notifies}: any completion under a solicited-only request that is
     * solicited or in error).
     */
    void publish(boolean notifies) {
        tail = tail + 1;
        context.completions.pushed();
        int a = armed.get();
        if (a == ARMED_ANY || (a == ARMED_SOLICITED && notifies)) {
            if (armed.compareAndSet(a, DISARMED)) {
                eventsRaised.incrementAndGet();
                channel.signal(this);
            }
        }
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) {
            throw new VerbsException(Errno.EINVAL, "this CQ has no completion channel to notify");
        }
        // ibv_req_notify_cq: a stronger request (any) replaces a weaker one (solicited only), never the reverse
        int want = solicitedOnly ? ARMED_SOLICITED : ARMED_ANY;
        armed.accumulateAndGet(want, (cur, w) -> cur == ARMED_ANY ? cur : w);
    }

    @Override
    public void ackEvents(int n) {
        if (n < 0 || eventsAcked.get() + n > eventsRaised.get()) {
            throw new VerbsException(Errno.EINVAL, "acknowledging " + n + " events but only "
                    + (eventsRaised.get() - eventsAcked.get()) + " are unacknowledged");
        }
        eventsAcked.addAndGet(n);
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public void close() {
        context.destroyCq(this);
    }

    /** Destroyed (control path, device lock held): every later use of it fails. */
    void markClosed() {
        closed = true;
    }
}
