package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.WrStructs.BI_ADDR;
import static io.jrdma.ibverbs.WrStructs.BI_LENGTH;
import static io.jrdma.ibverbs.WrStructs.BI_MR;
import static io.jrdma.ibverbs.WrStructs.BI_MW_ACCESS_FLAGS;
import static io.jrdma.ibverbs.WrStructs.SEND_WR;
import static io.jrdma.ibverbs.WrStructs.SGE;
import static io.jrdma.ibverbs.WrStructs.SWR_ATOMIC_COMPARE_ADD;
import static io.jrdma.ibverbs.WrStructs.SWR_ATOMIC_REMOTE_ADDR;
import static io.jrdma.ibverbs.WrStructs.SWR_ATOMIC_RKEY;
import static io.jrdma.ibverbs.WrStructs.SWR_ATOMIC_SWAP;
import static io.jrdma.ibverbs.WrStructs.SWR_BIND_MW_INFO;
import static io.jrdma.ibverbs.WrStructs.SWR_BIND_MW_MW;
import static io.jrdma.ibverbs.WrStructs.SWR_BIND_MW_RKEY;
import static io.jrdma.ibverbs.WrStructs.SWR_IMM_DATA;
import static io.jrdma.ibverbs.WrStructs.SWR_INVALIDATE_RKEY;
import static io.jrdma.ibverbs.WrStructs.SWR_NEXT;
import static io.jrdma.ibverbs.WrStructs.SWR_NUM_SGE;
import static io.jrdma.ibverbs.WrStructs.SWR_OPCODE;
import static io.jrdma.ibverbs.WrStructs.SWR_RDMA_REMOTE_ADDR;
import static io.jrdma.ibverbs.WrStructs.SWR_RDMA_RKEY;
import static io.jrdma.ibverbs.WrStructs.SWR_SEND_FLAGS;
import static io.jrdma.ibverbs.WrStructs.SWR_SG_LIST;
import static io.jrdma.ibverbs.WrStructs.SWR_UD_AH;
import static io.jrdma.ibverbs.WrStructs.SWR_UD_REMOTE_QKEY;
import static io.jrdma.ibverbs.WrStructs.SWR_UD_REMOTE_QPN;
import static io.jrdma.ibverbs.WrStructs.SWR_WR;
import static io.jrdma.ibverbs.WrStructs.SWR_WR_ID;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Translates {@link SendWr} chains in place into a QP's preallocated native ibv_send_wr chain (each slot with its
 * own ibv_sge array): no allocation per request. A chain longer than the slots is posted in batches. Requests are
 * checked only as far as memory safety and libibverbs' own local checks need (a UD request without an address
 * handle, a BIND_MW without a window or region would make the provider dereference NULL); everything else is the
 * provider's and the kernel's to judge. One thread posts to a send queue at a time, as in libibverbs.
 */
final class SendWrWriter {

    private static final long WR_SIZE = SEND_WR.byteSize();
    private static final long SGE_SIZE = SGE.byteSize();

    final int slots;
    private final int maxSge;
    private final int maxInline;
    private final QpType type;
    final MemorySegment wrs;
    private final MemorySegment sges;
    private final long wrBase;
    private final long sgeBase;
    private final IbvMw[] bindWindows;
    private final int[] bindRkeys;
    private int binds;
    /** The request after the last one written, or null. */
    SendWr rest;
    /** Why the request after the last one written was refused (null: none was). */
    String refusal;
    Errno refusalErrno;

    SendWrWriter(Arena arena, int slots, int maxSge, int maxInline, QpType type) {
        this.slots = slots;
        this.maxSge = Math.max(1, maxSge);
        this.maxInline = maxInline;
        this.type = type;
        this.wrs = arena.allocate(WR_SIZE * slots, 8);
        this.sges = arena.allocate(SGE_SIZE * this.maxSge * slots, 8);
        this.wrBase = wrs.address();
        this.sgeBase = sges.address();
        this.bindWindows = new IbvMw[slots];
        this.bindRkeys = new int[slots];
    }

    /**
     * Writes requests from {@code first} into the slots until the chain ends, the slots are full or a request is
     * refused ({@link #refusal} then says why; the requests before it are written).
     *
     * @return how many requests were written (a chain: the last one's next is NULL)
     */
    int write(SendWr first) {
        refusal = null;
        binds = 0;
        SendWr wr = first;
        int n = 0;
        while (wr != null && n < slots) {
            if (!check(wr)) {
                break;
            }
            fill(n, wr);
            n++;
            wr = wr.next();
        }
        if (n > 0) {
            wrs.set(JAVA_LONG, (n - 1) * WR_SIZE + SWR_NEXT, 0L);
        }
        rest = wr;
        return n;
    }

    /** The slot index of native request address {@code badWr} (from bad_wr). */
    int indexOf(long badWr) {
        long i = (badWr - wrBase) / WR_SIZE;
        return i >= 0 && i < slots ? (int) i : 0;
    }

    /** After a successful post: the type 2 windows bound take their new rkeys, as ibv_bind_mw does for type 1. */
    void posted() {
        for (int i = 0; i < binds; i++) {
            bindWindows[i].rkey(bindRkeys[i]);
            bindWindows[i] = null;
        }
        binds = 0;
    }

    private boolean refuse(Errno errno, String why) {
        refusalErrno = errno;
        refusal = why;
        return false;
    }

    private boolean check(SendWr wr) {
        WrOpcode op = wr.opcode();
        if (op == null) {
            return refuse(Errno.EINVAL, "the opcode is missing");
        }
        String sgeRefusal = SgeLists.refusal(wr.numSge(), wr.sgList(), maxSge, "max_send_sge", "gather");
        if (sgeRefusal != null) {
            return refuse(Errno.EINVAL, sgeRefusal);
        }
        if (!allowed(type, op)) {
            return refuse(Errno.EINVAL, "opcode " + op + " is not valid on a " + type + " QP");
        }
        boolean inline = (wr.sendFlags() & SendFlags.INLINE) != 0;
        if (inline || op.isAtomic()) {
            long total = wr.totalLength();
            if (op.isAtomic() && (total != 8 || (wr.remoteAddr() & 7) != 0 || inline)) {
                return refuse(Errno.EINVAL, "an atomic needs exactly 8 bytes of local buffer (has " + total
                        + "), an 8-byte aligned remote_addr (0x" + Long.toHexString(wr.remoteAddr())
                        + ") and no INLINE flag");
            }
            if (inline && op == WrOpcode.RDMA_READ) {
                return refuse(Errno.EINVAL, "RDMA_READ cannot be INLINE");
            }
            if (inline && total > maxInline) {
                return refuse(Errno.EINVAL, "inline data of " + total + " bytes exceeds max_inline_data "
                        + maxInline);
            }
        }
        if (type == QpType.UD && (!(wr.ah() instanceof IbvAh ah) || ah.closed())) {
            return refuse(Errno.EINVAL, "a UD send needs an open address handle of this provider");
        }
        if (op == WrOpcode.BIND_MW) {
            if (!(wr.mw() instanceof IbvMw mw) || mw.closed()) {
                return refuse(Errno.EINVAL, "BIND_MW needs an open memory window of this provider");
            }
            if (!(wr.bindInfo().mr() instanceof IbvMr mr) || mr.closed()) {
                return refuse(Errno.EINVAL, "BIND_MW needs a registered memory region in bind_info (use LOCAL_INV "
                        + "to invalidate a type 2 window)");
            }
        }
        return true;
    }

    /**
     * The operations a transport carries (the kernel's wr_opcode_mask, which kernel rxe applies only when the
     * request runs): UC has no RDMA READ, atomics or SEND with invalidate; UD sends only SEND and SEND_WITH_IMM.
     */
    static boolean allowed(QpType type, WrOpcode op) {
        return switch (type) {
            case RC -> true;
            case UC -> op != WrOpcode.RDMA_READ && !op.isAtomic() && op != WrOpcode.SEND_WITH_INV;
            case UD -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM;
        };
    }

    private void fill(int slot, SendWr wr) {
        long at = slot * WR_SIZE;
        long sgeAt = (long) slot * maxSge * SGE_SIZE;
        for (long o = SWR_WR; o < WR_SIZE; o += 8) { // the wr, qp_type and bind_mw/tso unions
            wrs.set(JAVA_LONG, at + o, 0L);
        }
        WrOpcode op = wr.opcode();
        int n = wr.numSge();
        SgeLists.write(sges, sgeAt, wr.sgList(), n);
        wrs.set(JAVA_LONG, at + SWR_WR_ID, wr.wrId());
        wrs.set(JAVA_LONG, at + SWR_NEXT, wrBase + at + WR_SIZE);
        wrs.set(JAVA_LONG, at + SWR_SG_LIST, sgeBase + sgeAt);
        wrs.set(JAVA_INT, at + SWR_NUM_SGE, n);
        wrs.set(JAVA_INT, at + SWR_OPCODE, op.code());
        wrs.set(JAVA_INT, at + SWR_SEND_FLAGS, wr.sendFlags());
        if (op == WrOpcode.SEND_WITH_INV || op == WrOpcode.LOCAL_INV) {
            wrs.set(JAVA_INT, at + SWR_INVALIDATE_RKEY, wr.invalidateRkey());
        } else {
            // __be32: the value as carried in the ImmDt header, so its bytes go big-endian into memory
            wrs.set(JAVA_INT, at + SWR_IMM_DATA, op.hasImmediate() ? Integer.reverseBytes(wr.immData()) : 0);
        }
        if (type == QpType.UD) {
            wrs.set(JAVA_LONG, at + SWR_UD_AH, ((IbvAh) wr.ah()).ptr.address());
            wrs.set(JAVA_INT, at + SWR_UD_REMOTE_QPN, wr.remoteQpn());
            wrs.set(JAVA_INT, at + SWR_UD_REMOTE_QKEY, wr.remoteQkey());
        } else if (op.isAtomic()) {
            wrs.set(JAVA_LONG, at + SWR_ATOMIC_REMOTE_ADDR, wr.remoteAddr());
            wrs.set(JAVA_LONG, at + SWR_ATOMIC_COMPARE_ADD, wr.compareAdd());
            wrs.set(JAVA_LONG, at + SWR_ATOMIC_SWAP, wr.swap());
            wrs.set(JAVA_INT, at + SWR_ATOMIC_RKEY, wr.rkey());
        } else if (op.isRemoteMemory()) {
            wrs.set(JAVA_LONG, at + SWR_RDMA_REMOTE_ADDR, wr.remoteAddr());
            wrs.set(JAVA_INT, at + SWR_RDMA_RKEY, wr.rkey());
        } else if (op == WrOpcode.BIND_MW) {
            IbvMw mw = (IbvMw) wr.mw();
            long info = at + SWR_BIND_MW_INFO;
            wrs.set(JAVA_LONG, at + SWR_BIND_MW_MW, mw.ptr.address());
            wrs.set(JAVA_INT, at + SWR_BIND_MW_RKEY, wr.bindRkey());
            wrs.set(JAVA_LONG, info + BI_MR, ((IbvMr) wr.bindInfo().mr()).ptr.address());
            wrs.set(JAVA_LONG, info + BI_ADDR, wr.bindInfo().addr());
            wrs.set(JAVA_LONG, info + BI_LENGTH, wr.bindInfo().length());
            wrs.set(JAVA_INT, info + BI_MW_ACCESS_FLAGS, wr.bindInfo().mwAccessFlags());
            bindWindows[binds] = mw;
            bindRkeys[binds++] = wr.bindRkey();
        }
    }
}
