package io.jrdma.cm;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A connection manager id (struct rdma_cm_id): one end of one connection, or a listener, in one
 * {@link PortSpace}. Its events arrive on the {@link EventChannel} that created it.
 *
 * <p>Active side: {@link #resolveAddr} (ADDR_RESOLVED binds the id to a device), {@link #resolveRoute}
 * (ROUTE_RESOLVED), {@link #createQp}, {@link #connect} (ESTABLISHED, or REJECTED / UNREACHABLE).
 * Passive side: {@link #bindAddr}, {@link #listen}; each CONNECT_REQUEST brings a new id, which
 * {@link #createQp}s and {@link #accept}s (ESTABLISHED when the peer's RTU arrives) or {@link #reject}s. Either side
 * {@link #disconnect}s (both get DISCONNECTED) and finally {@link #close}s. The CM moves the id's QP through its
 * states: INIT at {@link #createQp}, RTR and RTS from the peer's REQ or REP, ERR at disconnect.
 *
 * <p>Methods that start an exchange return at once; the outcome is an event. They throw
 * {@link io.jrdma.verbs.VerbsException} for a call that cannot start: EINVAL in the wrong state or with bad
 * arguments, EADDRINUSE for a taken port, EADDRNOTAVAIL for an address no device has.
 */
public interface CmId extends AutoCloseable {

    /** The channel the id's events arrive on. */
    EventChannel channel();

    /** The port space given at creation. */
    PortSpace portSpace();

    /** The application's object given at creation (rdma_cm_id.context); may be null. */
    Object userContext();

    /** The device context the id is bound to (rdma_cm_id.verbs), owned by the CM; null before it is bound. */
    Context context();

    /** The device port (rdma_cm_id.port_num); 0 before the id is bound to a device. */
    int portNum();

    /** The id's QP (rdma_cm_id.qp), null before {@link #createQp}. */
    QueuePair qp();

    /** The local address (rdma_get_local_addr); port 0 before bind, the wildcard for a listener on every device. */
    InetSocketAddress localAddress();

    /** The peer's address (rdma_get_peer_addr); null before resolveAddr or a connect request. */
    InetSocketAddress peerAddress();

    /**
     * Binds the id to a local address and port (rdma_bind_addr): the wildcard 0.0.0.0 takes every device; port 0
     * takes a free port.
     */
    void bindAddr(InetSocketAddress address);

    /**
     * Resolves {@code destination} to a device and GID (rdma_resolve_addr); {@code source} may be null (the CM
     * picks the device that reaches the destination). Outcome: ADDR_RESOLVED or ADDR_ERROR.
     */
    void resolveAddr(InetSocketAddress source, InetSocketAddress destination, Duration timeout);

    /** Resolves the path to the resolved address (rdma_resolve_route). Outcome: ROUTE_RESOLVED or ROUTE_ERROR. */
    void resolveRoute(Duration timeout);

    /**
     * Creates the id's QP on its device (rdma_create_qp): the type comes from {@code attr}; an RC or UC QP is moved
     * to INIT with the id's port and P_Key, a UD QP up to RTS with the port space's Q_Key.
     */
    QueuePair createQp(ProtectionDomain pd, QpInitAttr attr);

    /** Destroys the id's QP (rdma_destroy_qp). */
    void destroyQp();

    /** Listens for connection requests on the bound address (rdma_listen); at most {@code backlog} pending. */
    void listen(int backlog);

    /** Asks the resolved peer for a connection (rdma_connect): a REQ, or a SIDR_REQ for UD. */
    void connect(ConnParam param);

    /** Accepts the request of this (CONNECT_REQUEST) id (rdma_accept): a REP, or a SIDR_REP for UD. */
    void accept(ConnParam param);

    /** Rejects the request of this id (rdma_reject): a REJ with reason 28 (consumer), or a SIDR_REP (status 1). */
    void reject(byte[] privateData);

    /**
     * Ends the connection (rdma_disconnect): its QP goes to ERR and a DREQ (or the DREP answering one) is sent. Once
     * the connection is ending or over (DREQ out, timewait) it only moves the QP to ERR; EINVAL for an id that
     * never connected.
     */
    void disconnect();

    /**
     * Destroys the id (rdma_destroy_id): waits until its events are acknowledged, disconnects and destroys its QP if
     * the application has not, and releases its port.
     */
    @Override
    void close();
}
