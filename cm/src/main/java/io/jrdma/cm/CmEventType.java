package io.jrdma.cm;

/** What a {@link CmEvent} reports (enum rdma_cm_event_type, same order and values). */
public enum CmEventType {
    /** {@link CmId#resolveAddr} found the device and GID for the destination. */
    ADDR_RESOLVED,
    /** {@link CmId#resolveAddr} failed; {@link CmEvent#status()} is -errno. */
    ADDR_ERROR,
    /** {@link CmId#resolveRoute} found the path. */
    ROUTE_RESOLVED,
    /** {@link CmId#resolveRoute} failed; status is -errno. */
    ROUTE_ERROR,
    /** A peer asks to connect; {@link CmEvent#id()} is a new id for the connection, to accept or reject. */
    CONNECT_REQUEST,
    /** The peer accepted a connection whose id has no QP: the application completes it. */
    CONNECT_RESPONSE,
    /** A connection failed during setup (a protocol error); status is -errno. */
    CONNECT_ERROR,
    /** The peer did not answer the CM's messages (its retries ran out); status is -errno (-ETIMEDOUT). */
    UNREACHABLE,
    /** The peer rejected the connection; status is the IBTA reject reason (8: nobody listens, 28: consumer). */
    REJECTED,
    /** The connection is up: the QP is in RTS (active side) or RTR/RTS (passive side, on RTU). */
    ESTABLISHED,
    /** The connection ended (DREQ sent or received); the QP is in ERR. */
    DISCONNECTED,
    /** The device went away; the id can only be destroyed. */
    DEVICE_REMOVAL,
    /** Multicast join completed (not offered by jrdma). */
    MULTICAST_JOIN,
    /** Multicast join failed (not offered by jrdma). */
    MULTICAST_ERROR,
    /** The local address changed (not offered by jrdma). */
    ADDR_CHANGE,
    /** The connection's timewait ended: its QP number may be reused. */
    TIMEWAIT_EXIT;

    /** The rdma_cm_event_type value. */
    public int code() {
        return ordinal();
    }

    /** librdmacm's name for it, as {@code rdma_event_str} prints it ({@code RDMA_CM_EVENT_ESTABLISHED}). */
    public String eventName() {
        return "RDMA_CM_EVENT_" + name();
    }
}
