package io.jrdma.soft;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The device lock: a {@link ReentrantLock} that engine passes and control-path calls take. A thread waiting for an
 * event may hold it while it sleeps in the socket's receive for as long as nothing needs the engine
 * ({@link Engine#progressOrWait}); a thread that finds the lock taken first wakes such a sleeper
 * ({@link Engine#wakeWaiter}), so a control-path call (modify, create, destroy) waits for a pass, not for a sleep.
 */
final class DeviceLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;
    /** How long a contended {@link #lock} waits before it wakes a sleeping holder again. */
    private static final long WAKE_SLICE_NS = 200_000;

    private transient volatile Engine engine;

    /** The engine whose waiting callers a contended {@link #lock} wakes (set once it exists). */
    void wakes(Engine engine) {
        this.engine = engine;
    }

    @Override
    public void lock() {
        if (tryLock()) {
            return;
        }
        // wake a sleeping holder, then wait in short slices, waking it again each time: it may have gone to sleep
        // between this thread's wake-up and its queuing (a waiter checks for queued threads before it sleeps)
        boolean interrupted = false;
        while (true) {
            Engine e = engine;
            if (e != null) {
                e.wakeWaiter();
            }
            try {
                if (tryLock(WAKE_SLICE_NS, TimeUnit.NANOSECONDS)) {
                    break;
                }
            } catch (InterruptedException x) {
                interrupted = true; // lock() is not interruptible: keep the status for the caller
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
