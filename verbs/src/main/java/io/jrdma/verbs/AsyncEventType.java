package io.jrdma.verbs;

/** Asynchronous event types (ibv_event_type), with the libibverbs codes. */
public enum AsyncEventType {
    /** IBV_EVENT_CQ_ERR: a CQ overran; it is in error. */
    CQ_ERR(0),
    /** IBV_EVENT_QP_FATAL: the QP hit an error not tied to one work request and is in ERR. */
    QP_FATAL(1),
    /** IBV_EVENT_QP_REQ_ERR: the QP received an invalid request (NAK invalid request sent) and is in ERR. */
    QP_REQ_ERR(2),
    /** IBV_EVENT_QP_ACCESS_ERR: a remote access violation at the responder; the QP is in ERR. */
    QP_ACCESS_ERR(3),
    /** IBV_EVENT_COMM_EST: the first packet arrived on a QP in RTR. */
    COMM_EST(4),
    /** IBV_EVENT_SQ_DRAINED: a QP in SQD has no outstanding send requests left. */
    SQ_DRAINED(5),
    /** IBV_EVENT_PATH_MIG. */
    PATH_MIG(6),
    /** IBV_EVENT_PATH_MIG_ERR. */
    PATH_MIG_ERR(7),
    /** IBV_EVENT_DEVICE_FATAL: the device failed; every resource is unusable. */
    DEVICE_FATAL(8),
    /** IBV_EVENT_PORT_ACTIVE: the port came up. */
    PORT_ACTIVE(9),
    /** IBV_EVENT_PORT_ERR: the port went down. */
    PORT_ERR(10),
    /** IBV_EVENT_LID_CHANGE. */
    LID_CHANGE(11),
    /** IBV_EVENT_PKEY_CHANGE. */
    PKEY_CHANGE(12),
    /** IBV_EVENT_SM_CHANGE. */
    SM_CHANGE(13),
    /** IBV_EVENT_SRQ_ERR. */
    SRQ_ERR(14),
    /** IBV_EVENT_SRQ_LIMIT_REACHED: an armed SRQ fell below its limit; the limit is disarmed. */
    SRQ_LIMIT_REACHED(15),
    /** IBV_EVENT_QP_LAST_WQE_REACHED: a QP on an SRQ went to ERR and will take no more receive requests. */
    QP_LAST_WQE_REACHED(16),
    /** IBV_EVENT_CLIENT_REREGISTER. */
    CLIENT_REREGISTER(17),
    /** IBV_EVENT_GID_CHANGE: the GID table changed. */
    GID_CHANGE(18),
    /** IBV_EVENT_WQ_FATAL. */
    WQ_FATAL(19);

    private static final AsyncEventType[] VALUES = values();

    private final int code;

    AsyncEventType(int code) {
        this.code = code;
    }

    /** The libibverbs code. */
    public int code() {
        return code;
    }

    /**
     * The type with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException for unknown codes
     */
    public static AsyncEventType of(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown ibv_event_type " + code);
        }
        return VALUES[code];
    }
}
