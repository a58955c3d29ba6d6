package io.jrdma.tools.compare;

/**
 * A benchmark child found data that differs from what its peer sent (a sequence number, an echo, a pattern word):
 * the run is invalid and the child exits with {@link #EXIT_STATUS}.
 */
final class BenchFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The exit status of a child whose data check failed. */
    static final int EXIT_STATUS = 3;

    BenchFailure(String message) {
        super("verification failed: " + message);
    }
}
