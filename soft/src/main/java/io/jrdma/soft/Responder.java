package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.AtomicEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.Grh;
import io.jrdma.wire.Ieth;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Psn;
import io.jrdma.wire.Reth;
import java.lang.foreign.MemorySegment;

/**
 * The responder role of a QP of any transport (IBA 9.7.5.2 and 9.8, kernel rxe_resp.c): checks each request's PSN,
 * opcode sequence, operation, receive WQE, length and rkey in that order ({@link ResponderChecks}), places SEND and
 * WRITE data ({@link Placement}), queues READ and atomic responses on the ring of read resources
 * ({@link ReadResponses}) and acknowledges ({@link AckQueue}). What the transport changes is data
 * ({@link TransportRules}):
 *
 * <ul>
 * <li><b>RC</b>: a later PSN is NAKed once per gap, an earlier one is a duplicate (re-ACKed, or a READ or atomic
 *     answered again from its resource); a message without a receive WQE is RNR NAKed; any other error class is
 *     NAKed and moves the QP to ERR.</li>
 * <li><b>UC</b>: nothing is acknowledged. A gap drops the message in progress and the responder resyncs on the next
 *     FIRST or ONLY (rxe check_psn); every error class drops the message silently and counts it, its receive WQE
 *     kept for the next message; so does a message without a receive WQE.</li>
 * <li><b>UD</b>: each packet is a whole message, no PSN check; the receive buffer gets the GRH area first; a
 *     datagram without a receive WQE, or too big for it, is dropped and counted.</li>
 * </ul>
 *
 * On every transport, only faults of the receive WQE itself (it cannot hold the message, or names memory it may
 * not write) complete it in error and fail the QP.
 */
final class Responder {

    private static final int READ_BUDGET = 32;
    private static final int NONE = ResponderChecks.NONE;
    private static final int IN_SEND = ResponderChecks.IN_SEND;
    private static final int IN_WRITE = ResponderChecks.IN_WRITE;

    private final SoftQp qp;
    private final TransportRules rules;
    private final Counters counters;
    private final AckQueue acks;
    private final ReadResponses reads;
    private final Placement placement;

    private int expectedPsn;
    private int msn;
    private boolean nakSent;  // RC: a sequence or RNR NAK speaks for the packets of this gap
    private boolean dropping; // UC (rxe drop_msg): discard packets until the next FIRST or ONLY
    private int inMessage = NONE;

    Responder(SoftQp qp) {
        this.qp = qp;
        this.rules = qp.rules;
        this.counters = qp.context.counters;
        this.acks = new AckQueue(qp);
        this.reads = new ReadResponses(qp, this);
        this.placement = new Placement(qp);
    }

    void resetPsn(int psn) {
        expectedPsn = psn;
    }

    int expectedPsn() {
        return expectedPsn;
    }

    void reset() {
        msn = 0;
        nakSent = false;
        dropping = false;
        abandon();
        acks.reset();
        reads.reset();
    }

    /** Sizes the read resource ring to max_dest_rd_atomic (control path, engine lock held). */
    void resizeResources(int n) {
        reads.resize(n);
    }

    /**
     * A request packet for this QP, already checked for length, opcode, transport, state, P_Key, Q_Key (UD), source
     * (RC, UC) and ICRC.
     *
     * @param srcIp    the sender's IPv4 address
     * @param ipId     the IPv4 ID under which the packet's ICRC verified
     * @param ibLength the IB packet's length, BTH to ICRC
     */
    void onRequest(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength, int srcIp, int ipId,
            int ibLength) {
        if (rules.datagramGrh()) {
            onDatagram(op, pkt, payloadOffset, payloadLength, srcIp, ipId, ibLength);
            return;
        }
        int psn = Bth.psn(pkt, 0);
        if (!inSequence(op, pkt, psn)) {
            return;
        }
        RequestError error = ResponderChecks.opcodeSequence(inMessage, op);
        if (error != null) {
            if (rules.naksErrors() || !op.isStart()) {
                reject(error, op, psn);
                return;
            }
            drop(); // UC: the message in progress is dropped; this FIRST or ONLY begins the next one
            dropping = false;
        }
        error = ResponderChecks.operation(qp, op);
        if (error != null) {
            reject(error, op, psn);
            return;
        }
        if (op.startsReceiveWqe() && !qp.recv.acquire()) {
            noReceiveWqe(psn);
            return;
        }
        nakSent = false;
        if (op.isSend()) {
            onSend(op, pkt, psn, payloadOffset, payloadLength);
        } else if (op.isWrite()) {
            onWrite(op, pkt, psn, payloadOffset, payloadLength);
        } else if (op.isReadRequest()) {
            acceptRead(pkt, op, psn);
        } else if (op.isAtomic()) {
            acceptAtomic(op, pkt, psn);
        } else {
            reject(RequestError.UNSUPPORTED, op, psn);
        }
    }

    /** The PSN check (rxe check_psn); false when the packet goes no further. */
    private boolean inSequence(Opcode op, MemorySegment pkt, int psn) {
        if (rules.sequenceError() == TransportRules.SequenceError.NAK_ONCE) {
            int d = Psn.diff(psn, expectedPsn);
            if (d > 0) {
                counters.increment(Counter.OUT_OF_SEQ_REQUEST);
                if (!nakSent) {
                    nakSent = true;
                    acks.queue(expectedPsn, AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR));
                }
                return false;
            }
            if (d < 0) {
                counters.increment(Counter.DUPLICATE_REQUEST);
                duplicate(op, pkt, psn);
                return false;
            }
            return true;
        }
        if (rules.sequenceError() == TransportRules.SequenceError.NONE) {
            return true;
        }
        // DROP_AND_RESYNC
        if (psn != expectedPsn && !dropping) {
            counters.increment(Counter.OUT_OF_SEQ_REQUEST);
            if (inMessage != NONE || !op.isStart()) {
                drop(); // the message in progress, or the one whose start went missing, is incomplete
            }
        }
        expectedPsn = Psn.next(psn);
        if (dropping) {
            if (!op.isStart()) {
                return false;
            }
            dropping = false; // resynchronise on a FIRST or ONLY packet
        }
        return true;
    }

    /** RC: a request with a PSN already executed (rxe duplicate_request). */
    private void duplicate(Opcode op, MemorySegment pkt, int psn) {
        if (op.isReadRequest()) {
            if (qp.maxDestRdAtomic == 0) {
                return;
            }
            long va = Reth.va(pkt, op.rethOffset());
            int rkey = Reth.rkey(pkt, op.rethOffset());
            long len = Reth.dmaLength(pkt, op.rethOffset()) & 0xFFFFFFFFL;
            if (len != 0 && RemoteKeys.resolve(qp, rkey, va, len, Access.REMOTE_READ) == null) {
                return;
            }
            reads.replayRead(psn, rkey, va, len);
        } else if (op.isAtomic()) {
            reads.replayAtomic(psn, msn);
        } else if (!acks.nakPending()) {
            // re-ACK; a pending NAK stays: it acknowledges everything before it and must reach the requester
            acks.queue(Psn.add(expectedPsn, -1), AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        }
    }

    /** A message needs a receive WQE and none is posted: RC NAKs RNR, UC and UD drop it. */
    private void noReceiveWqe(int psn) {
        if (rules.naksErrors()) {
            counters.increment(Counter.SEND_RNR_ERR);
            nakSent = true; // later packets of this burst are out of sequence; the RNR NAK speaks for them
            acks.queue(psn, AethSyndrome.rnrNak(qp.minRnrTimer));
        } else {
            counters.increment(Counter.OUT_OF_BUFFER);
            abandon();
            dropping = true;
        }
    }

    private void onSend(Opcode op, MemorySegment pkt, int psn, int payloadOffset, int payloadLength) {
        RequestError error = ResponderChecks.length(rules, qp.mtuBytes, op, payloadLength);
        if (error != null) {
            reject(error, op, psn);
            return;
        }
        RecvWqe w = qp.recv.current();
        if (op.isStart()) {
            placement.startSend();
            inMessage = IN_SEND;
        }
        error = placement.send(w, pkt, payloadOffset, payloadLength);
        if (error != null) {
            reject(error, op, psn);
            return;
        }
        if (op.isEnd()) {
            CompletionWriter c = recvCompletion(WcOpcode.RECV, placement.received()).solicited(Bth.solicited(pkt, 0));
            if (op.hasImm()) {
                c.immediate(ImmDt.imm(pkt, op.immOffset()));
            }
            if (op.hasIeth()) {
                int rkey = Ieth.rkey(pkt, op.iethOffset());
                if (!LocalOps.invalidate(qp, rkey)) {
                    invalidateFailed(pkt, psn);
                    return;
                }
                c.invalidated(rkey);
            }
            if (!completeRecv(c)) {
                return;
            }
        }
        advance(op, pkt, psn);
    }

    private void onWrite(Opcode op, MemorySegment pkt, int psn, int payloadOffset, int payloadLength) {
        RequestError error;
        if (op.isStart()) {
            error = placement.startWrite(op, pkt);
            if (error != null) {
                reject(error, op, psn);
                return;
            }
            inMessage = IN_WRITE;
        }
        error = ResponderChecks.length(rules, qp.mtuBytes, op, payloadLength);
        if (error == null) {
            error = placement.write(op, pkt, payloadOffset, payloadLength);
        }
        if (error != null) {
            reject(error, op, psn);
            return;
        }
        if (op.isEnd() && op.hasImm() && !completeRecv(recvCompletion(WcOpcode.RECV_RDMA_WITH_IMM,
                placement.writeLength()).immediate(ImmDt.imm(pkt, op.immOffset())).solicited(Bth.solicited(pkt, 0)))) {
            return;
        }
        advance(op, pkt, psn);
    }

    /**
     * A SEND with Invalidate whose rkey may not be invalidated (not a bound type 2 window of this QP's PD): rxe's
     * class J handling. The data is placed, the receive WQE completes with REM_INV_REQ_ERR, the request is
     * acknowledged as usual (the requester's SEND succeeds), and this QP moves to ERR.
     */
    private void invalidateFailed(MemorySegment pkt, int psn) {
        CompletionWriter c = qp.recvCompletions.of(qp.recv.current().wrId, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV)
                .srcQp(qp.destQpn);
        qp.recv.retire();
        boolean pushed = c.push();
        inMessage = NONE;
        if (pushed && Bth.ackReq(pkt, 0)) {
            acks.sendNow(psn, AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED), msn);
        }
        acks.cancel();
        reads.discard();
        qp.enterError();
    }

    /** A new READ request (rxe check_resource, check_rkey, then a resource of the ring). */
    private void acceptRead(MemorySegment pkt, Opcode op, int psn) {
        if (qp.maxDestRdAtomic == 0) {
            reject(RequestError.NO_RESOURCES, op, psn); // rxe check_resource: no responder resources at all
            return;
        }
        long va = Reth.va(pkt, op.rethOffset());
        int rkey = Reth.rkey(pkt, op.rethOffset());
        long len = Reth.dmaLength(pkt, op.rethOffset()) & 0xFFFFFFFFL;
        if (len != 0 && RemoteKeys.resolve(qp, rkey, va, len, Access.REMOTE_READ) == null) {
            reject(RequestError.RKEY, op, psn);
            return;
        }
        int slot = reads.victim(expectedPsn);
        if (slot < 0) {
            reject(RequestError.NO_RESOURCES, op, psn); // more reads than max_dest_rd_atomic
            return;
        }
        int packets = len == 0 ? 1 : (int) ((len + qp.mtuBytes - 1) / qp.mtuBytes);
        reads.claim(slot).startRead(psn, packets, va, len, rkey);
        acks.coveredByResponse(); // the read's responses acknowledge everything before it (IBA 9.7.5.1.2)
        nakSent = false;
        msn = (msn + 1) & 0xFFFFFF;
        expectedPsn = Psn.add(psn, packets);
    }

    /**
     * A new CmpSwap or FetchAdd (rxe check_op_valid, check_resource, check_rkey, atomic_reply, in that order):
     * executes it once on the target's memory, keeps the original value in a resource of the ring and queues the
     * ATOMIC ACKNOWLEDGE behind any read responses still owed.
     */
    private void acceptAtomic(Opcode op, MemorySegment pkt, int psn) {
        if ((qp.accessFlags & Access.REMOTE_ATOMIC) == 0) {
            reject(RequestError.NOT_ENABLED, op, psn); // the QP does not take atomics: rxe's unsupported opcode
            return;
        }
        int slot = qp.maxDestRdAtomic == 0 ? -1 : reads.victim(expectedPsn);
        if (slot < 0) {
            reject(RequestError.NO_RESOURCES, op, psn); // more reads and atomics than max_dest_rd_atomic
            return;
        }
        int at = op.atomicEthOffset();
        long va = AtomicEth.va(pkt, at);
        SoftMr mr = RemoteKeys.resolve(qp, AtomicEth.rkey(pkt, at), va, 8, Access.REMOTE_ATOMIC);
        if (mr == null) {
            reject(RequestError.RKEY, op, psn);
            return;
        }
        if (!AtomicOps.aligned(va)) {
            reject(RequestError.MISALIGNED, op, psn); // rxe: misaligned atomic, class C
            return;
        }
        long offset = va - mr.address;
        long orig = op == Opcode.RC_COMPARE_SWAP
                ? AtomicOps.compareAndSwap(mr.segment, offset, AtomicEth.compare(pkt, at), AtomicEth.swapAdd(pkt, at))
                : AtomicOps.fetchAndAdd(mr.segment, offset, AtomicEth.swapAdd(pkt, at));
        acks.coveredByResponse(); // the atomic's acknowledge covers everything before it (IBA 9.7.5.1.2)
        nakSent = false;
        msn = (msn + 1) & 0xFFFFFF;
        expectedPsn = Psn.next(psn);
        reads.claim(slot).startAtomic(psn, va, orig, msn);
    }

    /** UD: one datagram, one message (rxe: no PSN check, the GRH area first). */
    private void onDatagram(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength, int srcIp, int ipId,
            int ibLength) {
        if (!qp.recv.acquire()) {
            counters.increment(Counter.OUT_OF_BUFFER); // no RNR for UD: the datagram is lost
            return;
        }
        RecvWqe w = qp.recv.current();
        if (Grh.LENGTH + (long) payloadLength > w.capacity) {
            // current rxe, after "Fix responder length checking for UD request packets"
            counters.increment(Counter.UD_LEN_DROPPED);
            if (qp.srq != null) {
                // rxe RESPST_ERR_LENGTH on an SRQ (UC/UD class E): the WQE taken out of the SRQ completes with
                // REM_INV_REQ_ERR, the QP going on; kept in this QP's hand it would be lost to the SRQ's other QPs
                CompletionWriter c = qp.recvCompletions.of(w.wrId, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV);
                qp.recv.retire();
                if (!c.push()) {
                    cqOverrun();
                }
            }
            return;
        }
        if (!placement.datagram(w, pkt, payloadOffset, payloadLength, srcIp, ipId, ibLength)) {
            recvFailed(WcStatus.LOC_PROT_ERR, 0);
            return;
        }
        CompletionWriter c = qp.recvCompletions.of(w.wrId, WcStatus.SUCCESS, WcOpcode.RECV)
                .byteLen(Grh.LENGTH + payloadLength).grh().srcQp(Deth.srcQp(pkt, op.dethOffset()))
                .solicited(Bth.solicited(pkt, 0));
        if (op.hasImm()) {
            c.immediate(ImmDt.imm(pkt, op.immOffset()));
        }
        qp.recv.retire(); // the RQ slot is free before the CQE is visible, as in rxe
        if (c.push()) {
            counters.increment(Counter.RDMA_RECVS);
        } else {
            cqOverrun();
        }
    }

    private void advance(Opcode op, MemorySegment pkt, int psn) {
        if (op.isEnd()) {
            inMessage = NONE;
            if (op.isWrite() && !op.hasImm()) {
                msn = (msn + 1) & 0xFFFFFF; // a plain WRITE completes here; SENDs and WRITE_WITH_IMM in completeRecv
            }
        }
        expectedPsn = Psn.next(psn);
        if (rules.acknowledged() && Bth.ackReq(pkt, 0)) {
            acks.queue(psn, AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        }
    }

    /** A successful completion of the message's receive WQE, from the peer QP; the caller adds what it has. */
    private CompletionWriter recvCompletion(WcOpcode opcode, long byteLen) {
        return qp.recvCompletions.of(qp.recv.current().wrId, WcStatus.SUCCESS, opcode).byteLen(byteLen)
                .srcQp(qp.destQpn);
    }

    /** Completes the message's receive WQE; false when the receive CQ overran (the QP is then in ERR). */
    private boolean completeRecv(CompletionWriter c) {
        qp.recv.retire(); // as rxe's do_complete: the RQ slot is free before the CQE is visible
        inMessage = NONE;
        if (!c.push()) {
            cqOverrun();
            return false;
        }
        counters.increment(Counter.RDMA_RECVS);
        if (rules.acknowledged()) {
            acks.holdForAnswer();
        }
        msn = (msn + 1) & 0xFFFFFF;
        return true;
    }

    /**
     * The receive CQ overran and the message's completion is lost (rxe RESPST_ERR_CQ_OVERFLOW, class G; the CQ
     * raised CQ_ERR): the QP moves to ERR, so no later message consumes a receive WQE. RC never acknowledges the
     * message, so its requester does not see it succeed (it retries until retry_cnt is spent and fails it with
     * RETRY_EXC_ERR); the ACK still pending for earlier messages goes out first: those completed.
     */
    private void cqOverrun() {
        if (rules.acknowledged()) {
            reads.sendOwedAtomicAcks();
            if (!reads.owed()) {
                acks.sendIfAck(msn); // its PSN is before this message's: queued by an earlier packet
            }
            acks.reset();
            reads.discard();
        }
        abandon();
        qp.enterError();
    }

    // ------------------------------------------------------------------------------------------------- errors

    /** What an error class does on this transport (see {@link RequestError}). */
    private void reject(RequestError error, Opcode op, int psn) {
        if (rules.naksErrors()) {
            // a WRITE with immediate that took its receive WQE completes it with a local access error; a WRITE
            // without one has no receive WQE to complete
            WcStatus status = error == RequestError.RKEY && !op.startsReceiveWqe() ? null : error.recvStatus;
            fatal(error.nak, psn, status);
        } else if (error.local) {
            recvFailed(error.recvStatus, placement.received());
        } else {
            drop();
        }
    }

    /**
     * RC, a class C error (IBA 9.9.3.1.3): NAK the request now, complete the receive WQE in use with {@code status}
     * when there is one, and move the QP to ERR. An error reported by no receive completion is reported as an
     * affiliated asynchronous event instead (C9-222.1.1; see {@link #asyncErrorFor}).
     */
    private void fatal(NakCode code, int psn, WcStatus status) {
        boolean completed = false;
        if (status != null && qp.recv.hasCurrent()) {
            CompletionWriter c = qp.recvCompletions.of(qp.recv.current().wrId, status, WcOpcode.RECV)
                    .byteLen(placement.received()).srcQp(qp.destQpn);
            qp.recv.retire();
            c.push();
            completed = true;
        }
        inMessage = NONE;
        reads.sendOwedAtomicAcks();
        acks.sendNow(psn, AethSyndrome.nak(code), msn);
        acks.cancel();
        reads.discard();
        boolean wasError = qp.state == QpState.ERR;
        qp.enterError();
        if (!completed && !wasError) {
            qp.raise(asyncErrorFor(code));
        }
    }

    /** A READ's region was deregistered or invalidated while its responses were going out. */
    void readRegionGone(int psn) {
        fatal(NakCode.REMOTE_ACCESS_ERROR, psn, null);
    }

    /**
     * The affiliated asynchronous error for a responder error that no receive completion reports: an R_Key or
     * access violation is a local access violation work queue error (QP_ACCESS_ERR, as rxe raises for R_Key
     * violations), a malformed or out-of-sequence request an invalid request work queue error (QP_REQ_ERR),
     * anything else a catastrophic work queue error (QP_FATAL).
     */
    static AsyncEventType asyncErrorFor(NakCode code) {
        return switch (code) {
            case REMOTE_ACCESS_ERROR -> AsyncEventType.QP_ACCESS_ERR;
            case INVALID_REQUEST, INVALID_RD_REQUEST -> AsyncEventType.QP_REQ_ERR;
            case null, default -> AsyncEventType.QP_FATAL;
        };
    }

    /**
     * UC, UD: the receive WQE cannot take the message (too small, or its memory is not writable): it completes with
     * {@code status} and the QP goes to ERR, which flushes the rest (IBA class A/C local errors).
     */
    private void recvFailed(WcStatus status, long byteLen) {
        CompletionWriter c = qp.recvCompletions.of(qp.recv.current().wrId, status, WcOpcode.RECV).byteLen(byteLen)
                .srcQp(qp.destQpn);
        qp.recv.retire();
        c.push();
        abandon();
        qp.enterError();
    }

    /** UC: drops the message this packet belongs to (or the one in progress) and every packet up to the next start. */
    private void drop() {
        counters.increment(Counter.UC_MSG_DROPPED);
        abandon();
        dropping = true;
    }

    /** Forgets the message in progress; its receive WQE, not consumed, takes the next message. */
    private void abandon() {
        inMessage = NONE;
        placement.abandon();
    }

    // ------------------------------------------------------------------------------------------------- output

    /**
     * The QP is being destroyed: an acknowledgement still waiting (in invoker mode held for the application's
     * answer, which will not come now) goes out, so the peer's last request is acknowledged instead of timing out.
     */
    void sendWaitingAck() {
        QpState s = qp.state;
        if (rules.acknowledged() && (s == QpState.RTR || s == QpState.RTS || s == QpState.SQD) && !reads.owed()) {
            acks.sendIfAck(msn);
        }
    }

    /** Streams read responses, then sends the pending ACK once no read response is owed before it. */
    int transmit(long nowNs, boolean requesterSent) {
        QpState s = qp.state;
        if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD) {
            return 0;
        }
        int sent = reads.send(READ_BUDGET, msn);
        if (!reads.owed()) {
            sent += acks.flush(nowNs, requesterSent, msn);
        }
        return sent;
    }
}
