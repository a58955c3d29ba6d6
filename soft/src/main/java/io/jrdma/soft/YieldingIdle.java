package io.jrdma.soft;

/** {@link IdleStrategy#yielding()}: yields the core after every idle pass, never sleeps. */
final class YieldingIdle implements IdleStrategy {

    @Override
    public void idle(int workCount, Sleeper sleeper) {
        if (workCount == 0) {
            Thread.yield();
        }
    }
}
