package io.jrdma.cm;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.VerbsException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * A connected RC queue pair made by the connection manager, for the common case: {@link #connect} to a host and
 * port, or {@link CmListener#accept} from one. It owns its PD, its CQ (both queues complete to it) and its QP, all
 * on the device the CM chose; {@link #close} disconnects and releases them. Built on the event API
 * ({@link EventChannel}, {@link CmId}): a connection made by {@link #connect} has its own channel, accepted ones
 * share their listener's.
 */
public final class CmConnection implements AutoCloseable {

    private final EventPump pump;
    private final boolean ownsChannel;
    private final CmId id;
    private final Status status = new Status();
    private final Duration timeout;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private byte[] peerPrivateData = new byte[0];
    private boolean closed;

    private CmConnection(EventPump pump, boolean ownsChannel, CmId id, Duration timeout) {
        this.pump = pump;
        this.ownsChannel = ownsChannel;
        this.id = id;
        this.timeout = timeout;
        pump.track(id, status);
    }

    /**
     * Connects to {@code destination}: resolves the address and route, creates the PD, CQ and QP, sends the REQ with
     * {@code options}' parameters and waits until the connection is established.
     *
     * @throws VerbsException ECONNREFUSED when the peer rejects (nobody listens, or its application said no; the
     *                        reason is in the message), EHOSTUNREACH when it never answers, ETIMEDOUT when a step
     *                        takes longer than the options' timeout, EADDRNOTAVAIL when no device reaches it
     */
    public static CmConnection connect(InetSocketAddress destination, CmOptions options) {
        EventChannel ch = EventChannel.create();
        CmConnection c = null;
        try {
            c = new CmConnection(new EventPump(ch, 0), true, ch.createId(options.portSpace(), null),
                    options.timeout());
            c.id.resolveAddr(null, destination, options.timeout());
            c.await(CmEventType.ADDR_RESOLVED, "resolving " + destination);
            c.id.resolveRoute(options.timeout());
            c.await(CmEventType.ROUTE_RESOLVED, "resolving the route to " + destination);
            c.createResources(options);
            c.id.connect(options.param());
            c.await(CmEventType.ESTABLISHED, "connecting to " + destination);
            return c;
        } catch (RuntimeException e) {
            if (c != null) {
                c.close();
            } else {
                ch.close();
            }
            throw e;
        }
    }

    /** Accepts the request of {@code request}'s id (called by {@link CmListener#accept}). */
    static CmConnection accept(EventPump pump, CmEvent request, CmOptions options) {
        CmConnection c = new CmConnection(pump, false, request.id(), options.timeout());
        try {
            ConnParam theirs = request.connParam();
            c.peerPrivateData = theirs == null ? new byte[0] : theirs.privateData();
            c.createResources(options);
            ConnParam p = new ConnParam(options.param());
            if (theirs != null) { // no more READs in flight than the peer takes, as rdma_accept(NULL) does
                p.responderResources(Math.min(p.responderResources(), theirs.initiatorDepth()));
                p.initiatorDepth(Math.min(p.initiatorDepth(), theirs.responderResources()));
            }
            c.id.accept(p);
            c.await(CmEventType.ESTABLISHED, "accepting " + c.id.peerAddress());
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void createResources(CmOptions options) {
        Context ctx = id.context();
        pd = ctx.allocPd();
        cq = ctx.createCq(options.cqEntries());
        id.createQp(pd, new QpInitAttr().qpType(options.portSpace().qpType()).sendCq(cq).recvCq(cq)
                .cap(options.cap()));
    }

    private void await(CmEventType wanted, String step) {
        boolean ok = pump.pumpUntil(() -> status.has(wanted) || status.lastError() != null, timeout);
        if (!ok || !status.has(wanted)) {
            throw EventPump.failure(step, status);
        }
        byte[] rep = status.privateData();
        if (wanted == CmEventType.ESTABLISHED && ownsChannel && rep != null) {
            peerPrivateData = rep; // the connecting side: the REP's private data
        }
    }

    /** The CM id (for its addresses, or the event API). */
    public CmId id() {
        return id;
    }

    /** The device context the CM chose. */
    public Context context() {
        return id.context();
    }

    /** The connection's protection domain: register memory here. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** The completion queue of both the send and the receive queue. */
    public CompletionQueue cq() {
        return cq;
    }

    /** The connected RC QP (in RTS). */
    public QueuePair qp() {
        return id.qp();
    }

    /** The private data the peer sent with its REQ (accepted side) or REP (connecting side); a copy. */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** The peer's address. */
    public InetSocketAddress peerAddress() {
        return id.peerAddress();
    }

    /** Whether the peer disconnected (reads pending events of this connection's channel without blocking). */
    public boolean isDisconnected() {
        pump.drain(); // pumpUntil(() -> true, ...) would return before reading anything
        return status.has(CmEventType.DISCONNECTED);
    }

    /**
     * Disconnects (the QP goes to ERR; its outstanding requests complete flushed), waits up to the options' timeout
     * for the DISCONNECTED event, then destroys the QP, CQ, PD and id (and the channel, if it is its own).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (status.has(CmEventType.ESTABLISHED)) {
                try {
                    id.disconnect();
                    pump.pumpUntil(() -> status.has(CmEventType.DISCONNECTED), timeout);
                } catch (VerbsException e) {
                    // already disconnected by the peer, or never connected: nothing to end
                }
            }
        } finally {
            pump.untrack(id);
            if (id.qp() != null) {
                id.destroyQp();
            }
            if (cq != null) {
                cq.close();
            }
            if (pd != null) {
                pd.close();
            }
            id.close();
            if (ownsChannel) {
                pump.channel().close();
            }
        }
    }

    /** What the pump saw for one connection. */
    static final class Status {
        private final Set<CmEventType> seen = EnumSet.noneOf(CmEventType.class);
        private CmEventType lastError;
        private int lastStatus;
        private byte[] privateData;

        synchronized void record(CmEvent ev) {
            CmEventType t = ev.type();
            seen.add(t);
            switch (t) {
                case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL -> {
                    lastError = t;
                    lastStatus = ev.status();
                }
                case ESTABLISHED -> privateData = ev.privateData();
                default -> {
                }
            }
        }

        synchronized boolean has(CmEventType t) {
            return seen.contains(t);
        }

        synchronized CmEventType lastError() {
            return lastError;
        }

        synchronized int lastStatus() {
            return lastStatus;
        }

        synchronized byte[] privateData() {
            return privateData;
        }
    }
}
