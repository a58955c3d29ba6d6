package io.jrdma.tools.compare;

import java.util.concurrent.TimeoutException;

/** The time by which a benchmark child must be done; every loop of a child checks it. */
final class Deadline {

    private final long atNs;
    private final long budgetMs;

    Deadline(long budgetMs) {
        this.budgetMs = budgetMs;
        this.atNs = System.nanoTime() + budgetMs * 1_000_000L;
    }

    long nanos() {
        return atNs;
    }

    /** Whether the deadline has passed. */
    boolean passed() {
        return System.nanoTime() - atNs > 0;
    }

    /** The failure to throw once {@link #passed()}: not done while {@code what}. */
    TimeoutException timeout(String what) {
        return new TimeoutException("not done within " + budgetMs + " ms while " + what);
    }

    /**
     * Fails once the deadline has passed; {@code what} should be a constant (it is not built on the hot path).
     *
     * @throws TimeoutException naming {@code what} the child was doing
     */
    void check(String what) throws TimeoutException {
        if (passed()) {
            throw timeout(what);
        }
    }
}
