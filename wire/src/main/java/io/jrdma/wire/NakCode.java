package io.jrdma.wire;

/** NAK codes, the low five bits of an AETH syndrome of type NAK (IBA 9.7.5.2). */
public enum NakCode {
    /** PSN sequence error: the responder saw a PSN gap; the requester retransmits from the AETH's PSN. */
    PSN_SEQUENCE_ERROR(0),
    /** Invalid request: unsupported opcode, bad length, or an operation the QP does not allow. */
    INVALID_REQUEST(1),
    /** Remote access error: rkey, bounds or access rights check failed. */
    REMOTE_ACCESS_ERROR(2),
    /** Remote operational error: the responder could not complete the request (e.g. too-small receive buffer). */
    REMOTE_OPERATIONAL_ERROR(3),
    /** Invalid RD request (Reliable Datagram only). */
    INVALID_RD_REQUEST(4);

    private static final NakCode[] BY_CODE = values();

    private final int code;

    NakCode(int code) {
        this.code = code;
    }

    /** The 5-bit wire code. */
    public int code() {
        return code;
    }

    /**
     * The NAK code for a 5-bit value.
     *
     * @param code syndrome value bits
     * @return the NAK code, or null for reserved values (5..31)
     */
    public static NakCode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
