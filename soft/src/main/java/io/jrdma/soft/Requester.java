package io.jrdma.soft;

import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Psn;

/**
 * The requester role of a QP of any transport (IBA 9.7.4 and 9.8, kernel rxe_req.c): turns send WQEs into packets
 * in PSN order. What the transport changes is data ({@link TransportRules}):
 *
 * <ul>
 * <li><b>RC</b> ({@code acknowledged}): packets segmented by the path MTU, within a bounded window of
 *     unacknowledged PSNs (and the device's {@link SendShares}) and {@code max_rd_atomic} outstanding reads and
 *     atomics, with the AckReq bit as the window needs it and the local ACK timer armed. The {@link Completer}
 *     reports acknowledgements through the methods named for what happened ({@link #acknowledgedThrough},
 *     {@link #goBackTo}, {@link #waitRnr}, {@link #progressed}...).</li>
 * <li><b>UC</b> ({@code completesOnSend}): segmented the same, never acknowledged and never retransmitted: a
 *     request completes once its last packet is handed to the link.</li>
 * <li><b>UD</b> (not {@code segments}): one SEND ONLY packet with a DETH per request, to the destination of its
 *     address handle; completes as UC.</li>
 * </ul>
 *
 * A request that fails locally fails the QP: RC to ERR, UC and UD to SQE ({@link SoftQp#enterSendQueueError}).
 */
final class Requester {

    /** Packets one QP may send per engine pass, so one busy QP cannot starve the others or the receive path. */
    private static final int BUDGET = 32;

    private final SoftQp qp;
    private final TransportRules rules;
    private final RequestPackets packets;
    private final SendShares shares;
    private final Counters counters;
    private final CongestionWindow congestion = new CongestionWindow(); // RC: after a local ACK timeout

    private int psn;              // next PSN to assign to a new message
    private int unackedPsn;       // oldest PSN not yet acknowledged (everything before it is done)
    private long next;            // SQ index of the WQE being transmitted
    private int nextPacket;       // packet index within that WQE to send next
    private int rdAtomicOutstanding; // reads (per request) and atomics sent for the first time and not yet answered
    private int sentPsn;          // the PSN after the highest one ever transmitted: below it, a retransmission
    private int sinceAckReq;
    private int limitNow = 64;    // the unacknowledged packets allowed in this pass (window or share)
    private int window = 64;      // unacknowledged PSNs allowed
    private int retryLeft;
    private int rnrRetryLeft;
    private long rnrWaitUntilNs;  // 0 = not waiting
    private long ackDeadlineNs;   // 0 = timer disarmed
    private long armedAtNs;       // when the timer was last armed (the start of the pass that armed it)
    private boolean retrying;     // went back to unackedPsn and nothing was acknowledged since (rxe started_retry)
    /**
     * The window filled: new packets wait until half of it is acknowledged (TCP wakes a writer whose send buffer was
     * full only once half of it is free). A requester that refilled the window on every ACK would, on cores shared
     * with its peer, hand the CPU back and forth once per message; refilled by halves, it sends in bursts the peer
     * takes in one pass and acknowledges once.
     */
    private boolean refilling;

    Requester(SoftQp qp) {
        this.qp = qp;
        this.rules = qp.rules;
        this.packets = new RequestPackets(qp);
        this.shares = qp.context.shares;
        this.counters = qp.context.counters;
        congestion.reset(window); // the whole window also for a QP whose path MTU is never set
    }

    void resetPsn(int startPsn) {
        psn = startPsn;
        unackedPsn = startPsn;
        sentPsn = startPsn;
    }

    void reset() {
        next = qp.sqConsumer;
        nextPacket = 0;
        rdAtomicOutstanding = 0;
        sinceAckReq = 0;
        refilling = false;
        rnrWaitUntilNs = 0;
        ackDeadlineNs = 0;
        retrying = false;
        congestion.reset(window);
    }

    int nextPsn() {
        return psn;
    }

    /** The oldest PSN not yet acknowledged: everything before it is done. */
    int unackedPsn() {
        return unackedPsn;
    }

    /** The PSN after the highest one ever transmitted: below it, a request is a retransmission. */
    int sentPsn() {
        return sentPsn;
    }

    /** The unacknowledged PSNs the window allows (RC). */
    int window() {
        return window;
    }

    /** The packets the congestion window allows unacknowledged now: {@link #window} until a timeout (RC). */
    int congestionWindow() {
        return congestion.size();
    }

    /** Transport retries left before a timeout or sequence NAK fails the oldest WQE (RC). */
    int retryLeft() {
        return retryLeft;
    }

    /** Packets sent and not yet acknowledged (the engine's count of what the device has in flight). */
    int unacknowledged() {
        return Math.max(0, Psn.diff(sentPsn, unackedPsn));
    }

    /** How long, from {@code nowNs}, until this requester's nearest timer (ACK or RNR wait); MAX_VALUE for none. */
    long nextDeadlineNs(long nowNs) {
        long budget = Long.MAX_VALUE;
        if (ackDeadlineNs != 0) {
            budget = ackDeadlineNs - nowNs;
        }
        if (rnrWaitUntilNs != 0) {
            budget = Math.min(budget, rnrWaitUntilNs - nowNs);
        }
        return budget;
    }

    /**
     * Whether packets are on the wire unacknowledged: the retransmission timer runs only then, as rxe's runs
     * while its next PSN to send is ahead of the completer's. A message started but held back by the window or the
     * device's share has nothing to time out yet.
     */
    boolean hasOutstanding() {
        return sentPsn != unackedPsn;
    }

    /** The path MTU changed: the window follows it (control path). */
    void pathMtuChanged() {
        window = shares.windowFor(qp.mtuBytes);
        congestion.reset(window);
    }

    /** Sends what the window, the read limit and the budget allow (RC); UC and UD only the budget. */
    int transmit(long nowNs) {
        QpState state = qp.state;
        if (state != QpState.RTS && state != QpState.SQD) {
            return 0;
        }
        boolean acked = rules.acknowledged();
        int limit = 0;
        if (acked) {
            if (rnrWaitUntilNs != 0) {
                if (nowNs - rnrWaitUntilNs < 0) {
                    return 0;
                }
                rnrWaitUntilNs = 0;
            }
            skipRetired();
            limit = Math.min(shares.shareFor(qp.mtuBytes, window), congestion.size());
            limitNow = limit;
        }
        int sent = 0;
        while (sent < BUDGET) {
            if (next == qp.sqProducer) {
                break;
            }
            SendWqe w = qp.sqAt(next);
            if (w.isLocalOp()) {
                if (!runLocal(w, state)) {
                    break;
                }
                continue;
            }
            if (!w.started()) {
                if (state == QpState.SQD) {
                    break; // draining (IBA 10.3.1.4): finish the message in progress, start no new one
                }
                if ((w.flags & SendFlags.FENCE) != 0 && rdAtomicOutstanding > 0) {
                    break; // IBA 10.8.3.3: a fenced request waits for earlier reads and atomics
                }
                if (acked && !shares.mayAdmit(qp.mtuBytes)) {
                    break; // the device's QPs have their budget in flight; the last packets of each asked for ACKs
                }
                int packets = packetsOf(w);
                w.start(psn, packets, Math.max(1, window / Math.clamp(qp.maxRdAtomic, 1, 4)));
                nextPacket = 0;
                psn = Psn.add(psn, packets);
            }
            int pktPsn = Psn.add(w.firstPsn(), nextPacket);
            if (!acked) { // UC, UD: no window, no AckReq, no timer
                boolean ok = rules.segments() ? sendDataPacket(w, pktPsn, false) : sendDatagram(w);
                if (!ok) {
                    return sent; // the request failed and the QP is in SQE
                }
                sent++;
                if (++nextPacket >= w.packets()) {
                    next++;
                    nextPacket = 0;
                    if (rules.completesOnSend()) {
                        qp.retireSend(w, WcStatus.SUCCESS); // nothing will acknowledge it
                    }
                }
                continue;
            }
            int inFlight = Psn.diff(pktPsn, unackedPsn);
            if (refilling) {
                if (inFlight > limit / 2) {
                    break; // the packets asked for ACKs at least every quarter window (sendDataPacket)
                }
                refilling = false;
            }
            boolean askAck = false;
            if (inFlight >= limit) {
                // The share can shrink under packets sent when it was larger, none of which asked for an ACK:
                // the QP would wait for one until its timer ran out. One more packet, asking, ends that wait.
                if (sinceAckReq == 0 || w.isReadOrAtomic()) {
                    refilling = true;
                    break;
                }
                askAck = true;
            }
            // A retransmitted read or atomic request asks the responder to replay a resource it already holds,
            // so only first transmissions count against max_rd_atomic (and each is answered once).
            boolean first = Psn.diff(pktPsn, sentPsn) >= 0;
            if (w.opcode == WrOpcode.RDMA_READ) {
                if (first && rdAtomicOutstanding >= Math.max(1, qp.maxRdAtomic)) {
                    break;
                }
                // Requests cover fixed chunks, so one sent again after a loss (from the first response missing)
                // lies within one earlier request: a responder replays a duplicate READ only inside one resource.
                int chunkEnd = Math.min(w.packets(), (nextPacket / w.readChunk() + 1) * w.readChunk());
                int chunk = chunkEnd - nextPacket;
                if (inFlight + chunk > window || (inFlight > 0 && inFlight + chunk > limit)) {
                    break; // a read alone may exceed its share: its responses land in this device's socket
                }
                packets.readRequest(w, pktPsn, nextPacket, chunk);
                sinceAckReq = 0;
                if (first) {
                    rdAtomicOutstanding++;
                }
                nextPacket += chunk;
                sentPast(Psn.add(pktPsn, chunk));
            } else if (w.opcode.isAtomic()) {
                if (first && rdAtomicOutstanding >= Math.max(1, qp.maxRdAtomic)) {
                    break; // atomics count against max_rd_atomic as reads do
                }
                packets.atomicRequest(w, pktPsn);
                sinceAckReq = 0;
                if (first) {
                    rdAtomicOutstanding++;
                }
                nextPacket++;
                sentPast(Psn.next(pktPsn));
            } else {
                if (!sendDataPacket(w, pktPsn, askAck)) {
                    return sent; // the QP went to ERR (local protection error)
                }
                nextPacket++;
                sentPast(Psn.next(pktPsn));
            }
            sent++;
            if (Psn.diff(Psn.add(w.firstPsn(), nextPacket), unackedPsn) >= limit) {
                refilling = true; // this packet filled the window, also when it was the last this pass may send
            }
            if (ackDeadlineNs == 0) {
                armTimer(nowNs);
            }
            if (nextPacket >= w.packets()) {
                next++;
                nextPacket = 0;
            }
        }
        return sent;
    }

    /**
     * A BIND_MW or LOCAL_INV at {@link #next}: executes it once (it keeps its result across go-back-N) and steps
     * past it; false when the send queue must stop here (SQD, a fence, a local invalidate waiting for everything
     * before it to complete, or a failed local operation, which completes in error once it is the oldest WQE).
     */
    private boolean runLocal(SendWqe w, QpState state) {
        if (!w.started()) {
            if (state == QpState.SQD || ((w.flags & SendFlags.FENCE) != 0 && rdAtomicOutstanding > 0)) {
                return false;
            }
            if (w.opcode == WrOpcode.LOCAL_INV && next != qp.sqConsumer) {
                return false; // IBA 10.6.5.1 local invalidate fence, mandatory in rxe
            }
            w.startLocal(psn);
            w.executed(LocalOps.execute(qp, w));
        }
        if (w.localStatus() != WcStatus.SUCCESS) {
            LocalOps.retireExecuted(qp); // completes it now if it is the oldest WQE, else once the others have
            return false;
        }
        next++;
        nextPacket = 0;
        LocalOps.retireExecuted(qp);
        return true;
    }

    /** Notes a transmission up to {@code end}; one that was sent before is counted as retransmitted. */
    private void sentPast(int end) {
        if (Psn.diff(end, sentPsn) > 0) {
            shares.admitted(Psn.diff(end, sentPsn));
            sentPsn = end;
        } else {
            counters.increment(Counter.RETRANSMITTED_PKTS);
        }
    }

    /** PSNs a message takes: one per path-MTU segment (at least one), one for an atomic or a datagram. */
    private int packetsOf(SendWqe w) {
        if (w.length == 0 || w.opcode.isAtomic() || !rules.segments()) {
            return 1;
        }
        return (int) ((w.length + qp.mtuBytes - 1) / qp.mtuBytes);
    }

    /** One SEND or WRITE packet; false if the gather failed and the QP was moved to ERR (RC) or SQE (UC). */
    private boolean sendDataPacket(SendWqe w, int pktPsn, boolean askAck) {
        boolean end = nextPacket == w.packets() - 1;
        // RC only: also on the last packet the window (or the QP's share of it) lets out; the responder ACKs only
        // on request
        boolean ackReq = rules.acknowledged() && (end || askAck || ++sinceAckReq >= Math.max(1, limitNow / 4)
                || Psn.diff(pktPsn, unackedPsn) + 1 >= limitNow);
        if (ackReq) {
            sinceAckReq = 0;
        }
        WcStatus failed = packets.data(w, nextPacket, pktPsn, ackReq);
        return failed == null || failLocally(w, failed);
    }

    /** The one packet of a UD SEND; false if it failed and the QP was moved to SQE. */
    private boolean sendDatagram(SendWqe w) {
        WcStatus failed = packets.datagram(w);
        return failed == null || failLocally(w, failed);
    }

    /**
     * A request failed locally (its gather, or its address handle): RC completes the oldest WQE in error and moves
     * the QP to ERR, which flushes the rest; UC and UD complete this request in error and move the QP to SQE, which
     * flushes the requests behind it (IBA 10.3.1). Always false, for the caller to return.
     */
    private boolean failLocally(SendWqe w, WcStatus status) {
        if (!rules.sendFailureToSqe()) {
            qp.completer.failHead(status);
            return false;
        }
        qp.retireSend(w, status);
        next++;
        nextPacket = 0;
        qp.enterSendQueueError();
        next = qp.sqConsumer;
        return false;
    }

    // ---------------------------------------------------------------------------------- what the completer reports

    void armTimer(long nowNs) {
        armedAtNs = nowNs;
        ackDeadlineNs = qp.timeout == 0 ? 0 : nowNs + ackTimeoutNs(qp.timeout);
    }

    /**
     * The pass that began at {@code passStartNs} ended only at {@code endNs}: a timer it armed runs from then. A pass
     * stamps everything with its start, but its packets leave at its end (the transmitter's flush), and on cores
     * shared with busy processes its thread can lose the CPU in between for longer than the ACK timeout. rxe's timer
     * runs from the packet's transmission; counted from the pass's start, this requester's own preemption would time
     * out a peer that answered at once, and go-back-N would send the whole window again.
     */
    void passEnded(long passStartNs, long endNs) {
        if (ackDeadlineNs != 0 && armedAtNs == passStartNs) {
            armTimer(endNs);
        }
    }

    /** Disarms the local ACK timer (nothing outstanding, or the QP failed: an ERR QP retransmits nothing). */
    void stopTimer() {
        ackDeadlineNs = 0;
    }

    /** Whether the local ACK timer is armed and has run out at {@code nowNs}. */
    boolean timerExpired(long nowNs) {
        return ackDeadlineNs != 0 && nowNs - ackDeadlineNs >= 0;
    }

    /** IBA 9.7.6.1.3: the local ACK timeout is 4.096 us * 2^timeout. */
    static long ackTimeoutNs(int timeout) {
        return 4096L << timeout;
    }

    /** Both retry counts start over from the QP's retry_cnt and rnr_retry (RTR to RTS, forward progress). */
    void resetRetries() {
        retryLeft = qp.retryCnt;
        rnrRetryLeft = qp.rnrRetry;
    }

    /** The transport retry count starts over from retry_cnt (it was set, or a NAK acknowledged new PSNs). */
    void restartRetryCount() {
        retryLeft = qp.retryCnt;
    }

    /** The RNR retry count starts over from rnr_retry (it was set). */
    void restartRnrRetryCount() {
        rnrRetryLeft = qp.rnrRetry;
    }

    /**
     * Spends one transport retry; false when none is left. As the IBA has it (retry_cnt counts the retries after a
     * local ACK timeout or a sequence NAK; only an rnr_retry of 7 means infinite), a retry_cnt of 7 is seven retries
     * like any other count: kernel rxe's completer never spends a retry_cnt of 7 ({@code if (qp->comp.retry_cnt !=
     * 7)}), which leaves a requester whose peer died retransmitting forever (issue 18). Forward progress starts the
     * count over ({@link #progressed}).
     */
    boolean spendRetry() {
        if (retryLeft == 0) {
            return false;
        }
        retryLeft--;
        return true;
    }

    /** Spends one RNR retry; false when none is left. An rnr_retry of 7 retries forever (IBA 9.7.5.2.8). */
    boolean spendRnrRetry() {
        if (qp.rnrRetry == 7) {
            return true;
        }
        if (rnrRetryLeft == 0) {
            return false;
        }
        rnrRetryLeft--;
        return true;
    }

    /**
     * An ACK (or an ATOMIC ACKNOWLEDGE) covers {@code psn}: the oldest unacknowledged PSN moves past it; false when
     * it was already past.
     */
    boolean acknowledgedThrough(int psn) {
        int newly = Psn.diff(Psn.next(psn), unackedPsn);
        if (newly > 0) {
            unackedPsn = Psn.next(psn);
            congestion.acknowledged(newly);
            return true;
        }
        return false;
    }

    /** The read response at {@code psn} was placed; the {@code last} of a request answers that request. */
    void readResponsePlaced(int psn, boolean last) {
        congestion.acknowledged(Psn.diff(Psn.next(psn), unackedPsn));
        unackedPsn = Psn.next(psn);
        if (last) {
            readOrAtomicAnswered();
        }
    }

    /** A read request's last response or an atomic's acknowledge arrived: one fewer outstanding. */
    void readOrAtomicAnswered() {
        rdAtomicOutstanding = Math.max(0, rdAtomicOutstanding - 1);
    }

    /**
     * Go-back-N from {@code psn}: transmits again from there. Until something new is acknowledged, further NAKs
     * for the same PSN and responses from the old burst do not start it again ({@link #retryingFrom}).
     */
    void goBackTo(int psn) {
        unackedPsn = psn;
        rewind();
        retrying = true;
        congestion.probeEnded();
    }

    /** The local ACK timer ran out: go-back-N, with a congestion window of one packet ({@link CongestionWindow}). */
    void timedOut(long nowNs) {
        goBackTo(unackedPsn);
        congestion.timedOut(unacknowledged(), unackedPsn);
        armTimer(nowNs);
    }

    /** Whether a go-back-N to {@code psn} is under way and nothing was acknowledged since (rxe started_retry). */
    boolean retryingFrom(int psn) {
        return retrying && psn == unackedPsn;
    }

    /**
     * An RNR NAK for {@code psn}: transmits again from there, but not before {@code untilNs}; the ACK timer runs
     * meanwhile.
     */
    void waitRnr(int psn, long untilNs, long nowNs) {
        unackedPsn = psn;
        rewind();
        congestion.probeEnded(); // the responder refused what follows psn
        rnrWaitUntilNs = untilNs == 0 ? 1 : untilNs;
        armTimer(nowNs);
    }

    /** Whether an RNR wait is going back to {@code psn} already. */
    boolean waitingRnrFor(int psn) {
        return rnrWaitUntilNs != 0 && psn == unackedPsn;
    }

    /**
     * Something new was acknowledged: the retry counts start over, no retry is under way, and the timer runs again
     * for what is still outstanding or stops.
     */
    void progressed(long nowNs) {
        retrying = false;
        if (congestion.spuriousTimeout(unackedPsn)) {
            resumeAfterSpuriousTimeout();
        }
        resetRetries();
        if (hasOutstanding()) {
            armTimer(nowNs);
        } else {
            ackDeadlineNs = 0;
        }
    }

    /**
     * Before sending: when acknowledgements retired WQEs, a go-back-N cursor still on one of them moves up to the
     * oldest unacknowledged PSN, where {@link #rewind} would put it. A retired WQE's slot is free, and a WR posted
     * since may already be in it: going on from there would start that WR ahead of the ones before it (out of
     * send-queue order, with PSNs the responder does not expect yet) and send again what was done. A go-back-N
     * that sends more than one pass's budget meets this whenever the timeout was early and the ACK only late. So
     * does a cursor inside the head message (a long SEND or WRITE) behind what ACKs have since covered.
     */
    private void skipRetired() {
        SendWqe head = next == qp.sqConsumer && next != qp.sqProducer ? qp.sqAt(next) : null;
        if (next - qp.sqConsumer < 0) {
            toOldestUnacked();
        } else if (head != null && head.started() && !head.isLocalOp() && head.opcode != WrOpcode.RDMA_READ
                && Psn.diff(Psn.add(head.firstPsn(), nextPacket), unackedPsn) < 0) {
            toOldestUnacked(); // going back inside the head message, behind what ACKs have since covered
        }
    }

    /**
     * A timeout was spurious ({@link CongestionWindow#spuriousTimeout}): what is past the ACK is on its way too, so
     * the cursor goes back to {@link #sentPsn} instead of sending it all again behind the first copy (a packet really
     * lost is found as any other). A READ or atomic among them stays with go-back-N.
     */
    private void resumeAfterSpuriousTimeout() {
        long i = qp.sqConsumer;
        for (; i != qp.sqProducer; i++) {
            SendWqe w = qp.sqAt(i);
            if (!w.started()) {
                break;
            }
            if (w.isLocalOp()) {
                continue;
            }
            if (w.isReadOrAtomic()) {
                return;
            }
            if (Psn.diff(sentPsn, Psn.add(w.firstPsn(), w.packets())) < 0) {
                next = i;
                nextPacket = Math.max(0, Psn.diff(sentPsn, w.firstPsn()));
                return;
            }
        }
        next = i;
        nextPacket = 0;
    }

    /**
     * Go-back-N: transmit again from the oldest unacknowledged PSN. WQEs keep their PSNs; a READ resumes after
     * the response packets it already placed.
     */
    private void rewind() {
        toOldestUnacked();
        sinceAckReq = 0;
    }

    /** Puts the cursor on the oldest unacknowledged PSN: the head WQE, at its first packet not acknowledged. */
    private void toOldestUnacked() {
        next = qp.sqConsumer;
        if (next == qp.sqProducer) {
            nextPacket = 0;
            return;
        }
        SendWqe head = qp.sqAt(next);
        if (!head.started()) {
            nextPacket = 0;
        } else if (head.opcode == WrOpcode.RDMA_READ) {
            nextPacket = head.readPacketsDone();
        } else {
            nextPacket = Math.max(0, Psn.diff(unackedPsn, head.firstPsn()));
        }
    }
}
