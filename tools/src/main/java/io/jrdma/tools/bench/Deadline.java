package io.jrdma.tools.bench;

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

    /**
     * Fails once the deadline has passed.
     *
     * @throws TimeoutException naming {@code what} the child was doing
     */
    void check(String what) throws TimeoutException {
        if (System.nanoTime() - atNs > 0) {
            throw new TimeoutException("not done within " + budgetMs + " ms while " + what);
        }
    }
}
