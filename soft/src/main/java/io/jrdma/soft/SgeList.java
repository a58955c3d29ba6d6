package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Sge;
import java.lang.foreign.MemorySegment;

/**
 * A work request's scatter/gather list, copied at post time into storage preallocated with its WQE, and the
 * gather and scatter between it and a packet. Message offsets map onto the entries in order; each entry's lkey is
 * looked up again at use, so a region deregistered after posting fails with a protection error instead of
 * touching freed memory. Written by the posting thread before the WQE is published, then read by the engine.
 */
final class SgeList {

    private final long[] addr;
    private final int[] length;
    private final int[] lkey;
    private int count;

    SgeList(int maxSge) {
        addr = new long[maxSge];
        length = new int[maxSge];
        lkey = new int[maxSge];
    }

    /** Entries in use. */
    int count() {
        return count;
    }

    long addr(int i) {
        return addr[i];
    }

    /** Entry {@code i}'s length, unsigned. */
    long length(int i) {
        return length[i] & 0xFFFFFFFFL;
    }

    int lkey(int i) {
        return lkey[i];
    }

    /** Copies the first {@code n} entries of a posted work request's list. */
    void copyOf(Sge[] sg, int n) {
        for (int i = 0; i < n; i++) {
            Sge s = sg[i];
            addr[i] = s.addr();
            length[i] = s.length();
            lkey[i] = s.lkey();
        }
        count = n;
    }

    /** Copies another list (an SRQ's WQE taken by a QP, a ring resized); it fits: same or larger capacity. */
    void copyOf(SgeList other) {
        int n = other.count;
        System.arraycopy(other.addr, 0, addr, 0, n);
        System.arraycopy(other.length, 0, length, 0, n);
        System.arraycopy(other.lkey, 0, lkey, 0, n);
        count = n;
    }

    /** Empties the list (inline data, local operations). */
    void clear() {
        count = 0;
    }

    /**
     * Copies message bytes {@code [msgOffset, msgOffset + count)} out of the list into {@code dst}.
     *
     * @return true, or false on a protection error (bad key, other PD, out of bounds)
     */
    boolean gather(MrTable mrs, SoftPd pd, long msgOffset, MemorySegment dst, long dstOffset, int bytes) {
        return walk(mrs, pd, msgOffset, dst, dstOffset, bytes, false, null);
    }

    /**
     * Names the {@code bytes} of the list at message offset {@code msgOffset} as payload pieces of the transmitter's
     * packet ({@link Transmitter#addPiece}), with the checks of {@link #gather}; false when any check fails or a
     * piece cannot be sent by reference, and the caller then gathers by copy (which reports a failed check).
     */
    boolean reference(MrTable mrs, SoftPd pd, long msgOffset, int bytes, Transmitter xmit) {
        xmit.clearPieces();
        if (walk(mrs, pd, msgOffset, null, 0, bytes, false, xmit)) {
            return true;
        }
        xmit.clearPieces();
        return false;
    }

    /** Copies {@code bytes} from {@code src} into the list at message offset {@code msgOffset}. */
    boolean scatter(MrTable mrs, SoftPd pd, long msgOffset, MemorySegment src, long srcOffset, int bytes) {
        return walk(mrs, pd, msgOffset, src, srcOffset, bytes, true, null);
    }

    /** Checks each piece of the list; copies it to or from {@code pkt}, or names it to {@code pieces} if given. */
    private boolean walk(MrTable mrs, SoftPd pd, long msgOffset, MemorySegment pkt, long pktOffset, int bytes,
            boolean toList, Transmitter pieces) {
        long skip = msgOffset;
        int left = bytes;
        for (int i = 0; i < count && left > 0; i++) {
            long l = length(i);
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
