package io.jrdma.tools.perftest;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.tools.perftest.Exchange.Dest;
import io.jrdma.tools.perftest.Tool.Verb;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.locks.LockSupport;

/**
 * The test QPs of {@code -R}, connected with rdma_cm as perftest 4.5's create_rdma_cm_connection does: a handshake over
 * the {@link Exchange} (of the still empty address), one CM connection per QP, another handshake. The QPs are the CM
 * ids' own, in the TCP port space for RC and the UDP one (SIDR) for UD; the CM moves them through their states, so
 * perftest's own RTR/RTS is skipped.
 *
 * <p>Client: every id resolves the server's address (2000 ms) at once; in event order, ADDR_RESOLVED resolves the route
 * (2000 ms), ROUTE_RESOLVED creates the next QP (the first also makes the resources, on the id's device) and connects
 * with responder resources and initiator depth the out_reads of READ and atomic tests (0 otherwise), retry and RNR
 * retry counts 7, flow control off and no private data; ESTABLISHED completes one (UD: the peer's QPN, Q_Key and
 * address handle come with it, and a latency test sends the server its QPN: a 4-byte SEND with immediate, the immediate
 * the QPN). Server: binds the wildcard address at the same port and listens with a backlog of the QP count before the
 * first handshake (perftest: after it, a race its 4.5 client can lose), and for each CONNECT_REQUEST creates the next
 * QP and accepts with the request's values clamped to its out_reads (UD: its QPN; a latency test posts a 44-byte
 * receive first and, after accepting, takes the client's address from that message's GRH and completion). After the
 * accept an RC QP's min_rnr_timer is set to 12. The server does not wait for ESTABLISHED. At the end
 * (rdma_cm_disconnect_nodes, RC only) the server disconnects each connection and both sides wait for their DISCONNECTED
 * events. A client whose connections fail (an error event: the server may not be listening yet) destroys its ids and
 * starts again 100 ms later, 10 times in all.
 */
final class CmConnections implements AutoCloseable {

    /** What {@link Perftest} provides: the QPs, the UD address handles and a scratch region per QP. */
    interface Host {
        /** Creates QP {@code i} on {@code id} (the first call makes the resources on the id's device). */
        QueuePair createQp(int i, CmId id);

        /** UD: QP {@code i} sends to {@code qpn} / {@code qkey} through a handle made from {@code ah}. */
        AddressHandle udPeer(int i, AhAttr ah, int qpn, int qkey);

        /** A registered region of QP {@code i} for the UD QPN message. */
        MemorySegment scratch(int i);

        int lkey();

        /** The GID index the run uses (the source of the UD latency server's address handle). */
        int gidIndex();

        CompletionQueue sendCq();

        CompletionQueue recvCq();
    }

    private static final Duration RESOLVE = Duration.ofMillis(2000);
    private static final int RETRY_COUNT = 7;
    private static final int MIN_RNR_TIMER = 12;
    private static final int GRH = 40;
    private static final int SPIN_POLLS = 20_000;
    /** rdma_cm_client_connection: 10 tries, 100 ms apart. */
    private static final int CLIENT_TRIES = 10;
    private static final long RETRY_PAUSE_NS = 100_000_000L;

    private final Options o;
    private final int outReads;
    private final boolean ud;
    private final boolean udLatency;
    private final EventChannel channel = EventChannel.create();
    private final CmId[] ids;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private Host host;
    private int connectionIndex;
    private int connectsLeft;
    private int disconnectsLeft;

    CmConnections(Options o, int outReads) {
        this.o = o;
        this.outReads = outReads;
        this.ud = o.connection == QpType.UD;
        this.udLatency = ud && !o.tool.bw;
        this.ids = new CmId[o.numQps];
    }

    /** create_rdma_cm_connection: handshake, connections, handshake. */
    void connect(Exchange exchange, Dest empty, boolean withGid, Host h) throws IOException {
        this.host = h;
        connectsLeft = ids.length;
        PortSpace space = ud ? PortSpace.UDP : PortSpace.TCP;
        CmId listen = null;
        if (o.client()) {
            createIds(space);
        } else {
            listen = listen(space);
        }
        try {
            exchange.handshake(empty, withGid);
        } catch (IOException | RuntimeException e) {
            if (listen != null) {
                listen.close();
            }
            throw e;
        }
        if (o.client()) {
            InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(o.serverName), o.port);
            for (int attempt = 1; ; attempt++) {
                try {
                    for (CmId id : ids) {
                        id.resolveAddr(null, server, RESOLVE);
                    }
                    events(() -> connectsLeft > 0);
                    break;
                } catch (CmError e) {
                    if (attempt == CLIENT_TRIES) {
                        throw new IOException("Failed to connect RDMA CM client, tried " + CLIENT_TRIES + " times.",
                                e);
                    }
                }
                closeIds(); // rdma_cm_destroy_cma, then again after 100 ms (the server may not listen yet)
                LockSupport.parkNanos(RETRY_PAUSE_NS);
                connectionIndex = 0;
                connectsLeft = ids.length;
                disconnectsLeft = 0;
                createIds(space);
            }
        } else {
            try {
                events(() -> connectsLeft > 0);
            } finally {
                listen.close();
            }
        }
        exchange.handshake(empty, withGid);
    }

    /**
     * The server's listening id, bound to the wildcard address at the port. jrdma listens before the handshake that
     * precedes the connections (perftest after it): a client that gets the server's handshake may connect at once,
     * and perftest 4.5's client gives up on the first REJECTED (reason 8, nobody listens) it gets.
     */
    private CmId listen(PortSpace space) throws IOException {
        CmId l = channel.createId(space, null);
        try {
            l.bindAddr(new InetSocketAddress(InetAddress.getByAddress(new byte[4]), o.port));
            l.listen(ids.length);
            return l;
        } catch (RuntimeException e) {
            l.close();
            throw e;
        }
    }

    private void createIds(PortSpace space) {
        for (int i = 0; i < ids.length; i++) {
            ids[i] = channel.createId(space, i);
        }
    }

    /** An error event (ADDR_ERROR ... REJECTED): the client tries the whole connection again. */
    private static final class CmError extends IOException {
        private static final long serialVersionUID = 1L;

        CmError(String message) {
            super(message);
        }
    }

    /** rdma_cm_disconnect_nodes (RC): the server disconnects every connection; both wait for DISCONNECTED. */
    void disconnect() throws IOException {
        if (ud || disconnectsLeft == 0) {
            return;
        }
        if (!o.client()) {
            for (CmId id : ids) {
                if (id != null) {
                    id.disconnect();
                }
            }
        }
        events(() -> disconnectsLeft > 0);
    }

    private interface Condition {
        boolean holds();
    }

    private void events(Condition more) throws IOException {
        long deadline = System.nanoTime() + (o.timeoutMs == 0 ? Long.MAX_VALUE / 4 : o.timeoutMs * 1_000_000L);
        while (more.holds()) {
            long left = o.timeoutMs == 0 ? Duration.ofDays(1).toMillis() : (deadline - System.nanoTime()) / 1_000_000;
            CmEvent ev = left <= 0 ? null : channel.getEvent(Duration.ofMillis(left));
            if (ev == null) {
                throw new SocketTimeoutException("timed out waiting for an RDMA CM event");
            }
            try {
                dispatch(ev);
            } finally {
                ev.ack();
            }
        }
    }

    /** rdma_cm_events_dispatcher. */
    private void dispatch(CmEvent ev) throws IOException {
        CmId id = ev.id();
        switch (ev.type()) {
            case ADDR_RESOLVED -> id.resolveRoute(RESOLVE);
            case ROUTE_RESOLVED -> {
                int i = connectionIndex++;
                host.createQp(i, id);
                ConnParam p = connParam();
                if (readResources()) {
                    p.responderResources(outReads).initiatorDepth(outReads);
                }
                id.connect(p);
            }
            case CONNECT_REQUEST -> request(ev);
            case ESTABLISHED -> {
                if (ud && o.client()) {
                    established(index(id), ev.udParam());
                }
                if (o.client()) {
                    connectsLeft--;
                    disconnectsLeft++;
                }
            }
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> throw new CmError(
                    "RDMA CM event error:\nEvent: " + ev.type().eventName() + "; error: " + ev.status() + ".");
            case DISCONNECTED -> disconnectsLeft--;
            default -> {
            }
        }
    }

    private boolean readResources() {
        return o.tool.verb == Verb.READ || o.tool.verb == Verb.ATOMIC;
    }

    private static ConnParam connParam() {
        return new ConnParam().responderResources(0).initiatorDepth(0).flowControl(false).retryCount(RETRY_COUNT)
                .rnrRetryCount(RETRY_COUNT);
    }

    /** rdma_cm_connection_request_handler. */
    private void request(CmEvent ev) throws IOException {
        CmId id = ev.id();
        if (connectionIndex == ids.length) {
            id.reject(null);
            return;
        }
        int i = connectionIndex;
        ids[i] = id;
        Host h = host;
        QueuePair qp = h.createQp(i, id);
        ConnParam p = connParam();
        ConnParam theirs = ev.connParam();
        if (readResources() && theirs != null) {
            p.responderResources(Math.min(outReads, theirs.initiatorDepth()))
                    .initiatorDepth(Math.min(outReads, theirs.responderResources()));
        }
        MemorySegment scratch = udLatency ? host.scratch(i) : null;
        if (udLatency) {
            qp.postRecv(new RecvWr().wrId(0).sg(new Sge(scratch.address(), GRH + 4, host.lkey())));
        }
        if (ud) {
            p.qpNum(qp.qpNum());
        }
        id.accept(p);
        if (o.connection == QpType.RC) {
            try {
                qp.modify(new QpAttr().minRnrTimer(MIN_RNR_TIMER), EnumSet.of(QpAttrMask.MIN_RNR_TIMER));
            } catch (RuntimeException e) {
                // perftest ignores ibv_modify_qp's result here
            }
        }
        if (udLatency) {
            WorkCompletion c = await(host.recvCq(), "the client's QP number");
            if (c.status() != WcStatus.SUCCESS) {
                throw new IOException("Failed to poll CQ.\nBad WQE status when trying to create AH for UD connection"
                        + " in RDMA CM:\n Status: " + c.status().code() + " ; ID: " + c.wrId() + ".");
            }
            AhAttr ah = new AhAttr().dlid(c.slid()).sl(c.sl()).portNum(id.portNum()).isGlobal(true)
                    .dgid(sourceGid(scratch)).sgidIndex(h.gidIndex()).hopLimit(0xff);
            host.udPeer(i, ah, c.immData(), PortSpace.UDP_QKEY);
        }
        connectionIndex++;
        connectsLeft--;
        disconnectsLeft++;
    }

    /**
     * ibv_create_ah_from_wc's source GID: over RoCEv2 with IPv4 the 40 bytes before the message hold 20 zero bytes
     * and the IPv4 header (the source address 12 bytes into it), otherwise the GRH (its SGID at byte 8).
     */
    private static Gid sourceGid(MemorySegment grh) {
        byte[] gid = new byte[16];
        if ((grh.get(ValueLayout.JAVA_BYTE, 20) & 0xF0) == 0x40) {
            gid[10] = (byte) 0xff;
            gid[11] = (byte) 0xff;
            MemorySegment.copy(grh, ValueLayout.JAVA_BYTE, 32, gid, 12, 4);
        } else {
            MemorySegment.copy(grh, ValueLayout.JAVA_BYTE, 8, gid, 0, 16);
        }
        return Gid.of(gid);
    }

    /** rdma_cm_establish_ud_connection on the client. */
    private void established(int i, UdParam u) throws IOException {
        AddressHandle ah = host.udPeer(i, u.ahAttr(), u.qpNum(), u.qkey());
        if (!udLatency) {
            return;
        }
        QueuePair qp = ids[i].qp();
        MemorySegment scratch = host.scratch(i);
        scratch.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, qp.qpNum());
        qp.postSend(new SendWr().wrId(0).opcode(WrOpcode.SEND_WITH_IMM).immData(qp.qpNum()).signaled(true)
                .sg(new Sge(scratch.address(), 4, host.lkey())).ud(ah, u.qpNum(), u.qkey()));
        WorkCompletion c = await(host.sendCq(), "the send of our QP number");
        if (c.status() != WcStatus.SUCCESS) {
            throw new IOException("Failed to poll CQ.\nBad WQE status when trying to send UD connection parameters in"
                    + " RDMA CM:\n Status: " + c.status().code() + " ; ID: " + c.wrId() + ".");
        }
    }

    private int index(CmId id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        throw new IllegalStateException("RDMA CM event for an unknown id");
    }

    private WorkCompletion await(CompletionQueue cq, String what) throws IOException {
        long deadline = System.nanoTime() + (o.timeoutMs == 0 ? Long.MAX_VALUE / 4 : o.timeoutMs * 1_000_000L);
        for (long polls = 0; ; polls++) {
            if (cq.poll(wc, 1) == 1) {
                return wc[0];
            }
            if (polls > SPIN_POLLS) {
                if (System.nanoTime() - deadline > 0) {
                    throw new SocketTimeoutException("timed out waiting for " + what);
                }
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** Destroys the ids (the client's, and the server's accepted ones) and with them their QPs. */
    void closeIds() {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] != null) {
                CmId id = ids[i];
                ids[i] = null;
                id.close();
            }
        }
    }

    /** {@link #closeIds}, then the event channel. */
    @Override
    public void close() {
        try {
            closeIds();
        } finally {
            channel.close();
        }
    }
}
