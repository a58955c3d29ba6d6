package io.jrdma.soft.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.soft.MadAddress;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A soft CM id: the application's side ({@link CmId}: bind, resolve, listen, connect, accept, reject,
 * disconnect, close) and the connection's protocol state (ib_cm's: comm ids, PSNs, path, the one message being
 * retransmitted, timewait). Everything runs under the {@link CmRegistry}'s lock; {@link CmConnection} handles what
 * arrives from the peer.
 */
final class SoftCmId extends CmConnection implements CmId {

    private static final InetSocketAddress ANY = new InetSocketAddress(anyAddress(), 0);

    private final SoftEventChannel channel;
    private final PortSpace portSpace;
    private final Object userContext;
    private InetSocketAddress local = ANY;
    private InetSocketAddress peer;
    private int boundPort = -1;
    private QueuePair qp;
    private int backlog;
    private int pendingRequests;
    private long listeningOn = -1;
    private int outstandingEvents;
    private SoftCmEvent connectRequest;
    private SoftCmId listener;

    SoftCmId(SoftEventChannel channel, PortSpace portSpace, Object userContext) {
        super(channel.registry());
        registry.addId();
        this.channel = channel;
        this.portSpace = portSpace;
        this.userContext = userContext;
    }

    /** A passive id for a request that came to {@code listener} through {@code agent}. */
    SoftCmId(SoftCmId listener, CmAgent agent, InetSocketAddress local, InetSocketAddress peer) {
        this(listener.channel, listener.portSpace, listener.userContext);
        this.listener = listener;
        this.agent = agent;
        this.local = local;
        this.peer = peer;
        channel.adopt(this);
    }

    private static InetAddress anyAddress() {
        try {
            return InetAddress.getByAddress(new byte[4]);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    // ---- CmId ----

    @Override
    public EventChannel channel() {
        return channel;
    }

    @Override
    public PortSpace portSpace() {
        return portSpace;
    }

    @Override
    public Object userContext() {
        return userContext;
    }

    @Override
    public Context context() {
        synchronized (registry) {
            return agent == null ? null : agent.context();
        }
    }

    @Override
    public int portNum() {
        synchronized (registry) {
            return agent == null ? 0 : 1;
        }
    }

    @Override
    public QueuePair qp() {
        synchronized (registry) {
            return qp;
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        synchronized (registry) {
            return local;
        }
    }

    @Override
    public InetSocketAddress peerAddress() {
        synchronized (registry) {
            return peer;
        }
    }

    @Override
    public void bindAddr(InetSocketAddress address) {
        synchronized (registry) {
            expect(CmState.IDLE, "bind");
            InetAddress ip = address.getAddress();
            CmAgent a = null;
            if (!ip.isAnyLocalAddress()) {
                SoftDevice d = registry.deviceOf(ip);
                if (d == null) {
                    throw new VerbsException(Errno.EADDRNOTAVAIL, "no soft device has the address "
                            + ip.getHostAddress());
                }
                a = registry.agent(d);
            }
            boundPort = registry.bind(this, ip, address.getPort());
            agent = a;
            local = new InetSocketAddress(ip, boundPort);
            state = CmState.ADDR_BOUND;
        }
    }

    @Override
    public void resolveAddr(InetSocketAddress source, InetSocketAddress destination, Duration timeout) {
        synchronized (registry) {
            if (state != CmState.IDLE && state != CmState.ADDR_BOUND) {
                throw invalid("resolveAddr");
            }
            SoftDevice d;
            if (source != null) {
                d = registry.deviceOf(source.getAddress());
                if (d == null) {
                    throw new VerbsException(Errno.EADDRNOTAVAIL, "no soft device has the address "
                            + source.getAddress().getHostAddress());
                }
            } else if (agent != null) {
                d = agent.device();
            } else {
                d = registry.route(destination.getAddress());
            }
            if (d == null) {
                event(CmEventType.ADDR_ERROR, -Errno.ENODEV.code(), null, null);
                return;
            }
            agent = registry.agent(d);
            if (boundPort < 0) {
                boundPort = registry.bind(this, d.address(), source == null ? 0 : source.getPort());
            }
            local = new InetSocketAddress(d.address(), boundPort);
            peer = destination;
            peerGid = Gid.fromInet(destination.getAddress());
            state = CmState.ADDR_RESOLVED;
            event(CmEventType.ADDR_RESOLVED, 0, null, null);
        }
    }

    @Override
    public void resolveRoute(Duration timeout) {
        synchronized (registry) {
            expect(CmState.ADDR_RESOLVED, "resolveRoute");
            pathMtu = agent.mtu();
            hopLimit = 64;
            // cma_get_roce_udp_flow_label: for IPv4, a hash of the source and destination ports
            flowLabel = (local.getPort() * 31 + peer.getPort()) & 0xFFFFF;
            ahAttr = new AhAttr().grh(peerGid, 1, hopLimit, 0, flowLabel).portNum(1);
            state = CmState.ROUTE_RESOLVED;
            event(CmEventType.ROUTE_RESOLVED, 0, null, null);
        }
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        synchronized (registry) {
            if (agent == null || qp != null) {
                throw invalid("createQp");
            }
            if ((portSpace == PortSpace.UDP) != (attr.qpType() == QpType.UD)) {
                throw new VerbsException(Errno.EINVAL, "a " + portSpace + " id takes "
                        + (portSpace == PortSpace.UDP ? "a UD QP" : "a connected QP") + ", not " + attr.qpType());
            }
            QueuePair q = pd.createQp(attr);
            try {
                CmQp.init(q, CmQp.qkey(portSpace));
            } catch (RuntimeException e) {
                q.close();
                throw e;
            }
            qp = q;
            return q;
        }
    }

    @Override
    public void destroyQp() {
        synchronized (registry) {
            if (qp != null) {
                qp.close();
                qp = null;
            }
        }
    }

    @Override
    public void listen(int backlog) {
        synchronized (registry) {
            if (state == CmState.IDLE) {
                bindAddr(ANY);
            }
            expect(CmState.ADDR_BOUND, "listen");
            this.backlog = backlog <= 0 ? 1024 : backlog;
            if (agent == null) {
                for (SoftDevice d : registry.devices()) {
                    registry.agent(d);
                }
            }
            listeningOn = portSpace.serviceId(boundPort);
            registry.listen(this, listeningOn);
            state = CmState.LISTEN;
        }
    }

    @Override
    public void connect(ConnParam param) {
        synchronized (registry) {
            expect(CmState.ROUTE_RESOLVED, "connect");
            boolean ud = portSpace == PortSpace.UDP;
            int max = ud ? ConnParam.MAX_SIDR_REQ_PRIVATE_DATA : ConnParam.MAX_REQ_PRIVATE_DATA;
            checkPrivateData(param, max);
            settings = CmSettings.current();
            localCommId = registry.newLocalId(this);
            tid = (long) agent.tidHigh() << 32 | (localCommId & 0xFFFFFFFFL);
            serviceId = portSpace.serviceId(peer.getPort());
            to = MadAddress.gsi(peer.getAddress());
            if (ud) {
                startSending(CmMessages.sidrReq(this, param.privateData()), settings.sidrTimeoutMs(),
                        settings.maxRetries());
                state = CmState.SIDR_REQ_SENT;
                return;
            }
            takeParams(param);
            localQpn = qp != null ? qp.qpNum() : param.qpNum();
            srq = qp != null ? false : param.srq();
            rqPsn = ThreadLocalRandom.current().nextInt() & 0xFFFFFF;
            startSending(CmMessages.req(this, param.privateData()), settings.reqTimeoutMs(), settings.maxRetries());
            state = CmState.REQ_SENT;
        }
    }

    @Override
    public void accept(ConnParam param) {
        synchronized (registry) {
            ConnParam p = param == null ? new ConnParam() : param;
            switch (state) {
                case REQ_RCVD -> acceptRequest(p);
                case REP_RCVD -> {
                    sendRtu();
                    established(null);
                }
                case SIDR_REQ_RCVD -> {
                    checkPrivateData(p, ConnParam.MAX_SIDR_REP_PRIVATE_DATA);
                    int qpn = qp != null ? qp.qpNum() : p.qpNum();
                    agent.send(CmMessages.sidrRep(tid, remoteCommId, serviceId, 0, qpn, PortSpace.UDP_QKEY,
                            p.privateData()), to);
                    state = CmState.SIDR_DONE;
                }
                default -> throw invalid("accept");
            }
        }
    }

    private void acceptRequest(ConnParam p) {
        checkPrivateData(p, ConnParam.MAX_REP_PRIVATE_DATA);
        responderResources = p.responderResources();
        initiatorDepth = p.initiatorDepth();
        rnrRetryCount = p.rnrRetryCount();
        flowControl = p.flowControl();
        localQpn = qp != null ? qp.qpNum() : p.qpNum();
        srq = qp != null ? false : p.srq();
        rqPsn = ThreadLocalRandom.current().nextInt() & 0xFFFFFF;
        if (qp != null) {
            CmQp.rtr(qp, this);
            CmQp.rts(qp, this);
        }
        startSending(CmMessages.rep(this, p.privateData()), repTimeoutMs, repRetries);
        state = CmState.REP_SENT;
    }

    @Override
    public void reject(byte[] privateData) {
        synchronized (registry) {
            byte[] pd = privateData == null ? new byte[0] : privateData;
            if (state == CmState.REQ_RCVD) {
                if (pd.length > ConnParam.MAX_REJ_PRIVATE_DATA) {
                    throw new VerbsException(Errno.EINVAL, "reject private data over "
                            + ConnParam.MAX_REJ_PRIVATE_DATA + " bytes");
                }
                agent.send(CmMessages.rej(this, 28, 0, false, pd), to);
                fail();
            } else if (state == CmState.SIDR_REQ_RCVD) {
                if (pd.length > ConnParam.MAX_SIDR_REP_PRIVATE_DATA) {
                    throw new VerbsException(Errno.EINVAL, "reject private data over "
                            + ConnParam.MAX_SIDR_REP_PRIVATE_DATA + " bytes");
                }
                agent.send(CmMessages.sidrRep(tid, remoteCommId, serviceId, 2, 0, 0, pd), to);
                state = CmState.SIDR_DONE;
            } else {
                throw invalid("reject");
            }
        }
    }

    @Override
    public void disconnect() {
        synchronized (registry) {
            if (qp != null) {
                CmQp.error(qp);
            }
            switch (state) {
                case ESTABLISHED -> {
                    startSending(CmMessages.dreq(this, null), settings.reqTimeoutMs(), settings.maxRetries());
                    state = CmState.DREQ_SENT;
                }
                case DREQ_RCVD -> {
                    sendDrep();
                    enterTimewait();
                }
                default -> throw invalid("disconnect");
            }
        }
    }

    @Override
    public void close() {
        destroy(true);
    }

    /** rdma_destroy_id: waits for retrieved events' acks (unless the channel is closing), ends the connection. */
    void destroy(boolean waitForAcks) {
        synchronized (this) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (waitForAcks && outstandingEvents > 0 && System.nanoTime() < deadline) {
                try {
                    wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        synchronized (registry) {
            if (state == CmState.CLOSED) {
                return;
            }
            endOnDestroy();
            if (qp != null) {
                CmQp.error(qp);
                qp.close();
                qp = null;
            }
            if (listeningOn >= 0) {
                registry.unlisten(this, listeningOn);
                listeningOn = -1;
            }
            if (boundPort >= 0 && listener == null) {
                registry.unbind(this, boundPort);
            }
            releaseRequestSlot();
            releaseComm();
            channel.dropEventsOf(this);
            channel.forget(this);
            state = CmState.CLOSED;
            registry.removeId();
        }
    }

    // ---- events ----

    @Override
    void event(CmEventType type, int status, ConnParam conn, UdParam ud) {
        SoftCmEvent e = new SoftCmEvent(type, this, type == CmEventType.CONNECT_REQUEST ? listener : null, status,
                conn, ud);
        if (type == CmEventType.CONNECT_REQUEST) {
            connectRequest = e;
            listener.pendingRequests++;
        }
        channel.deliver(e);
    }

    /** Whether the listener takes one more unacknowledged request (its backlog). */
    boolean backlogFull() {
        return pendingRequests >= backlog;
    }

    boolean eventRetrieved(SoftCmEvent e) {
        synchronized (registry) {
            if (state == CmState.CLOSED) {
                return false;
            }
        }
        synchronized (this) {
            outstandingEvents++;
        }
        return true;
    }

    void eventAcked(SoftCmEvent e) {
        synchronized (registry) {
            if (e == connectRequest) {
                releaseRequestSlot();
            }
        }
        synchronized (this) {
            outstandingEvents--;
            notifyAll();
        }
    }

    private void releaseRequestSlot() {
        if (connectRequest != null) {
            connectRequest = null;
            listener.pendingRequests--;
        }
    }

    // ---- helpers ----

    private void takeParams(ConnParam p) {
        responderResources = p.responderResources();
        initiatorDepth = p.initiatorDepth();
        flowControl = p.flowControl();
        retryCount = p.retryCount();
        rnrRetryCount = p.rnrRetryCount();
    }

    private static void checkPrivateData(ConnParam p, int max) {
        if (p.privateDataLength() > max) {
            throw new VerbsException(Errno.EINVAL, "private data of " + p.privateDataLength() + " bytes; at most "
                    + max);
        }
    }

    private void expect(CmState s, String what) {
        if (state != s) {
            throw invalid(what);
        }
    }

    private VerbsException invalid(String what) {
        return new VerbsException(Errno.EINVAL, what + " is not allowed in state " + state);
    }

    @Override
    QueuePair connectionQp() {
        return qp;
    }

    @Override
    public String toString() {
        return "CmId[" + portSpace + " " + local + (peer == null ? "" : " -> " + peer) + ", " + state + "]";
    }

    /** For the dispatcher: sends a MAD to this id's peer. */
    void sendToPeer(MemorySegment mad) {
        agent.send(mad, to);
    }
}
