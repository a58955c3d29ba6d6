package io.jrdma.tools.scale;

import java.util.Locale;

/**
 * The bytes of one soft QP's send and receive queue storage, computed from the structures {@code SoftQp} builds:
 *
 * <pre>
 * sq_slots = the power of two &gt;= max_send_wr        rq_slots = the power of two &gt;= max_recv_wr
 * SQ = refs(sq_slots) + sq_slots x (SendWqe + SgeList + long[s] + 2 x int[s] + inline_slot)  s = max(1, max_send_sge)
 * RQ = refs(rq_slots) + rq_slots x (RecvWqe + SgeList + long[r] + 2 x int[r])                r = max(1, max_recv_sge)
 * inline_slot = 0 when max_inline_data is 0, else one MemorySegment slice (heap) + max_inline_data (native)
 * </pre>
 *
 * where {@code SendWqe}, {@code RecvWqe}, {@code SgeList} (each WQE's list view over its arrays) and the slice are
 * the instance sizes the running JVM reports in its class
 * histogram, and an array is its header plus its elements, rounded up to the object alignment (a header of 16 bytes
 * with compressed class pointers, 12 with compact object headers; references of 4 bytes with compressed oops).
 *
 * @param sqSlots       send queue slots
 * @param rqSlots       receive queue slots
 * @param sendWqe       bytes of one SendWqe
 * @param recvWqe       bytes of one RecvWqe
 * @param sendSgeArrays bytes of one SendWqe's SGE list: the SgeList and its three arrays
 * @param recvSgeArrays bytes of one RecvWqe's SGE list: the SgeList and its three arrays
 * @param sqRefs        bytes of the SendWqe[] ring
 * @param rqRefs        bytes of the RecvWqe[] ring
 * @param inlineHeap    heap bytes of one slot's inline slice (0 without inline data)
 * @param inlineNative  native bytes of the whole inline area
 */
record QueueBytes(int sqSlots, int rqSlots, long sendWqe, long recvWqe, long sendSgeArrays, long recvSgeArrays,
        long sqRefs, long rqRefs, long inlineHeap, long inlineNative) {

    /** What SoftQp sizes a ring to: the smallest power of two at least {@code wr} (and 1 for 0). */
    static int slots(int wr) {
        return Integer.highestOneBit(Math.max(1, wr) * 2 - 1);
    }

    /**
     * The queue bytes of a QP created with these caps, with instance sizes from the class histogram.
     *
     * @param sendWqe     instance size of io.jrdma.soft.SendWqe
     * @param recvWqe     instance size of io.jrdma.soft.RecvWqe
     * @param sgeList     instance size of io.jrdma.soft.SgeList
     * @param segmentSize instance size of a native MemorySegment (used when {@code inline > 0})
     */
    static QueueBytes of(int sendWr, int recvWr, int sendSge, int recvSge, int inline, long sendWqe,
            long recvWqe, long sgeList, long segmentSize) {
        Layout l = Layout.ofThisVm();
        int sq = slots(sendWr);
        int rq = slots(recvWr);
        int s = Math.max(1, sendSge);
        int r = Math.max(1, recvSge);
        return new QueueBytes(sq, rq, sendWqe, recvWqe, sgeList + l.array(8, s) + 2 * l.array(4, s),
                sgeList + l.array(8, r) + 2 * l.array(4, r), l.array(l.ref, sq), l.array(l.ref, rq),
                inline == 0 ? 0 : segmentSize, (long) inline * sq);
    }

    long sendQueue() {
        return sqRefs + sqSlots * (sendWqe + sendSgeArrays + inlineHeap) + inlineNative;
    }

    long recvQueue() {
        return rqRefs + rqSlots * (recvWqe + recvSgeArrays);
    }

    long total() {
        return sendQueue() + recvQueue();
    }

    /** Of {@link #total()}, the native part (the inline area). */
    long nativePart() {
        return inlineNative;
    }

    /** The formula with this QP's numbers, on two lines. */
    String describe() {
        String sq = String.format(Locale.ROOT, "SQ %,d = %d + %d x (SendWqe %d + SGE list %d%s)%s", sendQueue(),
                sqRefs, sqSlots, sendWqe, sendSgeArrays, inlineHeap == 0 ? "" : " + slice " + inlineHeap,
                inlineNative == 0 ? "" : " + inline " + inlineNative);
        String rqText = String.format(Locale.ROOT, "RQ %,d = %d + %d x (RecvWqe %d + SGE list %d)", recvQueue(),
                rqRefs, rqSlots, recvWqe, recvSgeArrays);
        return sq + "; " + rqText;
    }

    /** Object layout of the running JVM, from its flags. */
    private record Layout(int header, int ref, int align) {

        static Layout ofThisVm() {
            boolean compact = Boolean.parseBoolean(Memory.vmOption("UseCompactObjectHeaders", "false"));
            boolean oops = Boolean.parseBoolean(Memory.vmOption("UseCompressedOops", "true"));
            int align = Integer.parseInt(Memory.vmOption("ObjectAlignmentInBytes", "8"));
            return new Layout(compact ? 12 : 16, oops ? 4 : 8, align);
        }

        /** An array of {@code n} elements of {@code elem} bytes. */
        long array(int elem, int n) {
            long base = (header + elem - 1) / elem * elem;
            return (base + (long) elem * n + align - 1) / align * align;
        }
    }
}
