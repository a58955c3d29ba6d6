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
    private final Counters counters;
    /** The original value of an atomic in host order, staged for the scatter into the WR's local buffer. */
    private final MemorySegment atomicResult = MemorySegment.ofArray(new long[1]);

    Completer(SoftQp qp) {
        this.qp = qp;
        this.counters = qp.context.counters;
    }

    /** A response packet (ACK or read response) for this QP, already checked for length, ICRC and source. */
    void onResponse(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength, long nowNs) {
        Requester req = qp.requester;
        int psn = Bth.psn(pkt, 0);
        // A response must be for a PSN this QP sent; one for a PSN already acknowledged is a harmless duplicate.
        if (Psn.diff(psn, req.nextPsn()) >= 0) {
            counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        if (Psn.diff(psn, Psn.add(req.unackedPsn(), -1)) < 0) {
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
        } else if (Psn.diff(psn, req.unackedPsn()) < 0) {
            // a NAK names the PSN the responder expects; one before a PSN already acknowledged is stale (it was
            // overtaken by a later ACK) and going back to it would resend what was done
            counters.increment(Counter.RCVD_DROPPED);
        } else if (AethSyndrome.isRnrNak(syndrome)) {
            counters.increment(Counter.RCVD_RNR_ERR);
            if (!retireBefore(psn)) {
                return;
            }
            if (!req.spendRnrRetry()) {
                counters.increment(Counter.RETRY_RNR_EXCEEDED_ERR);
                failHead(WcStatus.RNR_RETRY_EXC_ERR);
                return;
            }
            req.waitRnr(psn, nowNs + RnrTimer.delayNs(AethSyndrome.value(syndrome)), nowNs);
        } else if (AethSyndrome.isNak(syndrome)) {
            onNak(NakCode.of(AethSyndrome.value(syndrome)), psn, nowNs);
        } else {
            counters.increment(Counter.RCVD_DROPPED);
        }
    }

    private void onAck(int psn, long nowNs) {
        Requester req = qp.requester;
        long retiredBefore = qp.sqConsumer;
        if (!retireThrough(psn)) {
            return;
        }
        boolean moved = qp.sqConsumer != retiredBefore;
        if (req.acknowledgedThrough(psn) || moved) {
            req.progressed(nowNs);
        }
    }

    private void onNak(NakCode code, int psn, long nowNs) {
        Requester req = qp.requester;
        boolean forward = Psn.diff(psn, req.unackedPsn()) > 0;
        if (!retireBefore(psn)) {
            return;
        }
        if (code == NakCode.PSN_SEQUENCE_ERROR) {
            counters.increment(Counter.RCVD_SEQ_ERR);
            if (req.waitingRnrFor(psn)) {
                return; // already going back to this PSN after an RNR NAK; do not spend a retry on it
            }
            if (req.retryingFrom(psn)) {
                return; // a duplicate or late NAK for the retry already under way (rxe started_retry)
            }
            if (forward) {
                req.restartRetryCount(); // it acknowledges new PSNs: forward progress, the count starts over
            }
            if (!req.spendRetry()) {
                counters.increment(Counter.RETRY_EXCEEDED_ERR);
                failHead(WcStatus.RETRY_EXC_ERR);
                return;
            }
            req.goBackTo(psn);
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
            counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        SendWqe w = qp.sqAt(qp.sqConsumer);
        if (w.opcode != WrOpcode.RDMA_READ || !w.started()) {
            counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        int expected = Psn.add(w.firstPsn(), w.readPacketsDone());
        if (psn != expected) {
            // Behind: a duplicate. Ahead: responses were lost, ask again from the gap (implied NAK), once: the rest
            // of the old burst arrives ahead too and must not restart the retry each time.
            if (Psn.diff(psn, expected) > 0 && !req.retryingFrom(expected)) {
                req.goBackTo(expected);
            }
            counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        long offset = (long) w.readPacketsDone() * qp.mtuBytes;
        boolean last = op.isEnd();
        boolean sizeOk = last ? offset + payloadLength <= w.length : payloadLength == qp.mtuBytes
                && offset + payloadLength < w.length;
        if (!sizeOk) {
            counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        if (payloadLength > 0
                && !w.sges.scatter(qp.context.mrs, qp.pd, offset, pkt, payloadOffset, payloadLength)) {
            failHead(WcStatus.LOC_PROT_ERR);
            return;
        }
        int placed = w.readResponsePlaced();
        req.readResponsePlaced(psn, last);
        if (placed == w.packets()) {
            qp.retireSend(w, WcStatus.SUCCESS);
        }
        req.progressed(nowNs);
    }

    /**
     * ATOMIC ACKNOWLEDGE (rxe do_atomic): implies every request before it; completes the atomic at its PSN with
     * the original value written, in host order, into the WR's 8-byte local buffer. An earlier read or atomic still
     * missing its response was lost: the requester goes back to it (implied NAK).
     */
    private void onAtomicAck(Opcode op, MemorySegment pkt, int psn, int syndrome, long nowNs) {
        Requester req = qp.requester;
        if (!AethSyndrome.isAck(syndrome)) {
            counters.increment(Counter.RCVD_DROPPED); // an ATOMIC ACKNOWLEDGE only ever carries an ACK
            return;
        }
        if (!retireBefore(psn)) {
            return;
        }
        if (qp.sqConsumer == qp.sqProducer) {
            counters.increment(Counter.RCVD_DROPPED);
            return;
        }
        SendWqe w = qp.sqAt(qp.sqConsumer);
        if (!w.started() || !w.opcode.isAtomic() || w.firstPsn() != psn) {
            counters.increment(Counter.RCVD_DROPPED); // a replayed acknowledge of an atomic already done
            return;
        }
        atomicResult.set(ValueLayout.JAVA_LONG, 0, AtomicAckEth.origData(pkt, op.atomicAckEthOffset()));
        if (!w.sges.scatter(qp.context.mrs, qp.pd, 0, atomicResult, 0, 8)) {
            failHead(WcStatus.LOC_PROT_ERR);
            return;
        }
        req.readOrAtomicAnswered();
        req.acknowledgedThrough(psn);
        qp.retireSend(w, WcStatus.SUCCESS);
        req.progressed(nowNs);
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
            if (!w.started()) {
                return true;
            }
            if (w.isReadOrAtomic()) {
                if (Psn.diff(psn, w.firstPsn()) >= 0) {
                    int from = Psn.add(w.firstPsn(), w.readPacketsDone());
                    if (!req.retryingFrom(from)) {
                        req.goBackTo(from);
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
            if (!w.started() || w.isReadOrAtomic() || Psn.diff(w.lastPsn(), psn) >= 0) {
                return;
            }
            qp.retireSend(w, WcStatus.SUCCESS);
        }
    }

    /** Local ACK timeout: retransmit from the oldest unacknowledged PSN, or fail once retry_cnt is spent. */
    int checkTimer(long nowNs) {
        Requester req = qp.requester;
        if (!req.timerExpired(nowNs) || (qp.state != QpState.RTS && qp.state != QpState.SQD)) {
            return 0;
        }
        if (!req.hasOutstanding()) {
            req.stopTimer();
            return 0;
        }
        counters.increment(Counter.COMPLETER_RETRY_ERR);
        if (!req.spendRetry()) {
            counters.increment(Counter.RETRY_EXCEEDED_ERR);
            failHead(WcStatus.RETRY_EXC_ERR);
            return 1;
        }
        req.timedOut(nowNs);
        return 1;
    }

    /** Completes the oldest send WQE with an error and moves the QP to ERR, which flushes the rest. */
    void failHead(WcStatus status) {
        if (qp.sqConsumer != qp.sqProducer) {
            qp.retireSend(qp.sqAt(qp.sqConsumer), status);
        }
        qp.enterError();
    }
}
