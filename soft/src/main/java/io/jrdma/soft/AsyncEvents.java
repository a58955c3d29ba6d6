package io.jrdma.soft;

import io.jrdma.verbs.AsyncEvent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A context's asynchronous event queue (what ibv_get_async_event reads): bounded; an event that finds it full is
 * dropped and counted ({@link Counter#ASYNC_EVENTS_DROPPED}), never blocking the engine.
 */
final class AsyncEvents {

    static final int CAPACITY = 1024;

    private final Engine engine;
    private final Counters counters;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<AsyncEvent> queue = new ArrayDeque<>(CAPACITY);

    AsyncEvents(Engine engine, Counters counters) {
        this.engine = engine;
        this.counters = counters;
    }

    /** Queues an event; called by the engine and the control path. */
    void raise(AsyncEvent event) {
        lock.lock();
        try {
            if (queue.size() >= CAPACITY) {
                counters.increment(Counter.ASYNC_EVENTS_DROPPED);
                return;
            }
            queue.addLast(event);
            counters.increment(Counter.ASYNC_EVENTS);
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private AsyncEvent poll() {
        lock.lock();
        try {
            return queue.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    /** The oldest event, waiting up to {@code timeout}; in invoker mode the waiting thread drives the engine
     * (an adaptive engine's thread serves an application's event thread, which may wait for ever). */
    AsyncEvent await(Duration timeout) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        while (true) {
            if (engine.invoker()) {
                engine.progress();
            }
            AsyncEvent e = poll();
            if (e != null) {
                return e;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            if (engine.invoker()) {
                engine.progressOrWait(left);
            } else {
                lock.lock();
                try {
                    if (queue.isEmpty()) {
                        arrived.awaitNanos(left);
                    }
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return null;
                } finally {
                    lock.unlock();
                }
            }
        }
    }
}
