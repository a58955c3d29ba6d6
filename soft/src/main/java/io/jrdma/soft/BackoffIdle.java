package io.jrdma.soft;

/**
 * {@link IdleStrategy#backoff}: after a pass with work, the next idle passes first spin, then yield, then sleep
 * until woken; {@code backoff(0, 0)} sleeps at once ({@link IdleStrategy#sleeping()}).
 */
final class BackoffIdle implements IdleStrategy {

    private final int spins;
    private final int yields;
    private int idle;

    BackoffIdle(int spins, int yields) {
        if (spins < 0 || yields < 0) {
            throw new IllegalArgumentException("spins and yields must not be negative: " + spins + ", " + yields);
        }
        this.spins = spins;
        this.yields = yields;
    }

    @Override
    public void idle(int workCount, Sleeper sleeper) {
        if (workCount > 0) {
            idle = 0;
        } else if (idle < spins) {
            idle++;
            Thread.onSpinWait();
        } else if (idle < spins + yields) {
            idle++;
            Thread.yield();
        } else {
            sleeper.sleep();
        }
    }

    @Override
    public String toString() {
        return "backoff(" + spins + ", " + yields + ")";
    }
}
