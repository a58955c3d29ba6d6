package io.jrdma.soft;

/** A clock that tests move by hand, so timer paths run without sleeping. */
final class ManualClock implements NanoClock {
    private volatile long now = 1_000_000_000L;

    @Override
    public long nanoTime() {
        return now;
    }

    void advance(long ns) {
        now += ns;
    }
}
