package io.jrdma.soft;

import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;

/**
 * Writes a QP's work completions into one of its CQs, field by named field: {@link #of} starts one with what every
 * completion has (work request id, status, opcode), the other fields default to 0 and are set by name where the
 * completion has them, and {@link #push} appends it. One writer per QP and queue (send, receive), used by the
 * engine thread only, so nothing is allocated per completion.
 *
 * <pre>{@code qp.recvCompletions.of(wrId, WcStatus.SUCCESS, WcOpcode.RECV).byteLen(n).srcQp(qp.destQpn).push()}</pre>
 */
final class CompletionWriter {

    private final SoftCq cq;
    private final int qpNum;
    private long wrId;
    private WcStatus status;
    private WcOpcode opcode;
    private int byteLen;
    private int imm;
    private int flags;
    private int srcQp;
    private boolean solicited;

    CompletionWriter(SoftCq cq, int qpNum) {
        this.cq = cq;
        this.qpNum = qpNum;
    }

    /** Starts a completion of work request {@code wrId}; the other fields are 0 until set. */
    CompletionWriter of(long wrId, WcStatus status, WcOpcode opcode) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        byteLen = 0;
        imm = 0;
        flags = 0;
        srcQp = 0;
        solicited = false;
        return this;
    }

    /** Bytes transferred (a receive's: what was placed). */
    CompletionWriter byteLen(long bytes) {
        byteLen = (int) bytes;
        return this;
    }

    /** The message carried immediate data ({@link WcFlags#WITH_IMM}). */
    CompletionWriter immediate(int value) {
        imm = value;
        flags |= WcFlags.WITH_IMM;
        return this;
    }

    /** A SEND with Invalidate invalidated {@code rkey} ({@link WcFlags#WITH_INV}). */
    CompletionWriter invalidated(int rkey) {
        imm = rkey;
        flags |= WcFlags.WITH_INV;
        return this;
    }

    /** The receive buffer starts with a GRH ({@link WcFlags#GRH}, UD). */
    CompletionWriter grh() {
        flags |= WcFlags.GRH;
        return this;
    }

    /** The sending QP (the peer's QPN for a connected QP, the DETH's for UD). */
    CompletionWriter srcQp(int qpn) {
        srcQp = qpn;
        return this;
    }

    /** The message asked for a solicited event (its last packet's SE bit). */
    CompletionWriter solicited(boolean se) {
        solicited = se;
        return this;
    }

    /**
     * Appends the completion to the CQ.
     *
     * @return false when the CQ was full (an overrun: the completion is lost and the CQ in error); the caller moves
     *         the QP to ERR, and a responder does not acknowledge the message (rxe RESPST_ERR_CQ_OVERFLOW)
     */
    boolean push() {
        WorkCompletion wc = cq.claim();
        if (wc == null) {
            return false;
        }
        wc.fill(wrId, status, opcode, byteLen, imm, flags, qpNum, srcQp);
        if ((flags & WcFlags.WITH_INV) != 0) {
            wc.immData(0).invalidatedRkey(imm); // imm_data and invalidated_rkey share a union in ibv_wc
        }
        cq.publish(solicited || status != WcStatus.SUCCESS);
        return true;
    }
}
