package io.jrdma.soft;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * What a dedicated engine thread does after a duty cycle (one engine pass), in the manner of Agrona's idle
 * strategies: {@link #idle} is told how much work the pass did; after work it starts over, after none it spins,
 * yields, or sleeps. Sleeping is the engine's to do ({@link Sleeper}): it waits on the link, so that a datagram, a
 * post's doorbell or the nearest timer wakes it. One instance per device (strategies count), chosen with
 * {@link SoftDevice.Builder#idle} or the {@code jrdma.idle} / {@code JRDMA_IDLE} setting ({@link #named}).
 * Invoker-mode devices have no engine thread and use none.
 */
public interface IdleStrategy {

    /** Puts the engine thread to sleep until a datagram arrives, a post rings the doorbell, or a timer is due. */
    @FunctionalInterface
    interface Sleeper {
        /** Sleeps (may return at once when a doorbell was rung meanwhile). */
        void sleep();
    }

    /**
     * After a pass that did {@code workCount} units of work: starts over when it did some, else idles one step.
     *
     * @param sleeper how the engine sleeps, for strategies that do
     */
    void idle(int workCount, Sleeper sleeper);

    /** Spins ({@link Thread#onSpinWait}) and never sleeps: the lowest latency, a core always busy. */
    static IdleStrategy busySpin() {
        return new BusySpinIdle();
    }

    /** Yields the core ({@link Thread#yield}) and never sleeps. */
    static IdleStrategy yielding() {
        return new YieldingIdle();
    }

    /** Spins {@code spins} times, then yields {@code yields} times, then sleeps until woken. */
    static IdleStrategy backoff(int spins, int yields) {
        return new BackoffIdle(spins, yields);
    }

    /** Sleeps as soon as a pass finds nothing to do. */
    static IdleStrategy sleeping() {
        return new BackoffIdle(0, 0);
    }

    /** The default: {@code backoff(200, 100)}. */
    static IdleStrategy defaultStrategy() {
        return backoff(200, 100);
    }

    /**
     * The strategy a setting names: {@code spin}, {@code yield}, {@code backoff} (the default) or {@code sleep}.
     *
     * @throws IllegalArgumentException for any other name
     */
    static Supplier<IdleStrategy> named(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "spin" -> IdleStrategy::busySpin;
            case "yield" -> IdleStrategy::yielding;
            case "backoff" -> IdleStrategy::defaultStrategy;
            case "sleep" -> IdleStrategy::sleeping;
            default -> throw new IllegalArgumentException(
                    "unknown idle strategy '" + name + "': expected spin, yield, backoff or sleep");
        };
    }
}
