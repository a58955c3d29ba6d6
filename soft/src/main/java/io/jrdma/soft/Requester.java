package io.jrdma.soft;

import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.AtomicEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Ieth;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Position;
import io.jrdma.wire.Psn;
import io.jrdma.wire.Reth;
import io.jrdma.wire.Transport;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The requester role of an RC QP (IBA 9.7.4, kernel rxe_req.c): turns send WQEs into packets in PSN order,
 * segmented by the path MTU, within a bounded window of unacknowledged PSNs and {@code max_rd_atomic} outstanding
 * reads. The {@link Completer} moves its cursor back for go-back-N retransmission.
 */
final class Requester {

    /** Packets one QP may send per engine pass, so one busy QP cannot starve the others or the receive path. */
    private static final int BUDGET = 32;

    private final SoftQp qp;
    private final Transmitter xmit;
    private final SendShares shares;
    private final Counters counters;

    int psn;              // next PSN to assign to a new message
    int unackedPsn;       // oldest PSN not yet acknowledged (everything before it is done)
    long next;            // SQ index of the WQE being transmitted
    int nextPacket;       // packet index within that WQE to send next
    int rdAtomicOutstanding; // reads (per request) and atomics sent for the first time and not yet answered
    int sentPsn;          // the PSN after the highest one ever transmitted: below it, a request is a retransmission
    int sinceAckReq;
    private int limitNow = 64; // the unacknowledged packets allowed in this pass (window or share)
    int window = 64;      // unacknowledged PSNs allowed
    int retryLeft;
    int rnrRetryLeft;
    long rnrWaitUntilNs;  // 0 = not waiting
    long ackDeadlineNs;   // 0 = timer disarmed
    boolean retrying;     // went back to unackedPsn and nothing was acknowledged since (rxe started_retry)

    Requester(SoftQp qp) {
        this.qp = qp;
        this.xmit = qp.context.transmitter;
        this.shares = qp.context.shares;
        this.counters = qp.context.counters;
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
        rnrWaitUntilNs = 0;
        ackDeadlineNs = 0;
        retrying = false;
    }

    int nextPsn() {
        return psn;
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

    /** Sends what the window, the read limit and the budget allow. */
    int transmit(long nowNs) {
        if (qp.unreliableRequester != null) {
            return qp.unreliableRequester.transmit(); // UC and UD: no window, no ACKs, no timers
        }
        QpState state = qp.state;
        if (state != QpState.RTS && state != QpState.SQD) {
            return 0;
        }
        if (rnrWaitUntilNs != 0) {
            if (nowNs - rnrWaitUntilNs < 0) {
                return 0;
            }
            rnrWaitUntilNs = 0;
        }
        skipRetired();
        int sent = 0;
        int limit = shares.shareFor(qp.mtuBytes, window);
        limitNow = limit;
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
            if (!w.started) {
                if (state == QpState.SQD) {
                    break; // draining (IBA 10.3.1.4): finish the message in progress, start no new one
                }
                if ((w.flags & SendFlags.FENCE) != 0 && rdAtomicOutstanding > 0) {
                    break; // IBA 10.8.3.3: a fenced request waits for earlier reads and atomics
                }
                if (!shares.mayAdmit(qp.mtuBytes)) {
                    break; // the device's QPs have their budget in flight; the last packets of each asked for ACKs
                }
                w.firstPsn = psn;
                w.packets = packetsOf(w);
                w.started = true;
                w.readPacketsDone = 0;
                w.readChunk = Math.max(1, window / Math.clamp(qp.maxRdAtomic, 1, 4));
                nextPacket = 0;
                psn = Psn.add(psn, w.packets);
            }
            int pktPsn = Psn.add(w.firstPsn, nextPacket);
            int inFlight = Psn.diff(pktPsn, unackedPsn);
            boolean askAck = false;
            if (inFlight >= limit) {
                // The share can shrink under packets sent when it was larger, none of which asked for an ACK:
                // the QP would wait for one until its timer ran out. One more packet, asking, ends that wait.
                if (sinceAckReq == 0 || w.isReadOrAtomic()) {
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
                int chunkEnd = Math.min(w.packets, (nextPacket / w.readChunk + 1) * w.readChunk);
                int chunk = chunkEnd - nextPacket;
                if (inFlight + chunk > window || (inFlight > 0 && inFlight + chunk > limit)) {
                    break; // a read alone may exceed its share: its responses land in this device's socket
                }
                sendReadRequest(w, pktPsn, chunk);
                if (first) {
                    rdAtomicOutstanding++;
                }
                nextPacket += chunk;
                sentPast(Psn.add(pktPsn, chunk));
            } else if (w.opcode.isAtomic()) {
                if (first && rdAtomicOutstanding >= Math.max(1, qp.maxRdAtomic)) {
                    break; // atomics count against max_rd_atomic as reads do
                }
                sendAtomicRequest(w, pktPsn);
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
            if (ackDeadlineNs == 0) {
                armTimer(nowNs);
            }
            if (nextPacket >= w.packets) {
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
        if (!w.started) {
            if (state == QpState.SQD || ((w.flags & SendFlags.FENCE) != 0 && rdAtomicOutstanding > 0)) {
                return false;
            }
            if (w.opcode == WrOpcode.LOCAL_INV && next != qp.sqConsumer) {
                return false; // IBA 10.6.5.1 local invalidate fence, mandatory in rxe
            }
            w.firstPsn = psn; // no packets: lastPsn() is the PSN before, so the ACK of earlier WQEs covers it
            w.packets = 0;
            w.started = true;
            w.localStatus = LocalOps.execute(qp, w);
        }
        if (w.localStatus != WcStatus.SUCCESS) {
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

    private int packetsOf(SendWqe w) {
        if (w.length == 0 || w.opcode.isAtomic()) {
            return 1;
        }
        return (int) ((w.length + qp.mtuBytes - 1) / qp.mtuBytes);
    }

    /** One RDMA READ request for response packets {@code [nextPacket, nextPacket + chunk)}. */
    private void sendReadRequest(SendWqe w, int pktPsn, int chunk) {
        long offset = (long) nextPacket * qp.mtuBytes;
        long len = Math.min(w.length - offset, (long) chunk * qp.mtuBytes);
        MemorySegment tx = xmit.packet();
        Opcode op = Opcode.RC_RDMA_READ_REQUEST;
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, true, pktPsn);
        Reth.setVa(tx, op.rethOffset(), w.remoteAddr + offset);
        Reth.setRkey(tx, op.rethOffset(), w.rkey);
        Reth.setDmaLength(tx, op.rethOffset(), (int) len);
        sinceAckReq = 0;
        xmit.send(qp, op.headerLength());
    }

    /**
     * One CmpSwap or FetchAdd request: BTH with AckReq and AtomicETH, one PSN, no payload (rxe init_req_packet).
     * A retransmission sends the same bytes with the same PSN, so the responder answers it from its resource.
     */
    private void sendAtomicRequest(SendWqe w, int pktPsn) {
        boolean cas = w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP;
        Opcode op = cas ? Opcode.RC_COMPARE_SWAP : Opcode.RC_FETCH_ADD;
        MemorySegment tx = xmit.packet();
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, true, pktPsn);
        int at = op.atomicEthOffset();
        AtomicEth.setVa(tx, at, w.remoteAddr);
        AtomicEth.setRkey(tx, at, w.rkey);
        // CmpSwap: swap, then compare; FetchAdd: the addend in the swap/add field and a zero compare field
        AtomicEth.setSwapAdd(tx, at, cas ? w.swap : w.compareAdd);
        AtomicEth.setCompare(tx, at, cas ? w.compareAdd : 0);
        sinceAckReq = 0;
        xmit.send(qp, op.headerLength());
    }

    /** One SEND or WRITE packet; false if the gather failed and the QP was moved to ERR. */
    private boolean sendDataPacket(SendWqe w, int pktPsn, boolean askAck) {
        int mtu = qp.mtuBytes;
        long offset = (long) nextPacket * mtu;
        int payload = (int) Math.min(mtu, w.length - offset);
        Position pos = position(nextPacket, w.packets);
        boolean end = pos == Position.LAST || pos == Position.ONLY;
        boolean start = pos == Position.FIRST || pos == Position.ONLY;
        Opcode op = switch (w.opcode) {
            case SEND -> Opcode.send(Transport.RC, pos, false, false);
            case SEND_WITH_IMM -> Opcode.send(Transport.RC, pos, true, false);
            case SEND_WITH_INV -> Opcode.send(Transport.RC, pos, false, true);
            case RDMA_WRITE -> Opcode.write(Transport.RC, pos, false);
            case RDMA_WRITE_WITH_IMM -> Opcode.write(Transport.RC, pos, true);
            default -> throw new IllegalStateException("unexpected opcode " + w.opcode);
        };
        // also on the last packet the window (or the QP's share of it) lets out: the responder ACKs only on request
        boolean ackReq = end || askAck || ++sinceAckReq >= Math.max(1, limitNow / 4)
                || Psn.diff(pktPsn, unackedPsn) + 1 >= limitNow;
        if (ackReq) {
            sinceAckReq = 0;
        }
        int pad = (-payload) & 3;
        // rxe (as UC): the solicited event bit only on the last packet of a SEND or an RDMA WRITE with immediate
        boolean solicited = end && (w.flags & SendFlags.SOLICITED) != 0 && w.opcode != WrOpcode.RDMA_WRITE;
        MemorySegment tx = xmit.packet();
        Bth.write(tx, 0, op.code(), solicited, false, pad, SoftLimits.PKEY_DEFAULT, qp.destQpn, ackReq, pktPsn);
        if (start && op.hasReth()) {
            Reth.setVa(tx, op.rethOffset(), w.remoteAddr);
            Reth.setRkey(tx, op.rethOffset(), w.rkey);
            Reth.setDmaLength(tx, op.rethOffset(), (int) w.length);
        }
        if (op.hasImm()) {
            ImmDt.setImm(tx, op.immOffset(), w.immData);
        }
        if (op.hasIeth()) {
            Ieth.setRkey(tx, op.iethOffset(), w.invalidateRkey);
        }
        int hdr = op.headerLength();
        if (payload > 0 && !w.inline && xmit.byReference() && Sgl.reference(qp.context.mrs, qp.pd, w.sgeAddr,
                w.sgeLength, w.sgeLkey, w.numSge, offset, payload, xmit)) {
            xmit.sendByReference(qp, hdr, payload, pad); // the kernel gathers the payload from the MRs
            return true;
        }
        if (payload > 0) {
            if (w.inline) {
                MemorySegment.copy(w.inlineData, offset, tx, hdr, payload);
            } else if (!Sgl.gather(qp.context.mrs, qp.pd, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, offset, tx,
                    hdr, payload)) {
                qp.completer.failHead(WcStatus.LOC_PROT_ERR);
                return false;
            }
        }
        for (int i = 0; i < pad; i++) {
            tx.set(ValueLayout.JAVA_BYTE, hdr + payload + i, (byte) 0);
        }
        xmit.send(qp, hdr + payload + pad);
        return true;
    }

    private static Position position(int index, int count) {
        if (count == 1) {
            return Position.ONLY;
        }
        if (index == 0) {
            return Position.FIRST;
        }
        return index == count - 1 ? Position.LAST : Position.MIDDLE;
    }

    void armTimer(long nowNs) {
        ackDeadlineNs = qp.timeout == 0 ? 0 : nowNs + ackTimeoutNs(qp.timeout);
    }

    /** IBA 9.7.6.1.3: the local ACK timeout is 4.096 us * 2^timeout. */
    static long ackTimeoutNs(int timeout) {
        return 4096L << timeout;
    }

    /**
     * Before sending: when acknowledgements retired WQEs, a go-back-N cursor still on one of them moves up to the
     * oldest unacknowledged PSN, where {@link #rewind} would put it. A retired WQE's slot is free, and a WR posted
     * since may already be in it: going on from there would start that WR ahead of the ones before it (out of
     * send-queue order, with PSNs the responder does not expect yet) and send again what was done. A go-back-N
     * that sends more than one pass's budget meets this whenever the timeout was early and the ACK only late.
     */
    void skipRetired() {
        if (next - qp.sqConsumer < 0) {
            toOldestUnacked();
        }
    }

    /**
     * Go-back-N: transmit again from the oldest unacknowledged PSN. WQEs keep their PSNs; a READ resumes after
     * the response packets it already placed.
     */
    void rewind() {
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
        if (!head.started) {
            nextPacket = 0;
        } else if (head.opcode == WrOpcode.RDMA_READ) {
            nextPacket = head.readPacketsDone;
        } else {
            nextPacket = Math.max(0, Psn.diff(unackedPsn, head.firstPsn));
        }
    }
}
