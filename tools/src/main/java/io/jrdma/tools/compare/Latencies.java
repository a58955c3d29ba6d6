package io.jrdma.tools.compare;

import java.util.Arrays;

/**
 * Round-trip times of a ping-pong, preallocated: nothing is allocated while recording. The figures are half
 * round trips (ib_send_lat's convention): the median and the 99th percentile of RTT / 2, nearest rank.
 */
final class Latencies {

    private final long[] rtt;
    private int n;

    Latencies(int capacity) {
        rtt = new long[Math.max(1, capacity)];
    }

    /** Records one round trip; returns false when full. */
    boolean add(long rttNs) {
        rtt[n++] = rttNs;
        return n < rtt.length;
    }

    int count() {
        return n;
    }

    boolean full() {
        return n >= rtt.length;
    }

    /**
     * The result fields: samples, then the median, p90, p99 and p99.9 of the half round trip in ns (the table uses
     * the median and p99; {@code bench -v} prints them all, to tell a shifted distribution from a tail).
     */
    String fields() {
        if (n == 0) {
            throw new IllegalStateException("no round trip was measured");
        }
        long[] s = Arrays.copyOf(rtt, n);
        Arrays.sort(s);
        return "samples=" + n + " p50_ns=" + percentile(s, 50) / 2.0 + " p90_ns=" + percentile(s, 90) / 2.0
                + " p99_ns=" + percentile(s, 99) / 2.0 + " p999_ns=" + percentile(s, 99.9) / 2.0;
    }

    /** The nearest-rank percentile {@code p} of sorted {@code s}. */
    static long percentile(long[] s, double p) {
        int rank = (int) Math.ceil(p / 100.0 * s.length);
        return s[Math.clamp(rank - 1, 0, s.length - 1)];
    }
}
