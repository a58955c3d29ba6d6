package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.Grh;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Psn;
import io.jrdma.wire.Reth;
import java.lang.foreign.MemorySegment;

/**
 * The responder role of a UC or UD QP (IBA 9.8, kernel rxe_resp.c). Nothing is ever acknowledged; a request that
 * cannot be taken is dropped silently and counted (IBA class D/E errors), and only local faults of the receive WQE
 * itself (it cannot hold the message, or names memory it may not write) complete it in error and fail the QP.
 *
 * <ul>
 * <li><b>UC</b>: PSNs are checked (IBA 9.7.5.2 applied to UC, rxe check_psn): when a packet goes missing the message
 *     in progress is dropped, its receive WQE is kept for the next message, and the responder resynchronises on the
 *     next FIRST or ONLY packet. Messages whose opcodes come out of sequence, that the QP may not receive (RDMA
 *     WRITE without REMOTE_WRITE), whose packet lengths do not match the path MTU or whose rkey does not allow the
 *     write are dropped the same way; so is a message that finds no receive WQE.</li>
 * <li><b>UD</b>: each packet is a whole message. The receive buffer gets the 40-byte GRH area first (for RoCEv2
 *     over IPv4: 20 zero bytes and the packet's IPv4 header, as rxe copies it), then the payload; the completion has
 *     byte_len 40 + payload, the GRH flag and the sender's QPN. A packet that finds no receive WQE, or one too small
 *     for 40 + payload, is dropped (current rxe, after "Fix responder length checking for UD request packets"); on
 *     an SRQ the too-small WQE was taken out of the SRQ and completes with REM_INV_REQ_ERR (rxe RESPST_ERR_LENGTH,
 *     class E).</li>
 * </ul>
 */
final class UnreliableResponder {

    /**
     * The IPv4 TTL written into the GRH. The socket API hides the received TTL and TOS (and the ICRC masks them);
     * jrdma sends with the Linux default TTL 64 and TOS 0, as kernel rxe does on an ordinary route.
     */
    static final int GRH_TTL = 64;

    private static final int NONE = 0;
    private static final int IN_SEND = 1;
    private static final int IN_WRITE = 2;

    private final SoftQp qp;
    private final Engine engine;
    private final MemorySegment grh = MemorySegment.ofArray(new byte[Grh.LENGTH]);

    private int expectedPsn;
    private boolean dropping; // rxe drop_msg: discard packets until the next FIRST or ONLY
    private int inMessage = NONE;
    private long recvOffset;
    private SoftMr writeMr;
    private long writeVa;
    private long writeRemaining;
    private long writeLength;

    UnreliableResponder(SoftQp qp) {
        this.qp = qp;
        this.engine = qp.engine;
    }

    void resetPsn(int psn) {
        expectedPsn = psn;
    }

    int expectedPsn() {
        return expectedPsn;
    }

    void reset() {
        dropping = false;
        abandon();
    }

    /**
     * A UC or UD request packet for this QP, already checked for length, opcode, transport, state, P_Key, Q_Key
     * (UD), source (UC) and ICRC.
     *
     * @param srcIp    the sender's IPv4 address
     * @param ipId     the IPv4 ID under which the packet's ICRC verified
     * @param ibLength the IB packet's length, BTH to ICRC
     */
    void onRequest(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength, int srcIp, int ipId,
            int ibLength) {
        if (qp.type == QpType.UD) {
            onDatagram(op, pkt, payloadOffset, payloadLength, srcIp, ipId, ibLength);
        } else {
            onUcPacket(op, pkt, payloadOffset, payloadLength);
        }
    }

    // ------------------------------------------------------------------------------------------------- UD

    private void onDatagram(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength, int srcIp, int ipId,
            int ibLength) {
        if (!qp.recv.acquire()) {
            engine.counters.increment(Counter.OUT_OF_BUFFER); // no RNR for UD: the datagram is lost
            return;
        }
        RecvWqe w = qp.recv.current();
        if (Grh.LENGTH + (long) payloadLength > w.capacity) {
            engine.counters.increment(Counter.UD_LEN_DROPPED);
            if (qp.srq != null) {
                // rxe RESPST_ERR_LENGTH on an SRQ (UC/UD class E): the WQE taken out of the SRQ completes with
                // REM_INV_REQ_ERR, the QP going on; kept in this QP's hand it would be lost to the SRQ's other QPs
                long wrId = w.wrId;
                qp.recv.retire();
                pushed(qp.recvCq.push(wrId, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, qp.qpn, 0, false));
            }
            return;
        }
        Grh.writeIpv4(grh, 0, 0, Grh.IPV4_HEADER + Grh.UDP_HEADER + ibLength, ipId, Grh.IPV4_DF, GRH_TTL, srcIp,
                engine.link.localIp());
        if (!scatter(w, 0, grh, 0, Grh.LENGTH)
                || (payloadLength > 0 && !scatter(w, Grh.LENGTH, pkt, payloadOffset, payloadLength))) {
            recvFailed(w, WcStatus.LOC_PROT_ERR, 0);
            return;
        }
        boolean imm = op.hasImm();
        long wrId = w.wrId;
        qp.recv.retire(); // the RQ slot is free before the CQE is visible, as in rxe
        if (pushed(qp.recvCq.push(wrId, WcStatus.SUCCESS, WcOpcode.RECV, Grh.LENGTH + payloadLength,
                imm ? ImmDt.imm(pkt, op.immOffset()) : 0, WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), qp.qpn,
                Deth.srcQp(pkt, op.dethOffset()), Bth.solicited(pkt, 0)))) {
            engine.counters.increment(Counter.RDMA_RECVS);
        }
    }

    // ------------------------------------------------------------------------------------------------- UC

    private void onUcPacket(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength) {
        int psn = Bth.psn(pkt, 0);
        if (psn != expectedPsn && !dropping) {
            engine.counters.increment(Counter.OUT_OF_SEQ_REQUEST);
            if (inMessage != NONE || !op.isStart()) {
                drop(); // the message in progress, or the one whose start went missing, is incomplete
            }
        }
        expectedPsn = Psn.next(psn);
        if (dropping) {
            if (!op.isStart()) {
                return;
            }
            dropping = false; // resynchronise on a FIRST or ONLY packet
        }
        if (inMessage == NONE ? !op.isStart()
                : op.isStart() || (inMessage == IN_SEND) != op.isSend()) {
            // a MIDDLE/LAST with no FIRST before it, a FIRST/ONLY before the LAST, or another operation inside a
            // message: the message in progress is dropped; a start packet begins the next one
            drop();
            if (!op.isStart()) {
                return;
            }
            dropping = false;
        }
        if (op.isWrite() && (qp.accessFlags & Access.REMOTE_WRITE) == 0) {
            drop();
            return;
        }
        if (op.startsReceiveWqe() && !qp.recv.acquire()) {
            engine.counters.increment(Counter.OUT_OF_BUFFER);
            abandon();
            dropping = true;
            return;
        }
        if (!lengthOk(op, payloadLength)) {
            drop();
            return;
        }
        if (op.isSend()) {
            onSend(op, pkt, payloadOffset, payloadLength);
        } else {
            onWrite(op, pkt, payloadOffset, payloadLength);
        }
    }

    /** rxe check_length for UC: FIRST and MIDDLE carry exactly one MTU, LAST 1 to MTU bytes, ONLY up to MTU. */
    private boolean lengthOk(Opcode op, int payloadLength) {
        int mtu = qp.mtuBytes;
        if (op.isOnly()) {
            return payloadLength <= mtu;
        }
        if (op.isLast()) {
            return payloadLength > 0 && payloadLength <= mtu;
        }
        return payloadLength == mtu;
    }

    private void onSend(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength) {
        RecvWqe w = qp.recv.current();
        if (op.isStart()) {
            recvOffset = 0;
            inMessage = IN_SEND;
        }
        if (recvOffset + payloadLength > w.capacity) {
            recvFailed(w, WcStatus.LOC_LEN_ERR, recvOffset);
            return;
        }
        if (payloadLength > 0 && !scatter(w, recvOffset, pkt, payloadOffset, payloadLength)) {
            recvFailed(w, WcStatus.LOC_PROT_ERR, recvOffset);
            return;
        }
        recvOffset += payloadLength;
        if (op.isEnd()) {
            boolean imm = op.hasImm();
            engine.counters.increment(Counter.RDMA_RECVS);
            long wrId = w.wrId;
            qp.recv.retire();
            inMessage = NONE;
            pushed(qp.recvCq.push(wrId, WcStatus.SUCCESS, WcOpcode.RECV, (int) recvOffset,
                    imm ? ImmDt.imm(pkt, op.immOffset()) : 0, imm ? WcFlags.WITH_IMM : 0, qp.qpn, qp.destQpn,
                    Bth.solicited(pkt, 0)));
        }
    }

    private void onWrite(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength) {
        if (op.isStart()) {
            long va = Reth.va(pkt, op.rethOffset());
            int rkey = Reth.rkey(pkt, op.rethOffset());
            long len = Reth.dmaLength(pkt, op.rethOffset()) & 0xFFFFFFFFL;
            SoftMr mr = len == 0 ? null : RemoteKeys.resolve(qp, rkey, va, len, Access.REMOTE_WRITE);
            if (len != 0 && mr == null) {
                drop(); // rkey violation on UC: class E, silently dropped (rxe without SRQ)
                return;
            }
            writeMr = mr;
            writeVa = va;
            writeRemaining = len;
            writeLength = len;
            inMessage = IN_WRITE;
        }
        boolean fits = op.isEnd() ? payloadLength == writeRemaining : payloadLength < writeRemaining;
        if (!fits) {
            drop();
            return;
        }
        if (payloadLength > 0) {
            if (!writeMr.valid()) {
                drop(); // deregistered while the message was arriving
                return;
            }
            MemorySegment.copy(pkt, payloadOffset, writeMr.segment, writeVa - writeMr.address, payloadLength);
        }
        writeVa += payloadLength;
        writeRemaining -= payloadLength;
        if (op.isEnd()) {
            inMessage = NONE;
            writeMr = null;
            if (op.hasImm()) {
                long wrId = qp.recv.current().wrId;
                engine.counters.increment(Counter.RDMA_RECVS);
                qp.recv.retire();
                pushed(qp.recvCq.push(wrId, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) writeLength,
                        ImmDt.imm(pkt, op.immOffset()), WcFlags.WITH_IMM, qp.qpn, qp.destQpn,
                        Bth.solicited(pkt, 0)));
            }
        }
    }

    /**
     * A receive completion that found the CQ full (rxe RESPST_ERR_CQ_OVERFLOW): nothing acknowledges UC or UD, so
     * the QP moves to ERR (the CQ raised CQ_ERR) and no later message consumes a receive WQE.
     */
    private boolean pushed(boolean ok) {
        if (!ok) {
            abandon();
            qp.enterError();
        }
        return ok;
    }

    /** Drops the message this packet belongs to (or the one in progress) and every packet up to the next start. */
    private void drop() {
        engine.counters.increment(Counter.UC_MSG_DROPPED);
        abandon();
        dropping = true;
    }

    /**
     * Forgets the message in progress. Its receive WQE was not consumed and is used again from its first byte by the
     * next message (rxe "reset the recv wr to its original state").
     */
    private void abandon() {
        inMessage = NONE;
        recvOffset = 0;
        writeMr = null;
    }

    private boolean scatter(RecvWqe w, long msgOffset, MemorySegment src, long srcOffset, int count) {
        return Sgl.scatter(qp.context.mrs, qp.pd, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, msgOffset, src,
                srcOffset, count);
    }

    /**
     * The receive WQE cannot take the message (too small, or its memory is not writable): it completes with
     * {@code status} and the QP goes to ERR, which flushes the rest (IBA class A/C local errors; the RC responder
     * does the same).
     */
    private void recvFailed(RecvWqe w, WcStatus status, long byteLen) {
        long wrId = w.wrId;
        qp.recv.retire();
        qp.recvCq.push(wrId, status, WcOpcode.RECV, (int) byteLen, 0, 0, qp.qpn, qp.destQpn, false);
        abandon();
        qp.enterError();
    }
}
