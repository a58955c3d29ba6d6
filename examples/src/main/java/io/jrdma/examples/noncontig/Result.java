package io.jrdma.examples.noncontig;

/**
 * The measurement of one method on one layout.
 *
 * @param method       what was measured
 * @param layout       the layout moved
 * @param maxSge       the most SGEs per work request the method used
 * @param workRequests work requests per message (1 for the pack variants)
 * @param iterations   measured messages (after the warm-up), each verified at the receiver
 * @param medianNs     median time per message, from the first copy or post to the last completion and copy
 * @param meanNs       mean time per message
 * @param minNs        fastest message
 */
public record Result(Method method, Layout layout, int maxSge, int workRequests, int iterations, long medianNs,
        long meanNs, long minNs) {

    /** Message bytes over the median time per message, in MB/s (10^6 bytes per second). */
    public double mbPerSecond() {
        return layout.messageBytes() * 1e3 / Math.max(1, medianNs);
    }
}
