package io.jrdma.verbs;

/**
 * Queue pair states (ibv_qp_state), with their libibverbs codes. The legal moves between them and the attributes
 * each move needs are in {@link QpTransitions} (IBA vol. 1 §10.3, the QP state diagram).
 */
public enum QpState {
    /** IBV_QPS_RESET: just created or reset; nothing is processed. */
    RESET(0),
    /** IBV_QPS_INIT: receive requests may be posted, but nothing is received or sent. */
    INIT(1),
    /** IBV_QPS_RTR: ready to receive; incoming requests are processed. */
    RTR(2),
    /** IBV_QPS_RTS: ready to send; both queues run. */
    RTS(3),
    /** IBV_QPS_SQD: send queue drain; no new send requests start. */
    SQD(4),
    /** IBV_QPS_SQE: send queue error (UC, UD); the receive queue still runs. */
    SQE(5),
    /** IBV_QPS_ERR: error; every outstanding and newly posted request completes with WR_FLUSH_ERR. */
    ERR(6);

    private static final QpState[] BY_CODE = new QpState[7];

    static {
        for (QpState s : values()) {
            BY_CODE[s.code] = s;
        }
    }

    private final int code;

    QpState(int code) {
        this.code = code;
    }

    /** The libibverbs code (enum ibv_qp_state). */
    public int code() {
        return code;
    }

    /**
     * The state with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException for a code that names no state (IBV_QPS_UNKNOWN included)
     */
    public static QpState of(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown ibv_qp_state " + code);
        }
        return BY_CODE[code];
    }
}
