package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.wire.Opcode;

/**
 * The responder's checks of a request that has its expected PSN, in rxe_resp.c's order (check_op_seq,
 * check_op_valid, check_length), each returning the {@link RequestError} it finds or null. The PSN check itself
 * and what an error does depend on the transport and live in {@link Responder}; the rkey check is part of placing
 * a WRITE ({@link Placement#startWrite}) and of accepting a READ or an atomic.
 */
final class ResponderChecks {

    /** No message in progress. */
    static final int NONE = 0;
    /** A multi-packet SEND in progress. */
    static final int IN_SEND = 1;
    /** A multi-packet RDMA WRITE in progress. */
    static final int IN_WRITE = 2;

    private ResponderChecks() {
    }

    /**
     * rxe check_op_seq: outside a message only a FIRST or ONLY (or a request without payload: READ, atomic) may
     * come; inside one only a MIDDLE or LAST of the same operation.
     */
    static RequestError opcodeSequence(int inMessage, Opcode op) {
        boolean ok;
        if (inMessage == NONE) {
            ok = op.isStart() || !op.hasPayload();
        } else if (op.isStart() || !op.hasPayload()) {
            ok = false;
        } else {
            ok = inMessage == IN_SEND ? op.isSend() : op.isWrite();
        }
        return ok ? null : RequestError.OPCODE_SEQUENCE;
    }

    /**
     * rxe check_op_valid, check_resource: whether the QP lets peers run {@code op}: qp_access_flags, and
     * max_dest_rd_atomic for READs. An RDMA operation the flags do not enable, or a READ at a QP without responder
     * resources, is an invalid request (class C), not an access error.
     */
    static RequestError operation(SoftQp qp, Opcode op) {
        boolean ok = true;
        if (op.isWrite()) {
            ok = (qp.accessFlags & Access.REMOTE_WRITE) != 0;
        } else if (op.isReadRequest()) {
            ok = (qp.accessFlags & Access.REMOTE_READ) != 0 && qp.maxDestRdAtomic > 0;
        }
        return ok ? null : RequestError.NOT_ENABLED;
    }

    /**
     * rxe check_length: FIRST and MIDDLE carry exactly one path MTU, ONLY up to one, LAST 1 byte to one (or none,
     * where the transport's {@link TransportRules#lastMayBeEmpty} allows it).
     */
    static RequestError length(TransportRules rules, int mtu, Opcode op, int payloadLength) {
        boolean ok = op.isEnd()
                ? payloadLength <= mtu && (payloadLength > 0 || op.isOnly() || rules.lastMayBeEmpty())
                : payloadLength == mtu;
        return ok ? null : RequestError.LENGTH;
    }
}
