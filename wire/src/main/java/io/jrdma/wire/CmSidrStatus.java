package io.jrdma.wire;

/** Status of a CM SIDR_REP message (IBA table 121; the kernel's enum ib_cm_sidr_status). */
public enum CmSidrStatus {
    /** The service id was resolved: QPN and Q_Key are valid. */
    SUCCESS(0),
    /** Service id not supported: the kernel's answer when nobody listens on it. */
    UNSUPPORTED(1),
    /** Rejected by the service provider. */
    REJECT(2),
    /** No QP available. */
    NO_QP(3),
    /** Redirect: the additional information holds a ClassPortInfo. */
    REDIRECT(4),
    /** Unsupported class version. */
    UNSUPPORTED_VERSION(5);

    private static final CmSidrStatus[] BY_CODE = values();

    private final int code;

    CmSidrStatus(int code) {
        this.code = code;
    }

    /** The 8-bit wire code. */
    public int code() {
        return code;
    }

    /**
     * The status for a wire code.
     *
     * @param code SIDR_REP status field
     * @return the status, or null for reserved codes (6 and above)
     */
    public static CmSidrStatus of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
