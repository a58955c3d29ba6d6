package io.jrdma.verbs;

/** Logical port states (ibv_port_state, ibv_port_attr.state), with the libibverbs codes (IBA PortInfo PortState). */
public enum PortState {
    /** IBV_PORT_NOP: no state change. */
    NOP(0),
    /** IBV_PORT_DOWN: the link is down. */
    DOWN(1),
    /** IBV_PORT_INIT: the link is up but not configured by a subnet manager. */
    INIT(2),
    /** IBV_PORT_ARMED: configured, waiting to become active. */
    ARMED(3),
    /** IBV_PORT_ACTIVE: the port carries traffic. */
    ACTIVE(4),
    /** IBV_PORT_ACTIVE_DEFER: active, with a deferred transition to down pending. */
    ACTIVE_DEFER(5);

    private static final PortState[] VALUES = values();

    private final int code;

    PortState(int code) {
        this.code = code;
    }

    /** The libibverbs code (enum ibv_port_state). */
    public int code() {
        return code;
    }

    /**
     * The state with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException unless 0 &lt;= code &lt;= 5
     */
    public static PortState of(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown ibv_port_state " + code);
        }
        return VALUES[code];
    }
}
