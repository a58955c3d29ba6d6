package io.jrdma.soft;

import io.jrdma.verbs.Access;
import java.lang.foreign.MemorySegment;

/**
 * Gather and scatter between a scatter/gather list and a packet buffer. Message offsets map onto the list's
 * entries in order; each entry's lkey is looked up again at use, so a region deregistered after posting fails
 * with a protection error instead of touching freed memory.
 */
final class Sgl {

    private Sgl() {
    }

    /**
     * Copies message bytes {@code [msgOffset, msgOffset + count)} out of the list into {@code dst}.
     *
     * @return true, or false on a protection error (bad key, other PD, out of bounds)
     */
    static boolean gather(MrTable mrs, SoftPd pd, long[] addr, int[] len, int[] lkey, int n, long msgOffset,
            MemorySegment dst, long dstOffset, int count) {
        return walk(mrs, pd, addr, len, lkey, n, msgOffset, dst, dstOffset, count, false, null);
    }

    /**
     * Names the {@code count} bytes of the list at message offset {@code msgOffset} as payload pieces of the
     * engine's packet ({@link Transmitter#addPiece}), with the checks of {@link #gather}; false when any check fails or
     * a piece cannot be sent by reference, and the caller then gathers by copy (which reports a failed check).
     */
    static boolean reference(MrTable mrs, SoftPd pd, long[] addr, int[] len, int[] lkey, int n, long msgOffset,
            int count, Transmitter xmit) {
        xmit.clearPieces();
        if (walk(mrs, pd, addr, len, lkey, n, msgOffset, null, 0, count, false, xmit)) {
            return true;
        }
        xmit.clearPieces();
        return false;
    }

    /** Copies {@code count} bytes from {@code src} into the list at message offset {@code msgOffset}. */
    static boolean scatter(MrTable mrs, SoftPd pd, long[] addr, int[] len, int[] lkey, int n, long msgOffset,
            MemorySegment src, long srcOffset, int count) {
        return walk(mrs, pd, addr, len, lkey, n, msgOffset, src, srcOffset, count, true, null);
    }

    /** Checks each piece of the list; copies it to or from {@code pkt}, or names it to {@code pieces} if given. */
    private static boolean walk(MrTable mrs, SoftPd pd, long[] addr, int[] len, int[] lkey, int n, long msgOffset,
            MemorySegment pkt, long pktOffset, int count, boolean toList, Transmitter pieces) {
        long skip = msgOffset;
        int left = count;
        for (int i = 0; i < n && left > 0; i++) {
            long l = len[i] & 0xFFFFFFFFL;
            if (skip >= l) {
                skip -= l;
                continue;
            }
            int chunk = (int) Math.min(l - skip, left);
            SoftMr mr = mrs.lookup(lkey[i]);
            long va = addr[i] + skip;
            if (mr == null || mr.pd != pd || !mr.covers(va, chunk) || (toList && !mr.allows(Access.LOCAL_WRITE))) {
                return false;
            }
            if (pieces != null) {
                if (!pieces.addPiece(mr, va - mr.address, chunk)) {
                    return false;
                }
            } else if (toList) {
                MemorySegment.copy(pkt, pktOffset, mr.segment, va - mr.address, chunk);
            } else {
                MemorySegment.copy(mr.segment, va - mr.address, pkt, pktOffset, chunk);
            }
            pktOffset += chunk;
            left -= chunk;
            skip = 0;
        }
        return left == 0;
    }
}
