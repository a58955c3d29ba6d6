package io.jrdma.soft;

import io.jrdma.verbs.QpType;
import io.jrdma.wire.Transport;

/**
 * What a QP's transport service changes in the one {@link Requester} and the one {@link Responder}, as data (kernel
 * rxe keeps the same facts in its per-QP-type branches and its {@code rxe_opcode} table; the per-opcode facts live
 * in {@link io.jrdma.wire.Opcode}). RC is reliable connected (IBA 9.7), UC and UD the unreliable services (IBA 9.8).
 *
 * @param transport          the BTH opcode group the QP sends and accepts
 * @param acknowledged       RC: ACKs, the AckReq bit, a window of unacknowledged PSNs and the device's send shares,
 *                           go-back-N retransmission, the local ACK timeout, the {@link Completer}; reads and atomics
 * @param completesOnSend    UC, UD: a request completes once its last packet is handed to the link
 * @param segments           RC, UC: a message is cut into path-MTU packets; UD: one packet per request, with a DETH,
 *                           to the destination of the request's address handle
 * @param sequenceError      what a request whose PSN is not the expected one does at the responder
 * @param naksErrors         RC: a request the responder cannot take is NAKed (RNR, or the NAK of its error class) and
 *                           an error class moves the QP to ERR; UC, UD: it is dropped silently and counted
 * @param lastMayBeEmpty     a LAST packet may carry no payload (RC as this device has always taken it; rxe's
 *                           check_length wants 1 to MTU bytes, which UC keeps)
 * @param datagramGrh        UD: the receive buffer gets the 40-byte GRH area before the payload
 * @param sendFailureToSqe   UC, UD: a request that fails locally puts the QP in SQE (IBA 10.3.1); RC: in ERR
 */
record TransportRules(Transport transport, boolean acknowledged, boolean completesOnSend, boolean segments,
        SequenceError sequenceError, boolean naksErrors, boolean lastMayBeEmpty, boolean datagramGrh,
        boolean sendFailureToSqe) {

    /** What the responder does with a request whose PSN is not the one it expects. */
    enum SequenceError {
        /** RC: a later PSN is NAKed (PSN sequence error) once per gap; an earlier one is a duplicate. */
        NAK_ONCE,
        /** UC (rxe check_psn): the message in progress is dropped and the responder resyncs on a FIRST or ONLY. */
        DROP_AND_RESYNC,
        /** UD: every packet is a message of its own; PSNs are not checked. */
        NONE
    }

    static final TransportRules RC = new TransportRules(Transport.RC, true, false, true, SequenceError.NAK_ONCE,
            true, true, false, false);
    static final TransportRules UC = new TransportRules(Transport.UC, false, true, true,
            SequenceError.DROP_AND_RESYNC, false, false, false, true);
    static final TransportRules UD = new TransportRules(Transport.UD, false, true, false, SequenceError.NONE, false,
            false, true, true);

    static TransportRules of(QpType type) {
        return switch (type) {
            case RC -> RC;
            case UC -> UC;
            case UD -> UD;
        };
    }
}
