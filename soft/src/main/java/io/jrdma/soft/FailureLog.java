package io.jrdma.soft;

/**
 * The last unexpected exception the engine caught while serving a packet or a QP (each is also counted): kept for
 * diagnosing engine bugs ({@link SoftContext#lastEngineFailure}). Written by the engine thread, read by any.
 */
final class FailureLog {

    private volatile RuntimeException last;

    void record(RuntimeException e) {
        last = e;
    }

    RuntimeException last() {
        return last;
    }
}
