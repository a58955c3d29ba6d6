package io.jrdma.soft;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpState;
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
            switch (op) {
                case SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ -> { }
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
            long p = qp.sqProducer;
            if (p - qp.sqConsumer >= qp.cap.maxSendWr()) {
                throw bad(index, Errno.ENOMEM, "send queue of QP " + qp.qpn + " is full (" + qp.cap.maxSendWr()
                        + " outstanding)");
            }
            SendWqe w = qp.sqAt(p);
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
            w.started = false;
            w.readPacketsDone = 0;
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

    private static VerbsException bad(int index, Errno errno, String message) {
        return new VerbsException(errno, index, "work request " + index + ": " + message);
    }
}
