package io.jrdma.cm;

/**
 * One event of an {@link EventChannel} (struct rdma_cm_event). Every event must be acknowledged, once, with
 * {@link #ack()} (rdma_ack_cm_event) or by closing it: a CM id cannot be destroyed while it has unacknowledged
 * events, and an unacknowledged CONNECT_REQUEST holds a place in its listener's backlog.
 */
public interface CmEvent extends AutoCloseable {

    /** What happened. */
    CmEventType type();

    /** The id the event is about; for CONNECT_REQUEST a new id for the incoming connection. */
    CmId id();

    /** For CONNECT_REQUEST, the listening id the request came to; null otherwise. */
    CmId listenId();

    /**
     * The status, as librdmacm gives it: 0 on success; -errno for ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR and
     * UNREACHABLE (-110 when the peer never answered); the IBTA reject reason for REJECTED (8: no listener on that
     * service id, 28: the peer's application rejected).
     */
    int status();

    /**
     * The connection parameters the peer sent (CONNECT_REQUEST: its REQ; CONNECT_RESPONSE and ESTABLISHED on the
     * active side: its REP; REJECTED: only the private data; DISCONNECTED: the DREQ's private data): a copy; null
     * for events that carry none and for UD ids.
     */
    ConnParam connParam();

    /** For UD ids (UDP port space) on CONNECT_REQUEST and ESTABLISHED: the peer's QP, Q_Key and address. */
    UdParam udParam();

    /** Shorthand for the private data of {@link #connParam()} or {@link #udParam()}; empty if none. */
    default byte[] privateData() {
        ConnParam p = connParam();
        if (p != null) {
            return p.privateData();
        }
        UdParam u = udParam();
        return u == null ? new byte[0] : u.privateData().clone();
    }

    /** Acknowledges the event (rdma_ack_cm_event); a second call throws EINVAL. */
    void ack();

    /** Acknowledges the event if it was not yet. */
    @Override
    void close();
}
