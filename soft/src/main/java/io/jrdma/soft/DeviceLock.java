package io.jrdma.soft;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The device lock: a {@link ReentrantLock} that engine passes and control-path calls take. A thread waiting for an
 * event may hold it while it sleeps in the socket's receive for as long as nothing needs the engine
 * ({@link Engine#progressOrWait}); a thread that finds the lock taken first wakes such a sleeper
 * ({@link Engine#wakeWaiter}), so a control-path call (modify, create, destroy) waits for a pass, not for a sleep.
 */
final class DeviceLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;

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
        Engine e = engine;
        if (e != null) {
            e.wakeWaiter();
        }
        super.lock();
    }
}
