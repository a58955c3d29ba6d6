package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AtomicAckEth;
import io.jrdma.wire.AtomicEth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Ieth;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Position;
import io.jrdma.wire.Psn;
import io.jrdma.wire.Reth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The responder role of an RC QP (IBA 9.7.5.2, kernel rxe_resp.c): checks each request's PSN, opcode sequence,
 * resources, length and rkey in that order, places SEND data into receive WQEs and WRITE data into memory
 * regions, streams READ responses from a ring of read resources, and acknowledges. ACKs and NAKs wait until the
 * read responses before them are out, so an acknowledgement never overtakes a read response.
 */
final class Responder {

    private static final int READ_BUDGET = 32;
    private static final int NONE = 0;
    private static final int IN_SEND = 1;
    private static final int IN_WRITE = 2;

    private final SoftQp qp;
    private final Engine engine;

    private int expectedPsn;
    private int msn;
    private boolean nakSent;
    private int inMessage = NONE;
    private long recvOffset;
    private SoftMr writeMr;
    private long writeVa;
    private long writeRemaining;
    private long writeLength;

    private boolean ackPending;
    private int ackPsn;
    private int ackSyndrome;
    /**
     * Invoker mode: a receive completed, so its ACK waits until this QP's requester sends something or
     * {@link #ACK_HOLD_NS} pass. The application is about to poll that completion and often answers at once; its
     * answer then goes out first (latency) and the ACK right behind it.
     */
    private boolean holdAck;
    private long holdSinceNs;
    private int holdPasses;
    /** And for at most this many engine passes (the answer takes one or two: poll, post). */
    static final int HOLD_PASSES = 3;
    /** How long an ACK may wait for the application's answer: far below any usable ACK timeout (67 ms here). */
    static final long ACK_HOLD_NS = 20_000;

    private ReadResource[] reads = {new ReadResource()};
    private int readHead;
    private int readCount;

    Responder(SoftQp qp) {
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
        msn = 0;
        nakSent = false;
        inMessage = NONE;
        ackPending = false;
        holdAck = false;
        holdSinceNs = 0;
        holdPasses = 0;
        readCount = 0;
        for (ReadResource r : reads) {
            r.used = false; // PSNs start over: no old request may be taken for a duplicate
        }
    }

    /** Sizes the read resource ring to max_dest_rd_atomic (control path, engine lock held). */
    void resizeResources(int n) {
        if (n != reads.length && readCount == 0) {
            reads = new ReadResource[n];
            for (int i = 0; i < n; i++) {
                reads[i] = new ReadResource();
            }
            readHead = 0;
        }
    }

    /** A request packet for this QP, already checked for length, ICRC, source and QP state. */
    void onRequest(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength) {
        int psn = Bth.psn(pkt, 0);
        int d = Psn.diff(psn, expectedPsn);
        if (d > 0) {
            engine.counters.increment(Counter.OUT_OF_SEQ_REQUEST);
            if (!nakSent) {
                nakSent = true;
                queueAck(expectedPsn, AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR));
            }
            return;
        }
        if (d < 0) {
            engine.counters.increment(Counter.DUPLICATE_REQUEST);
            if (op.isReadRequest()) {
                acceptRead(pkt, op, psn, false);
            } else if (op.isAtomic()) {
                replayAtomic(psn);
            } else if (!ackPending || AethSyndrome.isAck(ackSyndrome)) {
                // re-ACK; a pending NAK stays: it acknowledges everything before it and must reach the requester
                queueAck(Psn.add(expectedPsn, -1), AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
            }
            return;
        }
        if (!sequenceOk(op)) {
            fatal(NakCode.INVALID_REQUEST, psn, null);
            return;
        }
        if (!operationEnabled(op)) {
            // rxe check_op_valid / check_resource: an RDMA operation the QP's access flags do not enable, or a
            // READ at a QP without responder resources, is an invalid request (class C), not an access error
            fatal(NakCode.INVALID_REQUEST, psn, null);
            return;
        }
        if (op.startsReceiveWqe() && !qp.recv.acquire()) {
            engine.counters.increment(Counter.SEND_RNR_ERR);
            nakSent = true; // later packets of this burst are out of sequence; the RNR NAK speaks for them
            queueAck(psn, AethSyndrome.rnrNak(qp.minRnrTimer));
            return;
        }
        nakSent = false;
        if (op.isSend()) {
            onSend(op, pkt, psn, payloadOffset, payloadLength);
        } else if (op.isWrite()) {
            onWrite(op, pkt, psn, payloadOffset, payloadLength);
        } else if (op.isReadRequest()) {
            acceptRead(pkt, op, psn, true);
        } else if (op.isAtomic()) {
            acceptAtomic(op, pkt, psn);
        } else {
            fatal(NakCode.INVALID_REQUEST, psn, null);
        }
    }

    private boolean sequenceOk(Opcode op) {
        if (inMessage == NONE) {
            return op.isStart() || !op.hasPayload();
        }
        if (op.isStart() || !op.hasPayload()) {
            return false;
        }
        return inMessage == IN_SEND ? op.isSend() : op.isWrite();
    }

    /** Whether the QP lets peers run {@code op}: qp_access_flags, and max_dest_rd_atomic for READs. */
    private boolean operationEnabled(Opcode op) {
        if (op.isWrite()) {
            return (qp.accessFlags & Access.REMOTE_WRITE) != 0;
        }
        if (op.isReadRequest()) {
            return (qp.accessFlags & Access.REMOTE_READ) != 0 && qp.maxDestRdAtomic > 0;
        }
        return true;
    }

    private boolean lengthOk(Opcode op, int payloadLength) {
        return op.isEnd() ? payloadLength <= qp.mtuBytes : payloadLength == qp.mtuBytes;
    }

    private void onSend(Opcode op, MemorySegment pkt, int psn, int payloadOffset, int payloadLength) {
        if (!lengthOk(op, payloadLength)) {
            fatal(NakCode.INVALID_REQUEST, psn, null);
            return;
        }
        RecvWqe w = qp.recv.current();
        if (op.isStart()) {
            recvOffset = 0;
            inMessage = IN_SEND;
        }
        if (recvOffset + payloadLength > w.capacity) {
            fatal(NakCode.INVALID_REQUEST, psn, WcStatus.LOC_LEN_ERR);
            return;
        }
        if (payloadLength > 0 && !Sgl.scatter(qp.context.mrs, qp.pd, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                recvOffset, pkt, payloadOffset, payloadLength)) {
            fatal(NakCode.REMOTE_OPERATIONAL_ERROR, psn, WcStatus.LOC_PROT_ERR);
            return;
        }
        recvOffset += payloadLength;
        if (op.isEnd()) {
            int flags = op.hasImm() ? WcFlags.WITH_IMM : 0;
            int imm = op.hasImm() ? ImmDt.imm(pkt, op.immOffset()) : 0;
            if (op.hasIeth()) {
                imm = Ieth.rkey(pkt, op.iethOffset());
                if (!LocalOps.invalidate(qp, imm)) {
                    invalidateFailed(w, pkt, psn);
                    return;
                }
                flags = WcFlags.WITH_INV;
            }
            if (!completeRecv(w, WcOpcode.RECV, (int) recvOffset, imm, flags, Bth.solicited(pkt, 0))) {
                return;
            }
        }
        advance(op, pkt, psn);
    }

    private void onWrite(Opcode op, MemorySegment pkt, int psn, int payloadOffset, int payloadLength) {
        if (op.isStart()) {
            long va = Reth.va(pkt, op.rethOffset());
            int rkey = Reth.rkey(pkt, op.rethOffset());
            long len = Reth.dmaLength(pkt, op.rethOffset()) & 0xFFFFFFFFL;
            SoftMr mr = len == 0 ? null : remoteRegion(rkey, va, len, Access.REMOTE_WRITE);
            if (len != 0 && mr == null) {
                // a WRITE ONLY with immediate has taken its receive WQE: it completes with a local access error
                fatal(NakCode.REMOTE_ACCESS_ERROR, psn, op.startsReceiveWqe() ? WcStatus.LOC_ACCESS_ERR : null);
                return;
            }
            writeMr = mr;
            writeVa = va;
            writeRemaining = len;
            writeLength = len;
            inMessage = IN_WRITE;
        }
        boolean lengthFits = op.isEnd() ? payloadLength == writeRemaining : payloadLength < writeRemaining;
        if (!lengthOk(op, payloadLength) || !lengthFits) {
            fatal(NakCode.INVALID_REQUEST, psn, null);
            return;
        }
        if (payloadLength > 0) {
            if (!writeMr.valid()) {
                fatal(NakCode.REMOTE_ACCESS_ERROR, psn, null);
                return;
            }
            MemorySegment.copy(pkt, payloadOffset, writeMr.segment, writeVa - writeMr.address, payloadLength);
        }
        writeVa += payloadLength;
        writeRemaining -= payloadLength;
        if (op.isEnd() && op.hasImm()) {
            RecvWqe w = qp.recv.current();
            if (!completeRecv(w, WcOpcode.RECV_RDMA_WITH_IMM, (int) writeLength, ImmDt.imm(pkt, op.immOffset()),
                    WcFlags.WITH_IMM, Bth.solicited(pkt, 0))) {
                return;
            }
        }
        advance(op, pkt, psn);
    }

    /**
     * The region {@code rkey} (an MR's or a bound window's) lets this QP access as asked over {@code [va, va + len)},
     * else null; see {@link RemoteKeys#resolve}.
     */
    private SoftMr remoteRegion(int rkey, long va, long len, int access) {
        return RemoteKeys.resolve(qp, rkey, va, len, access);
    }

    /**
     * A SEND with Invalidate whose rkey may not be invalidated (not a bound type 2 window of this QP's PD): rxe's
     * class J handling. The data is placed, the receive WQE completes with REM_INV_REQ_ERR, the request is
     * acknowledged as usual (the requester's SEND succeeds), and this QP moves to ERR.
     */
    private void invalidateFailed(RecvWqe w, MemorySegment pkt, int psn) {
        long wrId = w.wrId;
        qp.recv.retire();
        boolean pushed = qp.recvCq.push(wrId, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, qp.qpn, qp.destQpn,
                false);
        inMessage = NONE;
        if (pushed && Bth.ackReq(pkt, 0)) {
            sendAck(psn, AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        }
        ackPending = false;
        readCount = 0;
        qp.enterError();
    }

    private void acceptRead(MemorySegment pkt, Opcode op, int psn, boolean inOrder) {
        if (qp.maxDestRdAtomic == 0) {
            if (inOrder) {
                fatal(NakCode.INVALID_REQUEST, psn, null); // rxe check_resource: no responder resources at all
            }
            return;
        }
        long va = Reth.va(pkt, op.rethOffset());
        int rkey = Reth.rkey(pkt, op.rethOffset());
        long len = Reth.dmaLength(pkt, op.rethOffset()) & 0xFFFFFFFFL;
        if (len != 0 && remoteRegion(rkey, va, len, Access.REMOTE_READ) == null) {
            if (inOrder) {
                fatal(NakCode.REMOTE_ACCESS_ERROR, psn, null);
            }
            return;
        }
        if (!inOrder) {
            replayRead(psn, rkey, va, len);
            return;
        }
        int slot = victim();
        if (slot < 0) {
            fatal(NakCode.INVALID_REQUEST, psn, null); // more reads than max_dest_rd_atomic
            return;
        }
        ReadResource r = claim(slot);
        r.firstPsn = psn;
        r.packets = len == 0 ? 1 : (int) ((len + qp.mtuBytes - 1) / qp.mtuBytes);
        r.sent = 0;
        r.va = va;
        r.length = len;
        r.rkey = rkey;
        r.used = true;
        r.atomic = false;
        r.replay = false;
        if (inOrder) {
            if (ackPending && AethSyndrome.isAck(ackSyndrome)) {
                ackPending = false; // the read's responses acknowledge everything before it (IBA 9.7.5.1.2)
            }
            nakSent = false;
            msn = (msn + 1) & 0xFFFFFF;
            expectedPsn = Psn.add(psn, r.packets);
        }
    }

    /**
     * A duplicate READ (rxe duplicate_request): the requester asks again, from {@code psn}, for the part of a read
     * it did not receive. It is served only from the read resource of the ring whose PSNs include {@code psn},
     * with the same rkey, the address of that packet and a length within the rest of the resource; anything else
     * is dropped (class D). The resource streams again from that packet, in place (it takes no resource of its
     * own, and gives way to new requests, see {@link #victim}). Responses after the first packet go out as
     * MIDDLE and LAST, as rxe replays them.
     */
    private void replayRead(int psn, int rkey, long va, long len) {
        for (int i = 0; i < reads.length; i++) {
            ReadResource r = reads[i];
            int k = Psn.diff(psn, r.firstPsn);
            if (r.used && !r.atomic && k >= 0 && k < r.packets && r.rkey == rkey
                    && va == r.va + (long) k * qp.mtuBytes && len <= r.length - (long) k * qp.mtuBytes) {
                if (active(i)) {
                    r.sent = Math.min(r.sent, k);
                } else {
                    r.sent = k;
                    r.replay = true;
                    activate(i);
                }
                return;
            }
        }
    }

    /**
     * The resource a new READ or atomic takes (-1: none, the requester sent more than max_dest_rd_atomic): the
     * one holding the oldest request, whether finished or queued again for a duplicate (a replay), never one
     * still to be answered for the first time. Requests complete at the requester in PSN order, so the oldest
     * is the one a requester within its max_rd_atomic no longer needs (the kernel recycles the oldest too).
     */
    private int victim() {
        int found = -1;
        int oldest = -1;
        for (int i = 0; i < reads.length; i++) {
            ReadResource r = reads[i];
            if (!r.used) {
                return i;
            }
            if (active(i) && !r.replay) {
                continue;
            }
            int age = Psn.diff(expectedPsn, r.firstPsn);
            if (age < 0) {
                age = Integer.MAX_VALUE; // more than 2^23 PSNs ago: older than anything
            }
            if (age > oldest) {
                found = i;
                oldest = age;
            }
        }
        return found;
    }

    /** Takes resource {@code i} (from {@link #victim}) for a new request, queued at the tail. */
    private ReadResource claim(int i) {
        int n = reads.length;
        ReadResource r = reads[i];
        if (active(i)) {
            // a replay gives way: out of the queue, which closes up behind it
            int last = (readHead + readCount - 1) % n;
            for (int j = i; j != last; j = (j + 1) % n) {
                reads[j] = reads[(j + 1) % n];
            }
            reads[last] = r;
            readCount--;
        } else {
            moveToTail(i);
        }
        r.replay = false;
        readCount++;
        return r;
    }

    /** True when resource {@code i} is queued for transmission (between the ring's head and tail). */
    private boolean active(int i) {
        return Math.floorMod(i - readHead, reads.length) < readCount;
    }

    /** Queues the finished resource {@code i} again, at the tail of the ring. */
    private void activate(int i) {
        moveToTail(i);
        readCount++;
    }

    /** Moves the finished resource {@code i} to the tail; the finished ones between move up, keeping order. */
    private void moveToTail(int i) {
        int n = reads.length;
        int tail = (readHead + readCount) % n;
        ReadResource r = reads[i];
        for (int j = i; j != tail; j = (j - 1 + n) % n) {
            reads[j] = reads[(j - 1 + n) % n];
        }
        reads[tail] = r;
    }

    private void advance(Opcode op, MemorySegment pkt, int psn) {
        if (op.isEnd()) {
            inMessage = NONE;
            if (op.isWrite() && !op.hasImm()) {
                msn = (msn + 1) & 0xFFFFFF; // a plain WRITE completes here; SENDs and WRITE_WITH_IMM in completeRecv
            }
        }
        expectedPsn = Psn.next(psn);
        if (Bth.ackReq(pkt, 0)) {
            queueAck(psn, AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        }
    }

    /** Completes the message's receive WQE; false when the receive CQ overran (the QP is then in ERR). */
    private boolean completeRecv(RecvWqe w, WcOpcode opcode, int byteLen, int imm, int flags, boolean solicited) {
        long wrId = w.wrId;
        qp.recv.retire(); // as rxe's do_complete: the RQ slot is free before the CQE is visible
        inMessage = NONE;
        if (!qp.recvCq.push(wrId, WcStatus.SUCCESS, opcode, byteLen, imm, flags, qp.qpn, qp.destQpn, solicited)) {
            cqOverrun();
            return false;
        }
        engine.counters.increment(Counter.RDMA_RECVS);
        holdAck = engine.invoker();
        msn = (msn + 1) & 0xFFFFFF;
        return true;
    }

    /**
     * The receive CQ overran and the message's completion is lost (rxe RESPST_ERR_CQ_OVERFLOW, class G): the message
     * is never acknowledged, so its requester does not see it succeed (it retries until retry_cnt is spent and fails
     * it with RETRY_EXC_ERR), and the QP moves to ERR, dropping what follows. The ACK still pending for earlier
     * messages goes out first: those completed. The CQ raised CQ_ERR.
     */
    private void cqOverrun() {
        sendOwedAtomicAcks();
        if (ackPending && readCount == 0 && AethSyndrome.isAck(ackSyndrome)) {
            sendAck(ackPsn, ackSyndrome); // its PSN is before this message's: queued by an earlier packet
        }
        ackPending = false;
        holdAck = false;
        readCount = 0;
        qp.enterError();
    }

    private void queueAck(int psn, int syndrome) {
        ackPending = true;
        ackPsn = psn;
        ackSyndrome = syndrome;
    }

    /**
     * A class C error (IBA 9.9.3.1.3): NAK the request now, complete the receive WQE in use with {@code status}
     * when there is one, and move the QP to ERR. An error reported by no receive completion is reported as an
     * affiliated asynchronous event instead (C9-222.1.1; see {@link #asyncErrorFor}).
     */
    private void fatal(NakCode code, int psn, WcStatus status) {
        boolean completed = false;
        if (status != null && qp.recv.hasCurrent()) {
            long wrId = qp.recv.current().wrId;
            qp.recv.retire();
            qp.recvCq.push(wrId, status, WcOpcode.RECV, (int) recvOffset, 0, 0, qp.qpn, qp.destQpn, false);
            completed = true;
        }
        inMessage = NONE;
        sendOwedAtomicAcks();
        sendAck(psn, AethSyndrome.nak(code));
        ackPending = false;
        readCount = 0;
        boolean wasError = qp.state == QpState.ERR;
        qp.enterError();
        if (!completed && !wasError) {
            qp.raise(asyncErrorFor(code));
        }
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

    /** Streams read responses, then sends the pending ACK once no read response is owed before it. */
    int transmit(long nowNs, boolean requesterSent) {
        QpState s = qp.state;
        if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD) {
            return 0;
        }
        int sent = 0;
        while (readCount > 0 && sent < READ_BUDGET) {
            ReadResource r = reads[readHead];
            if (r.atomic) {
                sendAtomicAck(r);
            } else if (!sendReadResponse(r)) {
                return sent;
            }
            sent++;
            if (r.sent == r.packets) {
                readHead = (readHead + 1) % reads.length;
                readCount--;
            }
        }
        if (ackPending && readCount == 0) {
            if (holdAck && !requesterSent && AethSyndrome.isAck(ackSyndrome)) {
                if (holdSinceNs == 0) {
                    holdSinceNs = nowNs | 1;
                }
                if (++holdPasses <= HOLD_PASSES && nowNs - holdSinceNs < ACK_HOLD_NS) {
                    return sent + 1; // work left: a caller's wait loop runs the next pass at once
                }
            }
            holdAck = false;
            holdSinceNs = 0;
            holdPasses = 0;
            ackPending = false;
            sendAck(ackPsn, ackSyndrome);
            sent++;
        }
        return sent;
    }

    private boolean sendReadResponse(ReadResource r) {
        int k = r.sent;
        int mtu = qp.mtuBytes;
        long offset = (long) k * mtu;
        int payload = (int) Math.min(mtu, r.length - offset);
        Position pos = r.packets == 1 ? Position.ONLY
                : k == 0 ? Position.FIRST : k == r.packets - 1 ? Position.LAST : Position.MIDDLE;
        Opcode op = Opcode.readResponse(pos);
        int psn = Psn.add(r.firstPsn, k);
        MemorySegment tx = engine.tx;
        int pad = (-payload) & 3;
        Bth.write(tx, 0, op.code(), false, false, pad, SoftLimits.PKEY_DEFAULT, qp.destQpn, false, psn);
        if (op.hasAeth()) {
            Aeth.setSyndrome(tx, op.aethOffset(), AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
            Aeth.setMsn(tx, op.aethOffset(), msn);
        }
        int hdr = op.headerLength();
        if (payload > 0) {
            SoftMr mr = RemoteKeys.recheck(qp, r.rkey, r.va + offset, payload);
            if (mr == null) {
                fatal(NakCode.REMOTE_ACCESS_ERROR, psn, null); // deregistered or invalidated while being read
                return false;
            }
            if (engine.byReference()) {
                engine.clearPieces();
                if (engine.addPiece(mr, r.va + offset - mr.address, payload)) {
                    engine.transmitByReference(qp, hdr, payload, pad); // the kernel reads the MR directly
                    r.sent++;
                    return true;
                }
            }
            MemorySegment.copy(mr.segment, r.va + offset - mr.address, tx, hdr, payload);
        }
        for (int i = 0; i < pad; i++) {
            tx.set(ValueLayout.JAVA_BYTE, hdr + payload + i, (byte) 0);
        }
        engine.transmit(qp, hdr + payload + pad);
        r.sent++;
        return true;
    }

    // ------------------------------------------------------------------------------------------------- atomics

    /**
     * A new CmpSwap or FetchAdd (rxe check_op_valid, check_resource, check_rkey, atomic_reply, in that order):
     * executes it once on the target's memory, keeps the original value in a resource of the ring and queues the
     * ATOMIC ACKNOWLEDGE behind any read responses still owed.
     */
    private void acceptAtomic(Opcode op, MemorySegment pkt, int psn) {
        if ((qp.accessFlags & Access.REMOTE_ATOMIC) == 0) {
            fatal(NakCode.INVALID_REQUEST, psn, null); // the QP does not take atomics: rxe's unsupported opcode
            return;
        }
        int slot = qp.maxDestRdAtomic == 0 ? -1 : victim();
        if (slot < 0) {
            fatal(NakCode.INVALID_REQUEST, psn, null); // more reads and atomics than max_dest_rd_atomic
            return;
        }
        int at = op.atomicEthOffset();
        long va = AtomicEth.va(pkt, at);
        SoftMr mr = remoteRegion(AtomicEth.rkey(pkt, at), va, 8, Access.REMOTE_ATOMIC);
        if (mr == null) {
            fatal(NakCode.REMOTE_ACCESS_ERROR, psn, null);
            return;
        }
        if (!AtomicOps.aligned(va)) {
            fatal(NakCode.INVALID_REQUEST, psn, null); // rxe: misaligned atomic, class C
            return;
        }
        long offset = va - mr.address;
        long orig = op == Opcode.RC_COMPARE_SWAP
                ? AtomicOps.compareAndSwap(mr.segment, offset, AtomicEth.compare(pkt, at), AtomicEth.swapAdd(pkt, at))
                : AtomicOps.fetchAndAdd(mr.segment, offset, AtomicEth.swapAdd(pkt, at));
        if (ackPending && AethSyndrome.isAck(ackSyndrome)) {
            ackPending = false; // the atomic's acknowledge covers everything before it (IBA 9.7.5.1.2)
        }
        nakSent = false;
        msn = (msn + 1) & 0xFFFFFF;
        expectedPsn = Psn.next(psn);
        ReadResource r = claim(slot);
        r.used = true;
        r.atomic = true;
        r.replay = false;
        r.firstPsn = psn;
        r.packets = 1;
        r.sent = 0;
        r.va = va;
        r.length = 8;
        r.origValue = orig;
        r.msn = msn;
    }

    /**
     * A duplicate atomic (its PSN was executed): answered with the saved original value, never executed again.
     * One whose resource the ring has reused is dropped, as rxe does (class D); one whose acknowledge is still
     * queued needs nothing more.
     */
    private void replayAtomic(int psn) {
        for (int i = 0; i < reads.length; i++) {
            ReadResource r = reads[i];
            if (r.used && r.atomic && r.firstPsn == psn) {
                if (!active(i)) { // else its acknowledge is still queued
                    // queued again in order behind owed read responses, in place (see activate)
                    r.msn = msn; // rxe answers a duplicate with the current MSN
                    r.sent = 0;
                    r.replay = true;
                    activate(i);
                }
                return;
            }
        }
    }

    /** ATOMIC ACKNOWLEDGE: AETH (ACK, MSN) and AtomicAckETH with the original value, big-endian on the wire. */
    private void sendAtomicAck(ReadResource r) {
        MemorySegment tx = engine.tx;
        Opcode op = Opcode.RC_ATOMIC_ACKNOWLEDGE;
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, false, r.firstPsn);
        Aeth.setSyndrome(tx, op.aethOffset(), AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        Aeth.setMsn(tx, op.aethOffset(), r.msn);
        AtomicAckEth.setOrigData(tx, op.atomicAckEthOffset(), r.origValue);
        engine.transmit(qp, op.headerLength());
        r.sent++;
    }

    /**
     * Before a NAK: sends the atomic acknowledges queued at the head of the ring, so atomics executed before the
     * failing request complete at the requester instead of being taken for lost (their effect is done).
     */
    private void sendOwedAtomicAcks() {
        while (readCount > 0 && reads[readHead].atomic) {
            sendAtomicAck(reads[readHead]);
            readHead = (readHead + 1) % reads.length;
            readCount--;
        }
    }

    private void sendAck(int psn, int syndrome) {
        MemorySegment tx = engine.tx;
        Opcode op = Opcode.RC_ACKNOWLEDGE;
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, false, psn);
        Aeth.setSyndrome(tx, op.aethOffset(), syndrome);
        Aeth.setMsn(tx, op.aethOffset(), msn);
        engine.transmit(qp, op.headerLength());
    }
}
