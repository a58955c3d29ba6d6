package io.jrdma.tools.compare;

import io.jrdma.tools.CompilerWork;
import java.util.function.LongSupplier;

/**
 * A ping-pong client's warm-up and measured interval. The warm-up lasts {@code warmup_ms} at least, then goes on
 * while this process's JIT compiler still works (looked at every {@link #LOOK_NS}), at most {@link #MORE_NS} more:
 * the compiler threads of a JVM that still compiles take a core from one of the two spinning processes, and the
 * engine rightly answers with short spins, so the run measured the compiler. On a 2-core machine the compiler threads
 * ran about half a CPU-second each inside the measured 3 s after a 1 s warm-up, and the busy 2-byte SEND's p99 was
 * 3 - 41 µs (docs/benchmarks/contention.md). The same rule holds for every system a latency case measures, jrdma's
 * and the baselines'. Nothing is allocated once the interval has begun.
 */
final class Measured {

    /** How often the warm-up looks at the compiler's work once {@code warmup_ms} is over. */
    static final long LOOK_NS = 50_000_000L;
    /** The longest the warm-up goes on beyond {@code warmup_ms} while the compiler works. */
    static final long MORE_NS = 5_000_000_000L;

    private final LongSupplier compilerWork;
    private final long beganNs;
    private final long durationNs;
    private final long latestStartNs;
    private long nextLookNs;
    private long lastWork = Long.MIN_VALUE; // no look yet: the first look never finds the compiler quiet
    private long startNs;
    private boolean started;

    /** An interval whose warm-up begins at {@code now}, with the case's {@code warmup_ms} and {@code duration_ms}. */
    Measured(Params p, long now) {
        this(p.lng("warmup_ms") * 1_000_000L, p.lng("duration_ms") * 1_000_000L, now, CompilerWork::sofar);
    }

    /** With the compiler's work taken from {@code compilerWork} ({@link CompilerWork#sofar}; tests). */
    Measured(long warmupNs, long durationNs, long now, LongSupplier compilerWork) {
        this.compilerWork = compilerWork;
        this.beganNs = now;
        this.durationNs = durationNs;
        this.nextLookNs = now + warmupNs;
        this.latestStartNs = nextLookNs + MORE_NS;
    }

    /** Whether a round trip that began at {@code t0} is measured: the warm-up is over by then. */
    boolean measures(long t0) {
        if (started) {
            return true;
        }
        if (t0 - nextLookNs < 0) {
            return false;
        }
        long work = compilerWork.getAsLong();
        if (work < 0 || work == lastWork || t0 - latestStartNs >= 0) {
            started = true;
            startNs = t0;
            return true;
        }
        lastWork = work;
        nextLookNs = t0 + LOOK_NS;
        return false;
    }

    /** Whether the measured interval is over at {@code now} (false while it has not begun). */
    boolean over(long now) {
        return started && now - startNs >= durationNs;
    }

    /** The result field that says how long the warm-up took ({@code bench -v} prints it). */
    String field() {
        return " warmup_ms=" + (started ? (startNs - beganNs) / 1_000_000L : -1);
    }
}
