package io.jrdma.wire;

/**
 * 24-bit packet sequence number arithmetic (the BTH PSN, IBA 9.2), the only place PSN wrap-around is handled.
 * Comparisons are valid while the two PSNs are less than 2^23 apart, as rxe's psn_compare.
 */
public final class Psn {
    /** Mask of the 24 PSN bits. */
    public static final int MASK = 0xFF_FFFF;

    private Psn() {
    }

    /** {@code psn + n} modulo 2^24 ({@code n} may be negative). */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** {@code psn + 1} modulo 2^24. */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /**
     * Orders two PSNs on the 24-bit circle.
     *
     * @return negative if {@code a} precedes {@code b}, zero if equal, positive if it follows
     */
    public static int compare(int a, int b) {
        return (a - b) << 8;
    }

    /** Signed distance {@code a - b} on the 24-bit circle, in -2^23..2^23-1. */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** True when only the low 24 bits are set. */
    public static boolean isValid(int psn) {
        return (psn & ~MASK) == 0;
    }
}
