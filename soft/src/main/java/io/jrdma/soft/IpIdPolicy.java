package io.jrdma.soft;

/**
 * Which IPv4 IDs the engine may assume when it verifies a packet's ICRC (the ID is covered by the ICRC, and the
 * socket API hides it). A jrdma sender always uses ID 0; kernel rxe uses other IDs, which the engine solves for.
 * Solving spends 16 of the CRC's 32 bits, so a corrupted packet passes under some ID with probability 2^-16. To
 * keep corrupted data out, a QP that has received two packets in a row from one source (address and UDP port)
 * verified under ID 0 treats that source as a jrdma sender: from then on, a packet from it that verifies only under
 * a nonzero ID is corrupt. Kernel rxe's IDs grow per packet, so two consecutive zeros from it do not happen in
 * practice; should a source really change its ways, eight solvable packets in a row (with no ID-0 packet between)
 * undo the lock, which corrupted packets from a jrdma sender would achieve with probability 2^-128.
 *
 * <p>A jrdma sender on a native link sends runs of packets as one UDP GSO datagram, whose segments Linux numbers
 * 0, 1, 2, ... (at most {@link #GSO_RUN} of them). A receiver with GRO gets the run whole and checks each packet
 * under its index in the run; a receiver without it (NIO link), or one whose network split or merged runs
 * differently, sees the IDs only through solving. So a known jrdma source may also verify under an ID below
 * {@link #GSO_RUN}: a corrupted packet from it then passes with probability 2^-26 (64 of 2^32 CRC values), not 0.
 *
 * <p>Engine thread only; one entry per QP slot, keyed by the source, so a new source starts unknown.
 */
final class IpIdPolicy {

    private static final int LOCK_AFTER = 2;
    private static final int UNLOCK_AFTER = 8;
    /** The most segments in one UDP GSO send (Linux UDP_MAX_SEGMENTS): the IDs a jrdma sender can use. */
    static final int GSO_RUN = 64;

    private final long[] source = new long[SoftLimits.MAX_QP + QpTable.SPECIAL_QPS]; // by QpTable.slot
    private final byte[] zeros = new byte[source.length];
    private final byte[] solved = new byte[source.length];

    static long key(int ip, int port) {
        return (ip & 0xFFFFFFFFL) << 16 | (port & 0xFFFF) | 1L << 48;
    }

    private void select(int slot, long key) {
        if (source[slot] != key) {
            source[slot] = key;
            zeros[slot] = 0;
            solved[slot] = 0;
        }
    }

    /** A packet from {@code key} to the QP in {@code slot} verified under ID 0. */
    void verifiedWithZero(int slot, long key) {
        select(slot, key);
        if (zeros[slot] < LOCK_AFTER) {
            zeros[slot]++;
        }
        solved[slot] = 0;
    }

    /**
     * A packet from {@code key} verifies only under a nonzero ID: true when that may be accepted, false when the
     * source is known to send ID 0 (the packet is then corrupt).
     */
    boolean acceptSolved(int slot, long key, int id) {
        select(slot, key);
        if (zeros[slot] < LOCK_AFTER) {
            return true;
        }
        if (id < GSO_RUN) {
            return true; // a segment of a GSO run, received without GRO
        }
        if (++solved[slot] >= UNLOCK_AFTER) {
            zeros[slot] = 0;
            solved[slot] = 0;
            return true;
        }
        return false;
    }
}
