package io.jrdma.wire;

/**
 * RNR NAK timer field encoding (IBA 9.7.5.2.8): the 5-bit code in an RNR NAK syndrome and in the QP's
 * min_rnr_timer, mapped to the minimum delay before the requester retries.
 */
public final class RnrTimer {
    /** Largest code. */
    public static final int MAX_CODE = 31;

    /** Delay in nanoseconds by code; code 0 is the longest, 655.36 ms. */
    private static final long[] DELAY_NS = {
        655_360_000L, 10_000L, 20_000L, 30_000L, 40_000L, 60_000L, 80_000L, 120_000L,
        160_000L, 240_000L, 320_000L, 480_000L, 640_000L, 960_000L, 1_280_000L, 1_920_000L,
        2_560_000L, 3_840_000L, 5_120_000L, 7_680_000L, 10_240_000L, 15_360_000L, 20_480_000L, 30_720_000L,
        40_960_000L, 61_440_000L, 81_920_000L, 122_880_000L, 163_840_000L, 245_760_000L, 327_680_000L,
        491_520_000L,
    };

    private RnrTimer() {
    }

    /**
     * The RNR delay for a timer code.
     *
     * @param code 0..31
     * @return the delay in nanoseconds
     * @throws IllegalArgumentException when the code is outside 0..31
     */
    public static long delayNs(int code) {
        if (code < 0 || code > MAX_CODE) {
            throw new IllegalArgumentException("RNR timer code " + code + " outside 0..31");
        }
        return DELAY_NS[code];
    }
}
