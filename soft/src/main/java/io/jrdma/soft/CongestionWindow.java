package io.jrdma.soft;

import io.jrdma.wire.Psn;

/**
 * How many packets an RC requester may keep unacknowledged once its local ACK timer has run out: a timeout says the
 * peer, or the path to it, was holding more than it could answer within the timeout. Go-back-N alone would then send
 * the whole window again behind the packets the peer had not yet taken: against a peer slower than the window (a
 * kernel Soft-RoCE in an emulated guest takes 2,000 - 3,000 packets a second), every timeout doubles its queue, the
 * next timeout comes sooner, and a QP that is answered, only late, spends its retries and fails with
 * RETRY_EXC_ERR while most of what it sends is duplicates.
 *
 * <p>The answer is TCP's to a retransmission timeout (RFC 5681, 3.1): the window falls to one packet (the
 * retransmission of the oldest unacknowledged one, which asks for an ACK) and the threshold to half what was in
 * flight; each acknowledgement then widens the window by the packets it acknowledges up to the threshold (slow
 * start) and by one packet per window's worth above it (congestion avoidance), up to the requester's own window.
 * Losses a sequence NAK reports change nothing here: the peer answered, and a fault-injected or overrun packet is
 * not a slow peer. A requester never timed out runs at its whole window, as before. The first ACK after a timeout
 * that covers more than the packet sent again shows the timeout spurious (F-RTO, RFC 5682, {@link #spuriousTimeout}).
 *
 * <p>Kernel rxe has no such window (and never fails a retry_cnt of 7, {@link Requester#spendRetry}); an RDMA NIC
 * relies on a lossless fabric or DCQCN for the same. Owned by one {@link Requester}; engine thread only.
 */
final class CongestionWindow {

    private int max = 1;       // the requester's window: the most this ever allows
    private int size = 1;      // packets allowed unacknowledged now
    private int threshold = 1; // where slow start ends
    private int acked;         // packets acknowledged towards the next one-packet step above the threshold
    private boolean probing;   // a timeout sent the packet at probePsn again, and no ACK has come since
    private int probePsn;

    /** The whole of {@code window} from now on (the QP's path MTU was set, or the QP was reset). */
    void reset(int window) {
        max = Math.max(1, window);
        size = max;
        threshold = max;
        acked = 0;
        probing = false;
    }

    /** Packets allowed unacknowledged now. */
    int size() {
        return size;
    }

    /** Where slow start ends (packets). */
    int threshold() {
        return threshold;
    }

    /** The local ACK timer ran out with {@code inFlight} packets unacknowledged, the oldest at {@code oldestPsn}. */
    void timedOut(int inFlight, int oldestPsn) {
        threshold = Math.max(2, Math.min(inFlight, size) / 2);
        size = 1;
        acked = 0;
        probing = true;
        probePsn = oldestPsn;
    }

    /** Go-back-N for another reason (a sequence or RNR NAK): no ACK can tell any more whether a timeout was needed. */
    void probeEnded() {
        probing = false;
    }

    /**
     * The first acknowledgement since a timeout, up to (not including) {@code unackedPsn}: true when it covers more
     * than the packet sent again, so the peer had the packets sent before and only answered late.
     */
    boolean spuriousTimeout(int unackedPsn) {
        if (!probing) {
            return false;
        }
        probing = false;
        return Psn.diff(unackedPsn, Psn.next(probePsn)) > 0;
    }

    /** An acknowledgement covered {@code packets} more packets. */
    void acknowledged(int packets) {
        if (size >= max || packets <= 0) {
            return;
        }
        if (size < threshold) {
            size = Math.min(threshold, size + packets);
            return;
        }
        acked += packets;
        if (acked >= size) {
            acked -= size;
            size++;
        }
    }
}
