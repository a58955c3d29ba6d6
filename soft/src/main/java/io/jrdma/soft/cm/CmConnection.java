package io.jrdma.soft.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.UdParam;
import io.jrdma.soft.MadAddress;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QueuePair;
import io.jrdma.wire.CmRej;
import io.jrdma.wire.CmReq;
import io.jrdma.wire.CmSidrReq;
import io.jrdma.wire.CmaHeader;
import java.lang.foreign.MemorySegment;

/**
 * The IB CM protocol state of one id (ib_cm's cm_id_private): comm ids, the path and QP parameters both sides
 * agreed, the one message being retransmitted until answered, timewait; and what the id does with each message
 * from its peer. All under the {@link CmRegistry}'s lock.
 */
abstract class CmConnection {

    final CmRegistry registry;
    CmAgent agent;
    CmState state = CmState.IDLE;
    CmSettings settings = CmSettings.current();
    MadAddress to;
    long tid;
    long serviceId;
    int localCommId;
    int remoteCommId;
    long remoteCaGuid;
    CmRegistry.RemoteKey remoteKey;
    int localQpn;
    int remoteQpn;
    int rqPsn;
    int sqPsn;
    Mtu pathMtu = Mtu.MTU_1024;
    Gid peerGid;
    AhAttr ahAttr;
    int hopLimit = 64;
    int flowLabel;
    int responderResources;
    int initiatorDepth;
    boolean flowControl = true;
    int retryCount = 7;
    int rnrRetryCount = 7;
    boolean srq;
    long repTimeoutMs;
    int repRetries;
    private MemorySegment pending;
    private long timeoutMs;
    private int retriesLeft;
    private long deadline;
    private MemorySegment lastRtu;

    CmConnection(CmRegistry registry) {
        this.registry = registry;
    }

    abstract void event(CmEventType type, int status, ConnParam conn, UdParam ud);

    abstract QueuePair connectionQp();

    /** The local address (rdma_get_local_addr). */
    public abstract java.net.InetSocketAddress localAddress();

    /** The peer's address (rdma_get_peer_addr). */
    public abstract java.net.InetSocketAddress peerAddress();

    // ---- accessors for CmMessages and CmQp ----

    CmAgent agent() {
        return agent;
    }

    CmSettings settings() {
        return settings;
    }

    long tid() {
        return tid;
    }

    long serviceId() {
        return serviceId;
    }

    int localCommId() {
        return localCommId;
    }

    int remoteCommId() {
        return remoteCommId;
    }

    int localQpn() {
        return localQpn;
    }

    int remoteQpn() {
        return remoteQpn;
    }

    int rqPsn() {
        return rqPsn;
    }

    int sqPsn() {
        return sqPsn;
    }

    Mtu pathMtu() {
        return pathMtu;
    }

    Gid peerGid() {
        return peerGid;
    }

    AhAttr ahAttr() {
        return ahAttr;
    }

    int hopLimit() {
        return hopLimit;
    }

    int flowLabel() {
        return flowLabel;
    }

    int responderResources() {
        return responderResources;
    }

    int initiatorDepth() {
        return initiatorDepth;
    }

    boolean flowControl() {
        return flowControl;
    }

    int retryCount() {
        return retryCount;
    }

    int rnrRetryCount() {
        return rnrRetryCount;
    }

    boolean srq() {
        return srq;
    }

    CmState state() {
        return state;
    }

    long deadline() {
        return deadline;
    }

    // ---- sending and timers ----

    /** Sends {@code mad} and resends it every {@code timeout} ms, {@code retries} times, until answered. */
    void startSending(MemorySegment mad, long timeout, int retries) {
        pending = mad;
        timeoutMs = Math.max(1, timeout);
        retriesLeft = retries;
        deadline = System.nanoTime() + timeoutMs * 1_000_000;
        agent.watch((SoftCmId) this);
        agent.send(mad, to);
    }

    /** The answer came: stop resending. */
    void stopSending() {
        pending = null;
        agent.unwatch((SoftCmId) this);
    }

    /** Adds {@code extraMs} to the wait for the answer (an MRA). */
    void extendWait(long extraMs) {
        if (pending != null) {
            deadline = System.nanoTime() + (extraMs + timeoutMs) * 1_000_000;
        }
    }

    /** The agent's thread: the deadline passed. */
    void timerFired() {
        if (state == CmState.TIMEWAIT) {
            agent.unwatch((SoftCmId) this);
            releaseRemote();
            state = CmState.DISCONNECTED;
            event(CmEventType.TIMEWAIT_EXIT, 0, null, null);
            return;
        }
        if (pending == null) {
            agent.unwatch((SoftCmId) this);
            return;
        }
        if (retriesLeft > 0) {
            retriesLeft--;
            deadline = System.nanoTime() + timeoutMs * 1_000_000;
            agent.count(CmCounter.RETRANSMISSIONS);
            agent.send(pending, to);
            return;
        }
        stopSending();
        agent.count(CmCounter.TIMEOUTS);
        switch (state) {
            case DREQ_SENT -> {
                enterTimewait();
                event(CmEventType.DISCONNECTED, -Errno.ETIMEDOUT.code(), null, null);
            }
            case REQ_SENT, REP_SENT, SIDR_REQ_SENT -> {
                fail();
                event(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT.code(), null, null);
            }
            default -> {
            }
        }
    }

    /** Timewait (cm_enter_timewait): the comm ids stay known for the ACK timeout, then TIMEWAIT_EXIT. */
    void enterTimewait() {
        stopSending();
        state = CmState.TIMEWAIT;
        deadline = System.nanoTime() + CmSettings.toMs(settings.ackTimeout()) * 1_000_000;
        agent.watch((SoftCmId) this);
    }

    /** The connection failed or was refused: back to idle, the peer forgotten. */
    void fail() {
        stopSending();
        releaseRemote();
        state = CmState.FAILED;
    }

    void releaseRemote() {
        if (remoteKey != null) {
            registry.removeRemote(remoteKey, (SoftCmId) this);
            remoteKey = null;
        }
    }

    /** Releases every table entry of the id (it is being destroyed). */
    void releaseComm() {
        if (agent != null) {
            stopSending();
        }
        releaseRemote();
        if (localCommId != 0) {
            registry.releaseLocalId(localCommId);
            localCommId = 0;
        }
    }

    void sendRtu() {
        lastRtu = CmMessages.rtu(this);
        agent.send(lastRtu, to);
    }

    void sendDrep() {
        agent.send(CmMessages.drep(tid, localCommId, remoteCommId), to);
    }

    void established(ConnParam fromRep) {
        state = CmState.ESTABLISHED;
        event(CmEventType.ESTABLISHED, 0, fromRep, null);
    }

    /** What destroying the id says to its peer (cm_destroy_id). */
    void endOnDestroy() {
        switch (state) {
            case REQ_SENT -> {
                byte[] guid = new byte[8];
                java.nio.ByteBuffer.wrap(guid).putLong(agent.guid());
                MemorySegment rej = CmMessages.rej(this, 4, CmRej.MESSAGE_OTHER, true, null);
                agent.send(rej, to);
            }
            case REQ_RCVD -> agent.send(CmMessages.rej(this, 28, CmRej.MESSAGE_REQ, false, null), to);
            case REP_SENT, REP_RCVD -> agent.send(CmMessages.rej(this, 28,
                    state == CmState.REP_RCVD ? CmRej.MESSAGE_REP : CmRej.MESSAGE_OTHER, true, null), to);
            case ESTABLISHED -> agent.send(CmMessages.dreq(this, null), to);
            case DREQ_RCVD -> sendDrep();
            case SIDR_REQ_RCVD -> agent.send(CmMessages.sidrRep(tid, remoteCommId, serviceId, 2, 0, 0, null), to);
            default -> {
            }
        }
    }

    // ---- from the peer ----

    /** A REP for our REQ (cm_rep_handler); a duplicate in ESTABLISHED is answered with the RTU again. */
    void onRep(int peerCommId, long peerGuid, int peerQpn, int peerPsn, int peerResp, int peerInit, ConnParam p) {
        if (state == CmState.ESTABLISHED && peerCommId == remoteCommId && lastRtu != null) {
            agent.count(CmCounter.DUPLICATES);
            agent.send(lastRtu, to);
            return;
        }
        if (state != CmState.REQ_SENT) {
            agent.count(state == CmState.REP_RCVD ? CmCounter.DUPLICATES : CmCounter.DROPPED_UNKNOWN_ID);
            return;
        }
        stopSending();
        remoteCommId = peerCommId;
        remoteCaGuid = peerGuid;
        remoteKey = new CmRegistry.RemoteKey(peerCommId, peerGuid);
        registry.putRemote(remoteKey, (SoftCmId) this);
        remoteQpn = peerQpn;
        sqPsn = peerPsn;
        initiatorDepth = peerResp;
        responderResources = peerInit;
        QueuePair qp = connectionQp();
        if (qp == null) {
            state = CmState.REP_RCVD;
            event(CmEventType.CONNECT_RESPONSE, 0, p, null);
            return;
        }
        try {
            CmQp.rtr(qp, this);
            CmQp.rts(qp, this);
        } catch (RuntimeException e) {
            agent.send(CmMessages.rej(this, 3, CmRej.MESSAGE_REP, true, null), to);
            fail();
            event(CmEventType.CONNECT_ERROR, -Errno.EINVAL.code(), null, null);
            return;
        }
        sendRtu();
        established(p);
    }

    void onRtu() {
        if (state != CmState.REP_SENT) {
            agent.count(CmCounter.DROPPED_UNKNOWN_ID);
            return;
        }
        stopSending();
        established(null);
    }

    void onMra(int serviceTimeout) {
        if (state == CmState.REQ_SENT || state == CmState.REP_SENT) {
            extendWait(CmSettings.toMs(serviceTimeout) + CmSettings.toMs(settings.ackTimeout()));
        }
    }

    /** A REJ: the peer refused (REQ or REP sent) or gave up on the connection. */
    void onRej(int reason, byte[] privateData) {
        switch (state) {
            case REQ_SENT, REP_SENT, REP_RCVD -> {
                fail();
                event(CmEventType.REJECTED, reason, new ConnParam().privateData(privateData), null);
            }
            case ESTABLISHED -> {
                enterTimewait();
                event(CmEventType.DISCONNECTED, 0, null, null);
            }
            default -> agent.count(CmCounter.DROPPED_UNKNOWN_ID);
        }
    }

    /** A DREQ (cm_dreq_handler): DISCONNECTED; a duplicate in timewait gets the DREP again. */
    void onDreq(long dreqTid, byte[] privateData) {
        switch (state) {
            case ESTABLISHED, REP_SENT -> {
                stopSending();
                tid = dreqTid;
                state = CmState.DREQ_RCVD;
                event(CmEventType.DISCONNECTED, 0, new ConnParam().privateData(privateData), null);
            }
            case DREQ_SENT -> {
                // both sides disconnected at once: answer, and this side's DREQ needs no answer any more
                tid = dreqTid;
                sendDrep();
                enterTimewait();
                event(CmEventType.DISCONNECTED, 0, new ConnParam().privateData(privateData), null);
            }
            case TIMEWAIT, DISCONNECTED -> {
                agent.count(CmCounter.DUPLICATES);
                agent.send(CmMessages.drep(dreqTid, localCommId, remoteCommId), to);
            }
            default -> agent.count(CmCounter.DUPLICATES);
        }
    }

    void onDrep(byte[] privateData) {
        if (state != CmState.DREQ_SENT) {
            agent.count(CmCounter.DROPPED_UNKNOWN_ID);
            return;
        }
        enterTimewait();
        event(CmEventType.DISCONNECTED, 0, new ConnParam().privateData(privateData), null);
    }

    void onSidrRep(int status, int qpn, int qkey, byte[] privateData) {
        if (state != CmState.SIDR_REQ_SENT) {
            agent.count(CmCounter.DUPLICATES);
            return;
        }
        stopSending();
        state = CmState.SIDR_DONE;
        if (status != 0) {
            event(CmEventType.UNREACHABLE, status, null, null);
            return;
        }
        event(CmEventType.ESTABLISHED, 0, null, new UdParam(qpn, qkey, new AhAttr().copyFrom(ahAttr), privateData));
    }

    // ---- a passive id takes the request ----

    /** Takes the connection's parameters from a REQ (cm_req_handler, cm_format_paths_from_req). */
    void takeReq(MemorySegment m, MadAddress from) {
        settings = CmSettings.current();
        to = from;
        tid = io.jrdma.wire.Mad.transactionId(m, 0);
        serviceId = CmReq.serviceId(m, 0);
        localCommId = registry.newLocalId((SoftCmId) this);
        remoteCommId = CmReq.localCommId(m, 0);
        remoteCaGuid = CmReq.localCaGuid(m, 0);
        remoteKey = new CmRegistry.RemoteKey(remoteCommId, remoteCaGuid);
        registry.putRemote(remoteKey, (SoftCmId) this);
        remoteQpn = CmReq.localQpn(m, 0);
        sqPsn = CmReq.startingPsn(m, 0);
        Mtu reqMtu = Mtu.of(CmReq.pathPacketPayloadMtu(m, 0));
        pathMtu = reqMtu == null || reqMtu.bytes() > agent.mtu().bytes() ? agent.mtu() : reqMtu;
        byte[] gid = new byte[16];
        CmReq.primaryLocalPortGid(m, 0, gid);
        peerGid = Gid.of(gid);
        hopLimit = CmReq.primaryHopLimit(m, 0);
        flowLabel = CmReq.primaryFlowLabel(m, 0);
        ahAttr = new AhAttr().grh(peerGid, 1, hopLimit, CmReq.primaryTrafficClass(m, 0), flowLabel)
                .sl(CmReq.primarySl(m, 0)).portNum(1);
        responderResources = CmReq.initiatorDepth(m, 0);
        initiatorDepth = CmReq.responderResources(m, 0);
        flowControl = CmReq.endToEndFlowControl(m, 0);
        retryCount = CmReq.retryCount(m, 0);
        rnrRetryCount = CmReq.rnrRetryCount(m, 0);
        srq = CmReq.srq(m, 0);
        repTimeoutMs = CmSettings.toMs(CmReq.localCmResponseTimeout(m, 0));
        repRetries = CmReq.maxCmRetries(m, 0);
        state = CmState.REQ_RCVD;
    }

    /** The CONNECT_REQUEST parameters of the REQ just taken (cm_format_req_event, as rdma_cm passes them on). */
    ConnParam requestParam(MemorySegment m) {
        return new ConnParam().responderResources(responderResources).initiatorDepth(initiatorDepth)
                .flowControl(flowControl).retryCount(retryCount).rnrRetryCount(rnrRetryCount).srq(srq)
                .qpNum(remoteQpn).privateData(CmMessages.get(m, CmReq.PRIVATE_DATA + CmaHeader.LENGTH,
                        CmReq.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH));
    }

    /** Takes a SIDR_REQ (cm_sidr_req_handler); the request id is kept as the remote comm id. */
    void takeSidrReq(MemorySegment m, MadAddress from) {
        settings = CmSettings.current();
        to = from;
        tid = io.jrdma.wire.Mad.transactionId(m, 0);
        serviceId = CmSidrReq.serviceId(m, 0);
        remoteCommId = CmSidrReq.requestId(m, 0);
        remoteKey = new CmRegistry.RemoteKey(remoteCommId, CmMessages.ipv4(from.address()));
        registry.putRemote(remoteKey, (SoftCmId) this);
        peerGid = from.gid();
        ahAttr = new AhAttr().grh(peerGid, 1, 64, 0, 0).portNum(1);
        state = CmState.SIDR_REQ_RCVD;
    }
}
