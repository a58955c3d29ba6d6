package io.jrdma.verbs;

/** Transport service types of a queue pair (ibv_qp_type), with their libibverbs codes (IBA vol. 1 chapter 9). */
public enum QpType {
    /** IBV_QPT_RC: reliable connected. */
    RC(2),
    /** IBV_QPT_UC: unreliable connected. */
    UC(3),
    /** IBV_QPT_UD: unreliable datagram. */
    UD(4);

    private final int code;

    QpType(int code) {
        this.code = code;
    }

    /** The libibverbs code (enum ibv_qp_type). */
    public int code() {
        return code;
    }

    /** Whether the QP talks to exactly one remote QP (RC, UC), as opposed to datagrams (UD). */
    public boolean isConnected() {
        return this != UD;
    }

    /**
     * The type with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException for codes of types this library does not offer (RAW_PACKET, XRC, ...)
     */
    public static QpType of(int code) {
        return switch (code) {
            case 2 -> RC;
            case 3 -> UC;
            case 4 -> UD;
            default -> throw new IllegalArgumentException("unknown or unsupported ibv_qp_type " + code);
        };
    }
}
