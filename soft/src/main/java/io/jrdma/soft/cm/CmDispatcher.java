package io.jrdma.soft.cm;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.soft.MadAddress;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.VerbsException;
import io.jrdma.wire.CmAttributeId;
import io.jrdma.wire.CmDrep;
import io.jrdma.wire.CmDreq;
import io.jrdma.wire.CmMra;
import io.jrdma.wire.CmRej;
import io.jrdma.wire.CmRep;
import io.jrdma.wire.CmReq;
import io.jrdma.wire.CmRtu;
import io.jrdma.wire.CmSidrRep;
import io.jrdma.wire.CmSidrReq;
import io.jrdma.wire.CmaHeader;
import io.jrdma.wire.Mad;
import io.jrdma.wire.ServiceId;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Checks each MAD an agent receives and hands it to the id it is for (by the comm ids, as ib_cm's tables find
 * them), or to a listener (REQ, SIDR_REQ). Drops and counts what is not a CM MAD of class version 2, what has an
 * attribute the CM does not handle and what names a comm id nobody has; answers as the kernel does where it answers
 * without an id (REJ "invalid service ID" for a REQ nobody listens for, DREP for a DREQ of a forgotten connection,
 * SIDR_REP "unsupported" for a SIDR_REQ nobody listens for).
 */
final class CmDispatcher {

    private final CmRegistry registry;
    private final CmAgent agent;

    CmDispatcher(CmRegistry registry, CmAgent agent) {
        this.registry = registry;
        this.agent = agent;
    }

    /** Handles one received MAD (the agent's thread); {@code m} is reused after this returns. */
    void dispatch(MemorySegment m, MadAddress from) {
        if (!Mad.isCm(m, 0) || Mad.classVersion(m, 0) != Mad.CM_CLASS_VERSION) {
            agent.count(CmCounter.DROPPED_BAD_VERSION);
            return;
        }
        synchronized (registry) {
            if (agent.isClosed()) {
                return;
            }
            try {
                route(m, from);
            } catch (VerbsException | IllegalArgumentException e) {
                agent.count(CmCounter.DROPPED_UNKNOWN_ID); // e.g. a QP transition the message asked for failed
            }
        }
    }

    private void route(MemorySegment m, MadAddress from) {
        int attr = Mad.attributeId(m, 0);
        switch (attr) {
            case CmAttributeId.REQ -> onReq(m, from);
            case CmAttributeId.SIDR_REQ -> onSidrReq(m, from);
            case CmAttributeId.REP -> {
                SoftCmId id = known(CmRep.remoteCommId(m, 0), 0, false);
                if (id != null) {
                    id.onRep(CmRep.localCommId(m, 0), CmRep.localCaGuid(m, 0), CmRep.localQpn(m, 0),
                            CmRep.startingPsn(m, 0), CmRep.responderResources(m, 0), CmRep.initiatorDepth(m, 0),
                            new ConnParam().responderResources(CmRep.initiatorDepth(m, 0))
                                    .initiatorDepth(CmRep.responderResources(m, 0))
                                    .flowControl(CmRep.endToEndFlowControl(m, 0))
                                    .rnrRetryCount(CmRep.rnrRetryCount(m, 0)).srq(CmRep.srq(m, 0))
                                    .qpNum(CmRep.localQpn(m, 0))
                                    .privateData(CmMessages.get(m, CmRep.PRIVATE_DATA, CmRep.PRIVATE_DATA_LENGTH)));
                }
            }
            case CmAttributeId.RTU -> {
                SoftCmId id = known(CmRtu.remoteCommId(m, 0), CmRtu.localCommId(m, 0), true);
                if (id != null) {
                    id.onRtu();
                }
            }
            case CmAttributeId.REJ -> {
                SoftCmId id = known(CmRej.remoteCommId(m, 0), 0, false);
                if (id != null) {
                    id.onRej(CmRej.reason(m, 0), CmMessages.get(m, CmRej.PRIVATE_DATA, CmRej.PRIVATE_DATA_LENGTH));
                }
            }
            case CmAttributeId.MRA -> {
                SoftCmId id = known(CmMra.remoteCommId(m, 0), 0, false);
                if (id != null) {
                    id.onMra(CmMra.serviceTimeout(m, 0));
                }
            }
            case CmAttributeId.DREQ -> onDreq(m, from);
            case CmAttributeId.DREP -> {
                SoftCmId id = known(CmDrep.remoteCommId(m, 0), CmDrep.localCommId(m, 0), true);
                if (id != null) {
                    id.onDrep(CmMessages.get(m, CmDrep.PRIVATE_DATA, CmDrep.PRIVATE_DATA_LENGTH));
                }
            }
            case CmAttributeId.SIDR_REP -> {
                SoftCmId id = known(CmSidrRep.requestId(m, 0), 0, false);
                if (id != null) {
                    id.onSidrRep(CmSidrRep.status(m, 0), CmSidrRep.qpn(m, 0), CmSidrRep.qkey(m, 0),
                            CmMessages.get(m, CmSidrRep.PRIVATE_DATA, CmSidrRep.PRIVATE_DATA_LENGTH));
                }
            }
            default -> agent.count(CmCounter.DROPPED_BAD_ATTRIBUTE);
        }
    }

    /** The id whose local comm id is {@code localId} (and whose peer's is {@code peerId}, if checked), or null. */
    private SoftCmId known(int localId, int peerId, boolean checkPeer) {
        SoftCmId id = localId == 0 ? null : registry.byLocalId(localId);
        if (id == null || id.agent() != agent || checkPeer && id.remoteCommId() != peerId) {
            agent.count(CmCounter.DROPPED_UNKNOWN_ID);
            return null;
        }
        return id;
    }

    private void onReq(MemorySegment m, MadAddress from) {
        int peerComm = CmReq.localCommId(m, 0);
        SoftCmId dup = registry.byRemote(new CmRegistry.RemoteKey(peerComm, CmReq.localCaGuid(m, 0)));
        if (dup != null) {
            agent.count(CmCounter.DUPLICATES); // cm_dup_req_handler: a REP or RTU timer covers the rest
            if (dup.state() == CmState.TIMEWAIT) {
                agent.send(CmMessages.rejFor(m, dup.localCommId(), peerComm, 10, CmRej.MESSAGE_REQ), from);
            }
            return;
        }
        long sid = CmReq.serviceId(m, 0);
        int hdr = CmReq.PRIVATE_DATA;
        SoftCmId listener = null;
        InetSocketAddress local = null;
        InetSocketAddress peer = null;
        if (ServiceId.isRdmaCm(sid) && CmaHeader.cmaVersion(m, hdr) == CmaHeader.VERSION
                && CmaHeader.ipVersion(m, hdr) == 4) {
            local = new InetSocketAddress(ip(CmaHeader.dstIpv4(m, hdr)), ServiceId.port(sid));
            peer = new InetSocketAddress(ip(CmaHeader.srcIpv4(m, hdr)), CmaHeader.port(m, hdr));
            listener = registry.listener(sid, local.getAddress(), agent.device());
        }
        if (listener == null || listener.portSpace() == PortSpace.UDP) {
            agent.count(CmCounter.REJ_INVALID_SERVICE_ID);
            agent.send(CmMessages.rejFor(m, 0, peerComm, 8, CmRej.MESSAGE_REQ), from);
            return;
        }
        if (listener.backlogFull()) {
            agent.count(CmCounter.DROPPED_BACKLOG); // ucma answers -ENOMEM: ib_cm drops it, the peer retries
            return;
        }
        SoftCmId id;
        try {
            id = new SoftCmId(listener, agent, local, peer);
        } catch (VerbsException e) {
            agent.count(CmCounter.DROPPED_BACKLOG);
            return;
        }
        id.takeReq(m, from);
        id.event(CmEventType.CONNECT_REQUEST, 0, id.requestParam(m), null);
    }

    private void onSidrReq(MemorySegment m, MadAddress from) {
        CmRegistry.RemoteKey key = new CmRegistry.RemoteKey(CmSidrReq.requestId(m, 0), CmMessages.ipv4(
                from.address()));
        if (registry.byRemote(key) != null) {
            agent.count(CmCounter.DUPLICATES);
            return;
        }
        long sid = CmSidrReq.serviceId(m, 0);
        int hdr = CmSidrReq.PRIVATE_DATA;
        SoftCmId listener = null;
        InetSocketAddress local = null;
        InetSocketAddress peer = null;
        if (ServiceId.isRdmaCm(sid) && CmaHeader.ipVersion(m, hdr) == 4) {
            local = new InetSocketAddress(ip(CmaHeader.dstIpv4(m, hdr)), ServiceId.port(sid));
            peer = new InetSocketAddress(ip(CmaHeader.srcIpv4(m, hdr)), CmaHeader.port(m, hdr));
            listener = registry.listener(sid, local.getAddress(), agent.device());
        }
        if (listener == null || listener.portSpace() != PortSpace.UDP || listener.backlogFull()) {
            if (listener == null) {
                agent.send(CmMessages.sidrRep(Mad.transactionId(m, 0), key.commId(), sid, 1, 0, 0, null), from);
            }
            agent.count(listener == null ? CmCounter.REJ_INVALID_SERVICE_ID : CmCounter.DROPPED_BACKLOG);
            return;
        }
        SoftCmId id;
        try {
            id = new SoftCmId(listener, agent, local, peer);
        } catch (VerbsException e) {
            agent.count(CmCounter.DROPPED_BACKLOG);
            return;
        }
        id.takeSidrReq(m, from);
        byte[] pd = CmMessages.get(m, hdr + CmaHeader.LENGTH, CmSidrReq.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH);
        id.event(CmEventType.CONNECT_REQUEST, 0, null, new UdParam(0, 0, new AhAttr().copyFrom(id.ahAttr()), pd));
    }

    private void onDreq(MemorySegment m, MadAddress from) {
        int mine = CmDreq.remoteCommId(m, 0);
        int theirs = CmDreq.localCommId(m, 0);
        SoftCmId id = mine == 0 ? null : registry.byLocalId(mine);
        if (id == null || id.agent() != agent || id.remoteCommId() != theirs) {
            agent.count(CmCounter.DROPPED_UNKNOWN_ID);
            agent.send(CmMessages.drep(Mad.transactionId(m, 0), mine, theirs), from); // cm_issue_drep
            return;
        }
        id.onDreq(Mad.transactionId(m, 0), CmMessages.get(m, CmDreq.PRIVATE_DATA, CmDreq.PRIVATE_DATA_LENGTH));
    }

    private static InetAddress ip(int v) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8),
                (byte) v});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
