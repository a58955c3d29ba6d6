package io.jrdma.soft;

/**
 * Work completions pushed to any CQ of a device, counted on the engine thread: an invoker-mode receive of a single
 * datagram stops once the datagram completed a work request, so the caller's poll returns at once
 * ({@link Receiver}). Only compared, never published.
 */
final class CompletionTally {

    private long pushed;

    void pushed() {
        pushed++;
    }

    long count() {
        return pushed;
    }
}
