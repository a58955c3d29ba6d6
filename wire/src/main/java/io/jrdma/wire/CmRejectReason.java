package io.jrdma.wire;

/** Reject reasons of a CM REJ message (IBA table 109; the kernel's enum ib_cm_rej_reason lists the same codes). */
public enum CmRejectReason {
    /** No QP available. */
    NO_QP(1),
    /** No EE context available. */
    NO_EEC(2),
    /** No resources available. */
    NO_RESOURCES(3),
    /** Timeout: the sender gave up waiting. */
    TIMEOUT(4),
    /** Unsupported request. */
    UNSUPPORTED(5),
    /** Invalid communication id. */
    INVALID_COMM_ID(6),
    /** Invalid communication instance. */
    INVALID_COMM_INSTANCE(7),
    /** Invalid service id: the kernel's answer when nobody listens on the service id. */
    INVALID_SERVICE_ID(8),
    /** Invalid transport service type. */
    INVALID_TRANSPORT_TYPE(9),
    /** Stale connection. */
    STALE_CONN(10),
    /** RDC does not exist. */
    RDC_NOT_EXIST(11),
    /** Primary remote port GID rejected. */
    INVALID_GID(12),
    /** Primary remote port LID rejected. */
    INVALID_LID(13),
    /** Primary SL rejected. */
    INVALID_SL(14),
    /** Primary traffic class rejected. */
    INVALID_TRAFFIC_CLASS(15),
    /** Primary hop limit rejected. */
    INVALID_HOP_LIMIT(16),
    /** Primary packet rate rejected. */
    INVALID_PACKET_RATE(17),
    /** Alternate remote port GID rejected. */
    INVALID_ALT_GID(18),
    /** Alternate remote port LID rejected. */
    INVALID_ALT_LID(19),
    /** Alternate SL rejected. */
    INVALID_ALT_SL(20),
    /** Alternate traffic class rejected. */
    INVALID_ALT_TRAFFIC_CLASS(21),
    /** Alternate hop limit rejected. */
    INVALID_ALT_HOP_LIMIT(22),
    /** Alternate packet rate rejected. */
    INVALID_ALT_PACKET_RATE(23),
    /** Port CM redirect. */
    PORT_CM_REDIRECT(24),
    /** Port redirect. */
    PORT_REDIRECT(25),
    /** Invalid path MTU. */
    INVALID_MTU(26),
    /** Insufficient responder resources. */
    INSUFFICIENT_RESP_RESOURCES(27),
    /** Consumer-defined reject: rdma_reject() and rejects from the consumer carry it. */
    CONSUMER_DEFINED(28),
    /** Invalid RNR retry count. */
    INVALID_RNR_RETRY(29),
    /** Duplicate local communication id. */
    DUPLICATE_LOCAL_COMM_ID(30),
    /** Unsupported class version. */
    INVALID_CLASS_VERSION(31),
    /** Primary flow label rejected. */
    INVALID_FLOW_LABEL(32),
    /** Alternate flow label rejected. */
    INVALID_ALT_FLOW_LABEL(33);

    private static final CmRejectReason[] BY_CODE = values();

    private final int code;

    CmRejectReason(int code) {
        this.code = code;
    }

    /** The 16-bit wire code. */
    public int code() {
        return code;
    }

    /**
     * The reason for a wire code.
     *
     * @param code REJ reason field
     * @return the reason, or null for codes the kernel does not define (0, 34 and above)
     */
    public static CmRejectReason of(int code) {
        return code >= 1 && code <= BY_CODE.length ? BY_CODE[code - 1] : null;
    }
}
