package io.jrdma.soft;

import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.AtomicAckEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Psn;
import io.jrdma.wire.RnrTimer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The completer role of an RC QP (IBA 9.7.5.3, kernel rxe_comp.c): ACKs retire send WQEs in order (one ACK
 * covers every earlier PSN), read responses are placed into the local buffers, NAKs and the local ACK timeout
 * start go-back-N retransmission or fail the oldest WQE.
 */
final class Completer {

    private final SoftQp qp;
    private final Engine engine;
    /** The original value of an atomic in host order, staged for the scatter into the WR's local buffer. */
    private final MemorySegment atomicResult = MemorySegment.ofArray(new long[1]);

    Completer(SoftQp qp) {
        this.qp = qp;
        this.engine = qp.engine;
    }

    /** A response packet (ACK or read response) for this QP, already checked for length, ICRC and source. */
    void onResponse(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength, long nowNs) {
        Requester req = qp.requester;
        int psn = Bth.psn(pkt, 0);
        // A response must be for a PSN this QP sent; one for a PSN already acknowledged is a harmless duplicate.
        if (Psn.diff(psn, req.psn) >= 0) {
            engine.counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        if (Psn.diff(psn, Psn.add(req.unackedPsn, -1)) < 0) {
            return;
        }
        if (op.isReadResponse()) {
            onReadResponse(op, pkt, psn, payloadOffset, payloadLength, nowNs);
            return;
        }
        int syndrome = Aeth.syndrome(pkt, op.aethOffset());
        if (op.isAtomicAck()) {
            onAtomicAck(op, pkt, psn, syndrome, nowNs);
            return;
        }
        if (AethSyndrome.isAck(syndrome)) {
            onAck(psn, nowNs);
        } else if (Psn.diff(psn, req.unackedPsn) < 0) {
            // a NAK names the PSN the responder expects; one before a PSN already acknowledged is stale (it was
            // overtaken by a later ACK) and going back to it would resend what was done
            engine.counters.increment(Counter.RCVD_DROPPED);
        } else if (AethSyndrome.isRnrNak(syndrome)) {
            engine.counters.increment(Counter.RCVD_RNR_ERR);
            if (!retireBefore(psn)) {
                return;
            }
            if (qp.rnrRetry != 7) { // 7 = retry forever (IBA 9.7.5.2.8)
                if (req.rnrRetryLeft == 0) {
                    engine.counters.increment(Counter.RETRY_RNR_EXCEEDED_ERR);
                    failHead(WcStatus.RNR_RETRY_EXC_ERR);
                    return;
                }
                req.rnrRetryLeft--;
            }
            req.unackedPsn = psn;
            req.rewind();
            req.rnrWaitUntilNs = nowNs + RnrTimer.delayNs(AethSyndrome.value(syndrome));
            if (req.rnrWaitUntilNs == 0) {
                req.rnrWaitUntilNs = 1;
            }
            req.armTimer(nowNs);
        } else if (AethSyndrome.isNak(syndrome)) {
            onNak(NakCode.of(AethSyndrome.value(syndrome)), psn, nowNs);
        } else {
            engine.counters.increment(Counter.RCVD_DROPPED);
        }
    }

    private void onAck(int psn, long nowNs) {
        Requester req = qp.requester;
        long retiredBefore = qp.sqConsumer;
        if (!retireThrough(psn)) {
            return;
        }
        boolean moved = qp.sqConsumer != retiredBefore;
        if (Psn.diff(Psn.next(psn), req.unackedPsn) > 0) {
            req.unackedPsn = Psn.next(psn);
            moved = true;
        }
        if (moved) {
            progressed(nowNs);
        }
    }

    private void onNak(NakCode code, int psn, long nowNs) {
        Requester req = qp.requester;
        boolean forward = Psn.diff(psn, req.unackedPsn) > 0;
        if (!retireBefore(psn)) {
            return;
        }
        if (code == NakCode.PSN_SEQUENCE_ERROR) {
            engine.counters.increment(Counter.RCVD_SEQ_ERR);
            if (req.rnrWaitUntilNs != 0 && psn == req.unackedPsn) {
                return; // already going back to this PSN after an RNR NAK; do not spend a retry on it
            }
            if (req.retrying && psn == req.unackedPsn) {
                return; // a duplicate or late NAK for the retry already under way (rxe started_retry)
            }
            if (forward) {
                req.retryLeft = qp.retryCnt; // it acknowledges new PSNs: forward progress, the count starts over
            }
            if (!spendRetry()) {
                engine.counters.increment(Counter.RETRY_EXCEEDED_ERR);
                failHead(WcStatus.RETRY_EXC_ERR);
                return;
            }
            goBack(psn);
            req.armTimer(nowNs);
            return;
        }
        WcStatus status = switch (code) {
            case REMOTE_ACCESS_ERROR -> WcStatus.REM_ACCESS_ERR;
            case REMOTE_OPERATIONAL_ERROR -> WcStatus.REM_OP_ERR;
            case INVALID_RD_REQUEST -> WcStatus.REM_INV_RD_REQ_ERR;
            case null, default -> WcStatus.REM_INV_REQ_ERR;
        };
        failHead(status);
    }

    private void onReadResponse(Opcode op, MemorySegment pkt, int psn, int payloadOffset, int payloadLength,
            long nowNs) {
        Requester req = qp.requester;
        // A read response implicitly acknowledges every request before the read (IBA 9.7.5.1.2).
        retireAheadOfRead(psn);
        if (qp.sqConsumer == qp.sqProducer) {
            engine.counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        SendWqe w = qp.sqAt(qp.sqConsumer);
        if (w.opcode != WrOpcode.RDMA_READ || !w.started) {
            engine.counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        int expected = Psn.add(w.firstPsn, w.readPacketsDone);
        if (psn != expected) {
            // Behind: a duplicate. Ahead: responses were lost, ask again from the gap (implied NAK), once: the rest
            // of the old burst arrives ahead too and must not restart the retry each time.
            if (Psn.diff(psn, expected) > 0 && !(req.retrying && expected == req.unackedPsn)) {
                goBack(expected);
            }
            engine.counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        long offset = (long) w.readPacketsDone * qp.mtuBytes;
        boolean last = op.isEnd();
        boolean sizeOk = last ? offset + payloadLength <= w.length : payloadLength == qp.mtuBytes
                && offset + payloadLength < w.length;
        if (!sizeOk) {
            engine.counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        if (payloadLength > 0 && !Sgl.scatter(qp.context.mrs, qp.pd, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                offset, pkt, payloadOffset, payloadLength)) {
            failHead(WcStatus.LOC_PROT_ERR);
            return;
        }
        w.readPacketsDone++;
        req.unackedPsn = Psn.next(psn);
        if (last) {
            req.rdAtomicOutstanding = Math.max(0, req.rdAtomicOutstanding - 1);
        }
        if (w.readPacketsDone == w.packets) {
            qp.retireSend(w, WcStatus.SUCCESS);
        }
        progressed(nowNs);
    }

    /**
     * ATOMIC ACKNOWLEDGE (rxe do_atomic): implies every request before it; completes the atomic at its PSN with
     * the original value written, in host order, into the WR's 8-byte local buffer. An earlier read or atomic still
     * missing its response was lost: the requester goes back to it (implied NAK).
     */
    private void onAtomicAck(Opcode op, MemorySegment pkt, int psn, int syndrome, long nowNs) {
        Requester req = qp.requester;
        if (!AethSyndrome.isAck(syndrome)) {
            engine.counters.increment(Counter.RCVD_DROPPED); // an ATOMIC ACKNOWLEDGE only ever carries an ACK
            return;
        }
        if (!retireBefore(psn)) {
            return;
        }
        if (qp.sqConsumer == qp.sqProducer) {
            engine.counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        SendWqe w = qp.sqAt(qp.sqConsumer);
        if (!w.started || !w.opcode.isAtomic() || w.firstPsn != psn) {
            engine.counters.increment(Counter.RCVD_DROPPED); // a replayed acknowledge of an atomic already done
            return;
        }
        atomicResult.set(ValueLayout.JAVA_LONG, 0, AtomicAckEth.origData(pkt, op.atomicAckEthOffset()));
        if (!Sgl.scatter(qp.context.mrs, qp.pd, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, 0, atomicResult, 0,
                8)) {
            failHead(WcStatus.LOC_PROT_ERR);
            return;
        }
        req.rdAtomicOutstanding = Math.max(0, req.rdAtomicOutstanding - 1);
        if (Psn.diff(Psn.next(psn), req.unackedPsn) > 0) {
            req.unackedPsn = Psn.next(psn);
        }
        qp.retireSend(w, WcStatus.SUCCESS);
        progressed(nowNs);
    }

    /**
     * Go-back-N from {@code psn}: the requester transmits again from there. Until something new is acknowledged,
     * further NAKs for the same PSN and responses from the old burst do not start it again.
     */
    private void goBack(int psn) {
        Requester req = qp.requester;
        req.unackedPsn = psn;
        req.rewind();
        req.retrying = true;
    }

    private void progressed(long nowNs) {
        Requester req = qp.requester;
        req.retrying = false;
        req.retryLeft = qp.retryCnt;
        req.rnrRetryLeft = qp.rnrRetry;
        if (req.hasOutstanding()) {
            req.armTimer(nowNs);
        } else {
            req.ackDeadlineNs = 0;
        }
    }

    /**
     * Retires, in order, every started WQE whose last PSN is at or before {@code psn}. A read or atomic is only
     * retired by its responses: an ACK or NAK reaching past its first PSN means they were lost, so the requester
     * goes back to it (implied NAK, IBA 9.7.5.1.2).
     *
     * @return false when the requester went back and the caller must stop
     */
    private boolean retireThrough(int psn) {
        Requester req = qp.requester;
        while (qp.sqConsumer != qp.sqProducer) {
            SendWqe w = qp.sqAt(qp.sqConsumer);
            if (!w.started) {
                return true;
            }
            if (w.isReadOrAtomic()) {
                if (Psn.diff(psn, w.firstPsn) >= 0) {
                    int from = Psn.add(w.firstPsn, w.readPacketsDone);
                    if (!(req.retrying && from == req.unackedPsn)) {
                        goBack(from);
                    }
                    return false;
                }
                return true;
            }
            if (Psn.diff(w.lastPsn(), psn) > 0) {
                return true;
            }
            qp.retireSend(w, WcStatus.SUCCESS);
        }
        return true;
    }

    /** Retires every WQE that ends before {@code psn} (a NAK implies they were done). */
    private boolean retireBefore(int psn) {
        return retireThrough(Psn.add(psn, -1));
    }

    /** Retires the sends and writes ahead of the read that owns {@code psn} (its responses imply them). */
    private void retireAheadOfRead(int psn) {
        while (qp.sqConsumer != qp.sqProducer) {
            SendWqe w = qp.sqAt(qp.sqConsumer);
            if (!w.started || w.isReadOrAtomic() || Psn.diff(w.lastPsn(), psn) >= 0) {
                return;
            }
            qp.retireSend(w, WcStatus.SUCCESS);
        }
    }

    /** Local ACK timeout: retransmit from the oldest unacknowledged PSN, or fail once retry_cnt is spent. */
    int checkTimer(long nowNs) {
        Requester req = qp.requester;
        if (req.ackDeadlineNs == 0 || nowNs - req.ackDeadlineNs < 0
                || (qp.state != QpState.RTS && qp.state != QpState.SQD)) {
            return 0;
        }
        if (!req.hasOutstanding()) {
            req.ackDeadlineNs = 0;
            return 0;
        }
        engine.counters.increment(Counter.COMPLETER_RETRY_ERR);
        if (!spendRetry()) {
            engine.counters.increment(Counter.RETRY_EXCEEDED_ERR);
            failHead(WcStatus.RETRY_EXC_ERR);
            return 1;
        }
        goBack(req.unackedPsn);
        req.armTimer(nowNs);
        return 1;
    }

    /**
     * Spends one transport retry; false when none is left. As the IBA has it (retry_cnt counts the retries after a
     * local ACK timeout or a sequence NAK; only an rnr_retry of 7 means infinite), a retry_cnt of 7 is seven retries
     * like any other count: kernel rxe's completer never spends a retry_cnt of 7 ({@code if (qp->comp.retry_cnt !=
     * 7)}), which leaves a requester whose peer died retransmitting forever (issue 18). Forward progress starts the
     * count over ({@link #progressed}).
     */
    private boolean spendRetry() {
        Requester req = qp.requester;
        if (req.retryLeft == 0) {
            return false;
        }
        req.retryLeft--;
        return true;
    }

    /** Completes the oldest send WQE with an error and moves the QP to ERR, which flushes the rest. */
    void failHead(WcStatus status) {
        if (qp.sqConsumer != qp.sqProducer) {
            qp.retireSend(qp.sqAt(qp.sqConsumer), status);
        }
        qp.enterError();
    }
}
