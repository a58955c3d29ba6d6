package io.jrdma.verbs;

/** A port's link layer (ibv_port_attr.link_layer), with the libibverbs IBV_LINK_LAYER_* codes. */
public enum LinkLayer {
    /** IBV_LINK_LAYER_UNSPECIFIED: not reported (treated as InfiniBand by libibverbs). */
    UNSPECIFIED(0),
    /** IBV_LINK_LAYER_INFINIBAND: native InfiniBand. */
    INFINIBAND(1),
    /** IBV_LINK_LAYER_ETHERNET: RoCE. */
    ETHERNET(2);

    private static final LinkLayer[] VALUES = values();

    private final int code;

    LinkLayer(int code) {
        this.code = code;
    }

    /** The libibverbs code. */
    public int code() {
        return code;
    }

    /**
     * The link layer with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException unless 0 &lt;= code &lt;= 2
     */
    public static LinkLayer of(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown link layer " + code);
        }
        return VALUES[code];
    }
}
