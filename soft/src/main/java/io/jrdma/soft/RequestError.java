package io.jrdma.soft;

import io.jrdma.verbs.WcStatus;
import io.jrdma.wire.NakCode;

/**
 * The error classes a responder check returns (IBA 9.9.3.1, rxe_resp.c's resp_states). What an error does is the
 * transport's choice ({@link TransportRules#naksErrors}): RC NAKs it with {@link #nak}, completes the receive WQE in
 * use with {@link #recvStatus} when it has one, and moves the QP to ERR; UC and UD drop the message silently and
 * count it, except the {@link #local} errors of the receive WQE itself, which complete it with {@link #recvStatus}
 * and move the QP to ERR.
 */
enum RequestError {
    /** A MIDDLE or LAST without a FIRST, a FIRST or ONLY inside a message, or another operation in it. */
    OPCODE_SEQUENCE(NakCode.INVALID_REQUEST, null, false),
    /** An operation the QP's access flags (or responder resources) do not enable (rxe check_op_valid). */
    NOT_ENABLED(NakCode.INVALID_REQUEST, null, false),
    /** A packet's payload does not fit the path MTU, or a WRITE's packets not its DMA length (rxe check_length). */
    LENGTH(NakCode.INVALID_REQUEST, null, false),
    /**
     * The rkey does not allow the access (rxe check_rkey); a WRITE with immediate that took its receive WQE
     * completes it with a local access error.
     */
    RKEY(NakCode.REMOTE_ACCESS_ERROR, WcStatus.LOC_ACCESS_ERR, false),
    /** The region went away (deregistered, invalidated) while the message was arriving or being read. */
    REGION_GONE(NakCode.REMOTE_ACCESS_ERROR, null, false),
    /** More reads and atomics than max_dest_rd_atomic, or none allowed at all (rxe check_resource). */
    NO_RESOURCES(NakCode.INVALID_REQUEST, null, false),
    /** An atomic's address is not 8-byte aligned. */
    MISALIGNED(NakCode.INVALID_REQUEST, null, false),
    /** An opcode this responder does not take. */
    UNSUPPORTED(NakCode.INVALID_REQUEST, null, false),
    /** The receive WQE cannot hold the message (class C, LOC_LEN_ERR). */
    RECV_TOO_SMALL(NakCode.INVALID_REQUEST, WcStatus.LOC_LEN_ERR, true),
    /** The receive WQE names memory it may not write (LOC_PROT_ERR). */
    RECV_PROTECTION(NakCode.REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_PROT_ERR, true);

    /** RC: the NAK code sent for it. */
    final NakCode nak;
    /** The status the receive WQE in use completes with, or null. */
    final WcStatus recvStatus;
    /** An error of the receive WQE itself: it fails the QP on every transport. */
    final boolean local;

    RequestError(NakCode nak, WcStatus recvStatus, boolean local) {
        this.nak = nak;
        this.recvStatus = recvStatus;
        this.local = local;
    }
}
