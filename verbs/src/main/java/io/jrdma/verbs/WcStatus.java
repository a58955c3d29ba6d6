package io.jrdma.verbs;

/**
 * Completion statuses (ibv_wc_status, ibv_wc.status), with their libibverbs codes and the texts of
 * ibv_wc_status_str. Everything that goes wrong after a work request was posted is reported as one of these.
 */
public enum WcStatus {
    /** IBV_WC_SUCCESS: the operation completed successfully. */
    SUCCESS(0, "success"),
    /** IBV_WC_LOC_LEN_ERR: a local buffer was too small, or a message exceeded the port's maximum size. */
    LOC_LEN_ERR(1, "local length error"),
    /** IBV_WC_LOC_QP_OP_ERR: an internal QP consistency error was detected while processing this request. */
    LOC_QP_OP_ERR(2, "local QP operation error"),
    /** IBV_WC_LOC_EEC_OP_ERR: an internal EE context consistency error (reliable datagram only). */
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    /** IBV_WC_LOC_PROT_ERR: a local buffer is not in a valid MR of the QP's PD, or lacks the needed access. */
    LOC_PROT_ERR(4, "local protection error"),
    /** IBV_WC_WR_FLUSH_ERR: the request was outstanding, or was posted, while the QP was in the error state. */
    WR_FLUSH_ERR(5, "Work Request Flushed Error"),
    /** IBV_WC_MW_BIND_ERR: a memory window bind or a local invalidate failed. */
    MW_BIND_ERR(6, "memory management operation error"),
    /** IBV_WC_BAD_RESP_ERR: an unexpected transport opcode came back from the responder. */
    BAD_RESP_ERR(7, "bad response error"),
    /** IBV_WC_LOC_ACCESS_ERR: a protection error on a local buffer during an incoming RDMA write with immediate. */
    LOC_ACCESS_ERR(8, "local access error"),
    /** IBV_WC_REM_INV_REQ_ERR: the responder found the request invalid (NAK invalid request). */
    REM_INV_REQ_ERR(9, "remote invalid request error"),
    /** IBV_WC_REM_ACCESS_ERR: a protection error on the remote buffer (NAK remote access error). */
    REM_ACCESS_ERR(10, "remote access error"),
    /** IBV_WC_REM_OP_ERR: the responder could not complete the operation (NAK remote operational error). */
    REM_OP_ERR(11, "remote operation error"),
    /** IBV_WC_RETRY_EXC_ERR: the transport retry counter (retry_cnt) ran out without an ACK or NAK. */
    RETRY_EXC_ERR(12, "transport retry counter exceeded"),
    /** IBV_WC_RNR_RETRY_EXC_ERR: the RNR NAK retry counter (rnr_retry) ran out. */
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded"),
    /** IBV_WC_LOC_RDD_VIOL_ERR: reliable datagram domain violation (reliable datagram only). */
    LOC_RDD_VIOL_ERR(14, "local RDD violation error"),
    /** IBV_WC_REM_INV_RD_REQ_ERR: invalid reliable datagram request at the responder. */
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    /** IBV_WC_REM_ABORT_ERR: the responder aborted the operation. */
    REM_ABORT_ERR(16, "aborted error"),
    /** IBV_WC_INV_EECN_ERR: invalid EE context number (reliable datagram only). */
    INV_EECN_ERR(17, "invalid EE context number"),
    /** IBV_WC_INV_EEC_STATE_ERR: invalid EE context state (reliable datagram only). */
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    /** IBV_WC_FATAL_ERR: a fatal device error. */
    FATAL_ERR(19, "fatal error"),
    /** IBV_WC_RESP_TIMEOUT_ERR: the responder timed out. */
    RESP_TIMEOUT_ERR(20, "response timeout error"),
    /** IBV_WC_GENERAL_ERR: an error that is none of the above. */
    GENERAL_ERR(21, "general error");

    private static final WcStatus[] VALUES = values();

    private final int code;
    private final String message;

    WcStatus(int code, String message) {
        this.code = code;
        this.message = message;
    }

    /** The libibverbs code (enum ibv_wc_status). */
    public int code() {
        return code;
    }

    /** The text ibv_wc_status_str returns for this status, for example "transport retry counter exceeded". */
    public String message() {
        return message;
    }

    /** Whether this is {@link #SUCCESS}. */
    public boolean isSuccess() {
        return this == SUCCESS;
    }

    /**
     * The status with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException unless 0 &lt;= code &lt;= 21 (the tag-matching statuses are not offered)
     */
    public static WcStatus of(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown ibv_wc_status " + code);
        }
        return VALUES[code];
    }
}
