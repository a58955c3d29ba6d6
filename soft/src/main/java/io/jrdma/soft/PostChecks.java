package io.jrdma.soft;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.MwBindInfo;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;

/**
 * ibv_post_send / ibv_post_recv on the posting thread: checks the local facts of each work request, copies it into
 * the next ring slot and publishes it. The first bad request stops the chain with a {@link VerbsException} naming
 * its index; the ones before it stay posted.
 */
final class PostChecks {

    private PostChecks() {
    }

    static void postSend(SoftQp qp, SendWr first) {
        int index = 0;
        for (SendWr wr = first; wr != null; wr = wr.next(), index++) {
            QpState s = qp.state;
            if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
                throw bad(index, Errno.EINVAL, "post_send on QP " + qp.qpn + " in state " + s
                        + " (sending needs RTS)");
            }
            WrOpcode op = wr.opcode();
            if (op == null) {
                throw bad(index, Errno.EINVAL, "work request has no opcode");
            }
            checkOpcodeForType(qp, op, index);
            switch (op) {
                case SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ -> { }
                case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> checkAtomicQp(qp, index);
                case SEND_WITH_INV -> { }
                case BIND_MW, LOCAL_INV -> {
                    postLocal(qp, wr, index);
                    continue;
                }
                default -> throw bad(index, Errno.EOPNOTSUPP, "opcode " + op + " is not supported by this device yet");
            }
            int n = wr.numSge();
            Sge[] sg = wr.sgList();
            checkList(sg, n, qp.cap.maxSendSge(), "max_send_sge", index);
            boolean inline = (wr.sendFlags() & SendFlags.INLINE) != 0;
            long total = 0;
            for (int i = 0; i < n; i++) {
                total += sg[i].length() & 0xFFFFFFFFL;
            }
            if (op.isAtomic()) {
                checkAtomic(wr, total, inline, index);
            }
            if (inline) {
                if (op == WrOpcode.RDMA_READ) {
                    throw bad(index, Errno.EINVAL, "RDMA_READ cannot be INLINE");
                }
                if (total > qp.cap.maxInlineData()) {
                    throw bad(index, Errno.EINVAL, "inline data of " + total + " bytes exceeds max_inline_data "
                            + qp.cap.maxInlineData());
                }
            } else {
                for (int i = 0; i < n; i++) {
                    checkLocalSge(qp, sg[i], index, i);
                }
            }
            if (total > SoftLimits.MAX_MSG_SIZE) {
                throw bad(index, Errno.EINVAL, "message of " + total + " bytes exceeds max_msg_sz "
                        + SoftLimits.MAX_MSG_SIZE);
            }
            SoftAh ah = qp.type == QpType.UD ? checkAh(qp, wr.ah(), index) : null;
            long p = qp.sqProducer;
            if (p - qp.sqConsumer >= qp.cap.maxSendWr()) {
                throw bad(index, Errno.ENOMEM, "send queue of QP " + qp.qpn + " is full (" + qp.cap.maxSendWr()
                        + " outstanding)");
            }
            SendWqe w = qp.sqAt(p);
            w.ah = ah;
            w.remoteQpn = wr.remoteQpn();
            w.remoteQkey = wr.remoteQkey();
            w.wrId = wr.wrId();
            w.opcode = op;
            w.flags = wr.sendFlags();
            w.signaled = (w.flags & SendFlags.SIGNALED) != 0;
            w.inline = inline;
            w.length = total;
            w.immData = wr.immData();
            w.invalidateRkey = wr.invalidateRkey();
            w.remoteAddr = wr.remoteAddr();
            w.rkey = wr.rkey();
            w.compareAdd = wr.compareAdd();
            w.swap = wr.swap();
            w.resetProgress();
            w.mw = null;
            w.bindMr = null;
            if (inline) {
                copyInline(qp, w, sg, n, index);
                w.numSge = 0;
            } else {
                w.numSge = n;
                copyList(sg, n, w.sgeAddr, w.sgeLength, w.sgeLkey);
            }
            qp.sqProducer = p + 1; // publish (volatile write)
        }
    }

    /** Atomics exist on RC only (rxe wr_opcode_mask gives no mask for other QP types: EINVAL). */
    private static void checkAtomicQp(SoftQp qp, int index) {
        if (qp.type != QpType.RC) {
            throw bad(index, Errno.EINVAL, "atomic operations need an RC QP, not " + qp.type);
        }
    }

    /**
     * rxe validate_send_wr: the local buffer for the original value is exactly 8 bytes, the remote address is
     * 8-byte aligned, and an atomic cannot be INLINE (it has no payload to inline). All EINVAL.
     */
    private static void checkAtomic(SendWr wr, long total, boolean inline, int index) {
        if (total != 8) {
            throw bad(index, Errno.EINVAL, "an atomic needs exactly 8 bytes of local buffer for the original value,"
                    + " the sg_list holds " + total);
        }
        if ((wr.remoteAddr() & 7) != 0) {
            throw bad(index, Errno.EINVAL, String.format("remote_addr 0x%x of an atomic is not 8-byte aligned",
                    wr.remoteAddr()));
        }
        if (inline) {
            throw bad(index, Errno.EINVAL, "an atomic cannot be INLINE");
        }
    }

    /**
     * The operations a transport can carry (kernel rxe's wr_opcode_mask; validate_send_wr answers EINVAL "bad wr
     * opcode for qp type"): UC has no RDMA READ, atomics or SEND with invalidate; UD sends only SEND and
     * SEND_WITH_IMM.
     */
    private static void checkOpcodeForType(SoftQp qp, WrOpcode op, int index) {
        boolean ok = switch (qp.type) {
            case RC -> true;
            case UC -> op != WrOpcode.RDMA_READ && op != WrOpcode.ATOMIC_CMP_AND_SWP
                    && op != WrOpcode.ATOMIC_FETCH_AND_ADD && op != WrOpcode.SEND_WITH_INV;
            case UD -> op != WrOpcode.RDMA_READ && op != WrOpcode.ATOMIC_CMP_AND_SWP
                    && op != WrOpcode.ATOMIC_FETCH_AND_ADD && op != WrOpcode.SEND_WITH_INV
                    && op != WrOpcode.RDMA_WRITE && op != WrOpcode.RDMA_WRITE_WITH_IMM;
        };
        if (!ok) {
            throw bad(index, Errno.EINVAL, "opcode " + op + " is not valid on a " + qp.type + " QP");
        }
    }

    /**
     * A UD request's address handle must be an open handle of this context. One of another PD of the context is
     * accepted here and fails when the request is processed (LOC_QP_OP_ERR), as rxe's rxe_get_av does.
     */
    private static SoftAh checkAh(SoftQp qp, AddressHandle ah, int index) {
        if (ah == null) {
            throw bad(index, Errno.EINVAL, "a UD send needs an address handle (wr.ud.ah)");
        }
        if (!(ah instanceof SoftAh sa) || sa.pd.context != qp.context) {
            throw bad(index, Errno.EINVAL, "the address handle belongs to another device context");
        }
        if (sa.closed) {
            throw bad(index, Errno.EINVAL, "the address handle is destroyed");
        }
        return sa;
    }

    /**
     * Copies inline data now, so the caller may reuse its buffer at once. Java code names memory through
     * registered segments, so an inline SGE's lkey must still name the region holding it (libibverbs ignores it).
     */
    private static void copyInline(SoftQp qp, SendWqe w, Sge[] sg, int n, int index) {
        long off = 0;
        for (int i = 0; i < n; i++) {
            long len = sg[i].length() & 0xFFFFFFFFL;
            if (len == 0) {
                continue;
            }
            SoftMr mr = qp.context.mrs.lookup(sg[i].lkey());
            if (mr == null || !mr.covers(sg[i].addr(), len)) {
                throw bad(index, Errno.EINVAL, "inline sge " + i + " must lie in the registered region its lkey 0x"
                        + Integer.toHexString(sg[i].lkey()) + " names");
            }
            MemorySegment.copy(mr.segment, sg[i].addr() - mr.address, w.inlineData, off, len);
            off += len;
        }
    }

    private static void checkLocalSge(SoftQp qp, Sge s, int index, int i) {
        checkLocalSge(qp.context, qp.pd, s, index, i);
    }

    private static void checkLocalSge(SoftContext context, SoftPd pd, Sge s, int index, int i) {
        SoftMr mr = context.mrs.lookup(s.lkey());
        if (mr == null) {
            throw bad(index, Errno.EINVAL, "sge " + i + ": lkey 0x" + Integer.toHexString(s.lkey())
                    + " is not a registered memory region");
        }
        if (mr.pd != pd) {
            throw bad(index, Errno.EINVAL, "sge " + i + ": lkey 0x" + Integer.toHexString(s.lkey())
                    + " belongs to another protection domain");
        }
        if (!mr.covers(s.addr(), s.length() & 0xFFFFFFFFL)) {
            throw bad(index, Errno.EINVAL, String.format("sge %d: [0x%x, +%d) is outside its memory region %s", i,
                    s.addr(), s.length() & 0xFFFFFFFFL, mr));
        }
    }

    static void postRecv(SoftQp qp, RecvWr first) {
        int index = 0;
        if (qp.srq != null && first != null) {
            throw bad(0, Errno.EINVAL, "QP " + qp.qpn + " takes its receives from a shared receive queue; post them "
                    + "to the SRQ");
        }
        for (RecvWr wr = first; wr != null; wr = wr.next(), index++) {
            if (qp.state == QpState.RESET) {
                throw bad(index, Errno.EINVAL, "post_recv on QP " + qp.qpn + " in state RESET");
            }
            int n = wr.numSge();
            Sge[] sg = wr.sgList();
            checkList(sg, n, qp.cap.maxRecvSge(), "max_recv_sge", index);
            long total = 0;
            for (int i = 0; i < n; i++) {
                checkLocalSge(qp, sg[i], index, i);
                total += sg[i].length() & 0xFFFFFFFFL;
            }
            long p = qp.rqProducer;
            if (p - qp.rqConsumer >= qp.cap.maxRecvWr()) {
                throw bad(index, Errno.ENOMEM, "receive queue of QP " + qp.qpn + " is full (" + qp.cap.maxRecvWr()
                        + " outstanding)");
            }
            RecvWqe w = qp.rqAt(p);
            w.wrId = wr.wrId();
            w.numSge = n;
            w.capacity = total;
            copyList(sg, n, w.sgeAddr, w.sgeLength, w.sgeLkey);
            qp.rqProducer = p + 1;
        }
    }

    /** ibv_post_srq_recv; the caller holds the SRQ's post lock. */
    static void postSrqRecv(SoftSrq srq, RecvWr first) {
        int index = 0;
        for (RecvWr wr = first; wr != null; wr = wr.next(), index++) {
            if (srq.closed) {
                throw bad(index, Errno.EINVAL, "post_srq_recv on a destroyed SRQ");
            }
            int n = wr.numSge();
            Sge[] sg = wr.sgList();
            if (n < 0 || n > srq.maxSge) {
                throw bad(index, Errno.EINVAL, "num_sge " + n + " exceeds the SRQ's max_sge " + srq.maxSge);
            }
            checkList(sg, n, srq.maxSge, "max_sge", index);
            long total = 0;
            for (int i = 0; i < n; i++) {
                checkLocalSge(srq.context, srq.pd, sg[i], index, i);
                total += sg[i].length() & 0xFFFFFFFFL;
            }
            long p = srq.producer;
            if (p - srq.consumer >= srq.maxWr) {
                throw bad(index, Errno.ENOMEM, "shared receive queue is full (" + srq.maxWr + " outstanding)");
            }
            RecvWqe w = srq.at(p);
            w.wrId = wr.wrId();
            w.numSge = n;
            w.capacity = total;
            copyList(sg, n, w.sgeAddr, w.sgeLength, w.sgeLkey);
            srq.producer = p + 1; // publish (volatile write)
        }
    }

    private static void checkList(Sge[] sg, int n, int max, String limitName, int index) {
        if (n < 0 || n > max) {
            throw bad(index, Errno.EINVAL, "num_sge " + n + " exceeds the QP's " + limitName + " " + max);
        }
        if (n > 0 && (sg == null || sg.length < n)) {
            throw bad(index, Errno.EINVAL, "sg_list holds fewer than num_sge (" + n + ") entries");
        }
    }

    private static void copyList(Sge[] sg, int n, long[] addr, int[] length, int[] lkey) {
        for (int i = 0; i < n; i++) {
            addr[i] = sg[i].addr();
            length[i] = sg[i].length();
            lkey[i] = sg[i].lkey();
        }
    }

    /**
     * Posts a BIND_MW or LOCAL_INV work request: checked here as far as rxe checks at post time; everything else
     * is checked when the requester executes it ({@link LocalOps}), failing with an error completion.
     */
    private static void postLocal(SoftQp qp, SendWr wr, int index) {
        WrOpcode op = wr.opcode();
        SoftMw mw = null;
        SoftMr mr = null;
        if (op == WrOpcode.LOCAL_INV) {
            if (qp.type != QpType.RC) {
                throw bad(index, Errno.EINVAL, "LOCAL_INV is not valid on a " + qp.type + " QP (RC only)");
            }
        } else {
            if (qp.type == QpType.UD) {
                throw bad(index, Errno.EINVAL, "BIND_MW is not valid on a UD QP (RC and UC only)");
            }
            if (wr.numSge() != 0) {
                throw bad(index, Errno.EINVAL, "a BIND_MW work request carries no scatter/gather entries");
            }
            mw = window(qp, wr.mw(), index);
            MwBindInfo info = wr.bindInfo();
            mr = bindRegion(qp, info, index);
        }
        SendWqe w = nextSlot(qp, index);
        w.wrId = wr.wrId();
        w.opcode = op;
        w.flags = wr.sendFlags();
        w.signaled = (w.flags & SendFlags.SIGNALED) != 0;
        w.inline = false;
        w.numSge = 0;
        w.length = 0;
        w.immData = 0;
        w.invalidateRkey = wr.invalidateRkey();
        w.mw = mw;
        w.bindMr = mr;
        if (mw != null) {
            MwBindInfo info = wr.bindInfo();
            w.bindAddr = info.addr();
            w.bindLength = info.length();
            w.bindAccess = info.mwAccessFlags();
            w.bindRkey = wr.bindRkey();
            mw.userKey((mw.rkey() & ~0xFF) | (wr.bindRkey() & 0xFF)); // the key the window has once this runs
        }
        w.resetProgress();
        qp.sqProducer = qp.sqProducer + 1; // publish (volatile write)
    }

    /**
     * ibv_bind_mw: posts a bind of a type 1 window and returns its new rkey (the old one with its low byte
     * incremented, ibv_inc_rkey). Checked as libibverbs and rxe's provider do before posting: a type 2 window, or a
     * range without an MR, is EINVAL; an MR of another PD than the window's is EPERM. The rest (MW_BIND right, range,
     * rights) is checked when the bind runs and fails with an MW_BIND_ERR completion.
     */
    static int postBind(SoftQp qp, MemoryWindow window, MwBind bind) {
        QpState s = qp.state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            throw new VerbsException(Errno.EINVAL, "bind_mw on QP " + qp.qpn + " in state " + s
                    + " (posting sends needs RTS)");
        }
        if (bind == null) {
            throw new VerbsException(Errno.EINVAL, "bind_mw: the MwBind is missing");
        }
        SoftMw mw = window(qp, window, -1);
        if (mw.type != MwType.TYPE_1) {
            throw new VerbsException(Errno.EINVAL, "bind_mw binds type 1 windows; a type 2 window is bound with a"
                    + " BIND_MW work request");
        }
        if (qp.type == QpType.UD) {
            throw new VerbsException(Errno.EINVAL, "bind_mw is not valid on a UD QP (RC and UC only)");
        }
        MwBindInfo info = bind.bindInfo();
        SoftMr mr = bindRegion(qp, info, -1);
        if (mr != null && mr.pd != mw.pd) {
            throw new VerbsException(Errno.EPERM, "bind_mw: memory region " + mr
                    + " belongs to another protection domain than the window");
        }
        int rkey = SendWr.incRkey(mw.rkey());
        SendWqe w = nextSlot(qp, -1);
        w.wrId = bind.wrId();
        w.opcode = WrOpcode.BIND_MW;
        w.flags = bind.sendFlags();
        w.signaled = (w.flags & SendFlags.SIGNALED) != 0;
        w.inline = false;
        w.numSge = 0;
        w.length = 0;
        w.immData = 0;
        w.invalidateRkey = 0;
        w.mw = mw;
        w.bindMr = mr;
        w.bindAddr = info.addr();
        w.bindLength = info.length();
        w.bindAccess = info.mwAccessFlags();
        w.bindRkey = rkey;
        w.resetProgress();
        mw.userKey(rkey); // as libibverbs: ibv_mw.rkey is the new key from now on
        qp.sqProducer = qp.sqProducer + 1; // publish (volatile write)
        return rkey;
    }

    private static SoftMw window(SoftQp qp, MemoryWindow window, int index) {
        if (!(window instanceof SoftMw mw) || mw.pd.context != qp.context) {
            throw error(index, Errno.EINVAL, "the memory window is " + (window == null ? "missing"
                    : "not a window of this device context"));
        }
        if (mw.closed) {
            throw error(index, Errno.EINVAL, "the memory window is deallocated");
        }
        return mw;
    }

    /** The bind's region; null for an unbind (no MR, zero range). An MR-less bind with a range is EINVAL. */
    private static SoftMr bindRegion(SoftQp qp, MwBindInfo info, int index) {
        MemoryRegion region = info.mr();
        if (region == null) {
            if (info.addr() != 0 || info.length() != 0) {
                throw error(index, Errno.EINVAL, "a bind with a range needs a memory region (" + info + ")");
            }
            return null;
        }
        if (!(region instanceof SoftMr mr) || mr.pd.context != qp.context) {
            throw error(index, Errno.EINVAL, "the bind's memory region is not a region of this device context");
        }
        return mr;
    }

    private static SendWqe nextSlot(SoftQp qp, int index) {
        long p = qp.sqProducer;
        if (p - qp.sqConsumer >= qp.cap.maxSendWr()) {
            throw error(index, Errno.ENOMEM, "send queue of QP " + qp.qpn + " is full (" + qp.cap.maxSendWr()
                    + " outstanding)");
        }
        return qp.sqAt(p);
    }

    private static VerbsException error(int index, Errno errno, String message) {
        return index < 0 ? new VerbsException(errno, message) : bad(index, errno, message);
    }

    private static VerbsException bad(int index, Errno errno, String message) {
        return new VerbsException(errno, index, "work request " + index + ": " + message);
    }
}
