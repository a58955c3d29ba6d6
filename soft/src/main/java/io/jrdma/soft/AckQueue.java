package io.jrdma.soft;

import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import java.lang.foreign.MemorySegment;

/**
 * An RC responder's coalesced acknowledgement (IBA 9.7.5.1): at most one ACK or NAK waits at a time, and a later one
 * replaces it (one ACK covers every earlier PSN). It goes out once no read response is owed before it, so an
 * acknowledgement never overtakes a read response ({@link Responder#transmit}). UC and UD queue nothing.
 */
final class AckQueue {

    /** And for at most this many engine passes (the answer takes one or two: poll, post). */
    static final int HOLD_PASSES = 3;
    /** How long an ACK may wait for the application's answer: far below any usable ACK timeout (67 ms here). */
    static final long ACK_HOLD_NS = 20_000;

    private final SoftQp qp;
    private final Transmitter xmit;

    private boolean pending;
    private int psn;
    private int syndrome;
    /**
     * Invoker mode: a receive completed, so its ACK waits until this QP's requester sends something or
     * {@link #ACK_HOLD_NS} pass. The application is about to poll that completion and often answers at once; its
     * answer then goes out first (latency) and the ACK right behind it.
     */
    private boolean hold;
    private long holdSinceNs;
    private int holdPasses;

    AckQueue(SoftQp qp) {
        this.qp = qp;
        this.xmit = qp.context.transmitter;
    }

    void reset() {
        pending = false;
        hold = false;
        holdSinceNs = 0;
        holdPasses = 0;
    }

    /** Queues an acknowledgement of {@code psn} with {@code syndrome}, replacing any that waits. */
    void queue(int psn, int syndrome) {
        this.pending = true;
        this.psn = psn;
        this.syndrome = syndrome;
    }

    /** Whether a NAK waits: it acknowledges everything before it and must reach the requester. */
    boolean nakPending() {
        return pending && !AethSyndrome.isAck(syndrome);
    }

    /** A read response or atomic acknowledge now acknowledges everything before it: a waiting ACK is not needed. */
    void coveredByResponse() {
        if (pending && AethSyndrome.isAck(syndrome)) {
            pending = false;
        }
    }

    /** Forgets the waiting acknowledgement (the QP failed, or one was sent in its place). */
    void cancel() {
        pending = false;
    }

    /** A receive completed: while callers poll in a loop, its ACK waits a little for the application's answer. */
    void holdForAnswer() {
        hold = qp.context.holdsAckForAnswer();
    }

    /**
     * Sends the waiting acknowledgement, with {@code msn}, unless it is held for an answer the requester has not
     * sent yet; returns 1 either way (work done, or work left for the next pass), 0 when none waits.
     */
    int flush(long nowNs, boolean requesterSent, int msn) {
        if (!pending) {
            return 0;
        }
        if (hold && !requesterSent && AethSyndrome.isAck(syndrome)) {
            if (holdSinceNs == 0) {
                holdSinceNs = nowNs | 1;
            }
            if (++holdPasses <= HOLD_PASSES && nowNs - holdSinceNs < ACK_HOLD_NS) {
                return 1; // work left: a caller's wait loop runs the next pass at once
            }
        }
        hold = false;
        holdSinceNs = 0;
        holdPasses = 0;
        pending = false;
        sendNow(psn, syndrome, msn);
        return 1;
    }

    /** Sends the waiting acknowledgement at once if it is an ACK (the QP fails: a waiting NAK no longer matters). */
    void sendIfAck(int msn) {
        if (pending && AethSyndrome.isAck(syndrome)) {
            sendNow(psn, syndrome, msn);
        }
    }

    /** Sends an ACKNOWLEDGE with {@code syndrome} for {@code psn} at once (a NAK that fails the QP, for one). */
    void sendNow(int psn, int syndrome, int msn) {
        MemorySegment tx = xmit.packet();
        Opcode op = Opcode.RC_ACKNOWLEDGE;
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, false, psn);
        Aeth.setSyndrome(tx, op.aethOffset(), syndrome);
        Aeth.setMsn(tx, op.aethOffset(), msn);
        xmit.send(qp, op.headerLength());
    }
}
