package io.jrdma.soft.cm;

import io.jrdma.wire.CmDrep;
import io.jrdma.wire.CmDreq;
import io.jrdma.wire.CmRej;
import io.jrdma.wire.CmRep;
import io.jrdma.wire.CmReq;
import io.jrdma.wire.CmRtu;
import io.jrdma.wire.CmSidrRep;
import io.jrdma.wire.CmSidrReq;
import io.jrdma.wire.CmaHeader;
import io.jrdma.wire.Mad;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * Formats the CM messages the soft CM sends, field by field as the kernel's ib_cm and rdma_cm fill them (with the
 * {@code io.jrdma.wire} codecs): one fresh 256-byte MAD per message, kept by its id for retransmission.
 */
final class CmMessages {

    /** IB_LID_PERMISSIVE: the LIDs ib_cm puts in a REQ whose path has a hop limit above 1 (every RoCE path). */
    static final int PERMISSIVE_LID = 0xFFFF;
    /** The default P_Key. */
    static final int DEFAULT_PKEY = 0xFFFF;

    private CmMessages() {
    }

    static MemorySegment newMad() {
        return MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
    }

    /** A REQ (ib_send_cm_req's cm_format_req with rdma_cm's cma_connect_ib parameters). */
    static MemorySegment req(CmConnection id, byte[] privateData) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmReq.ATTRIBUTE_ID, id.tid());
        CmReq.setLocalCommId(m, 0, id.localCommId());
        CmReq.setServiceId(m, 0, id.serviceId());
        CmReq.setLocalCaGuid(m, 0, id.agent().guid());
        CmReq.setLocalQpn(m, 0, id.localQpn());
        CmReq.setResponderResources(m, 0, id.responderResources());
        CmReq.setInitiatorDepth(m, 0, id.initiatorDepth());
        CmSettings s = id.settings();
        CmReq.setRemoteCmResponseTimeout(m, 0, s.responseTimeout());
        CmReq.setTransportServiceType(m, 0, CmReq.TRANSPORT_RC);
        CmReq.setEndToEndFlowControl(m, 0, id.flowControl());
        CmReq.setStartingPsn(m, 0, id.rqPsn());
        CmReq.setLocalCmResponseTimeout(m, 0, s.responseTimeout());
        CmReq.setRetryCount(m, 0, id.retryCount());
        CmReq.setPartitionKey(m, 0, DEFAULT_PKEY);
        CmReq.setPathPacketPayloadMtu(m, 0, id.pathMtu().code());
        CmReq.setRnrRetryCount(m, 0, id.rnrRetryCount());
        CmReq.setMaxCmRetries(m, 0, s.maxRetries());
        CmReq.setSrq(m, 0, id.srq());
        CmReq.setPrimaryLocalPortLid(m, 0, PERMISSIVE_LID);
        CmReq.setPrimaryRemotePortLid(m, 0, PERMISSIVE_LID);
        CmReq.setPrimaryLocalPortGid(m, 0, id.agent().gid().toBytes());
        CmReq.setPrimaryRemotePortGid(m, 0, id.peerGid().toBytes());
        CmReq.setPrimaryFlowLabel(m, 0, id.flowLabel());
        CmReq.setPrimaryPacketRate(m, 0, 0); // IB_RATE_PORT_CURRENT
        CmReq.setPrimaryTrafficClass(m, 0, 0);
        CmReq.setPrimaryHopLimit(m, 0, id.hopLimit());
        CmReq.setPrimarySl(m, 0, 0);
        CmReq.setPrimarySubnetLocal(m, 0, id.hopLimit() <= 1);
        CmReq.setPrimaryLocalAckTimeout(m, 0, s.ackTimeout());
        writeCmaHeader(m, CmReq.PRIVATE_DATA, id);
        put(m, CmReq.PRIVATE_DATA + CmaHeader.LENGTH, privateData);
        return m;
    }

    /** A SIDR_REQ (cma_resolve_ib_udp): the cma header first in its private data. */
    static MemorySegment sidrReq(CmConnection id, byte[] privateData) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmSidrReq.ATTRIBUTE_ID, id.tid());
        CmSidrReq.setRequestId(m, 0, id.localCommId());
        CmSidrReq.setPartitionKey(m, 0, DEFAULT_PKEY);
        CmSidrReq.setServiceId(m, 0, id.serviceId());
        writeCmaHeader(m, CmSidrReq.PRIVATE_DATA, id);
        put(m, CmSidrReq.PRIVATE_DATA + CmaHeader.LENGTH, privateData);
        return m;
    }

    private static void writeCmaHeader(MemorySegment m, int at, CmConnection id) {
        CmaHeader.writeIpv4(m, at, id.localAddress().getPort(), ipv4(id.localAddress().getAddress()),
                ipv4(id.peerAddress().getAddress()));
    }

    /** A REP (cm_format_rep with cma_accept_ib's parameters). */
    static MemorySegment rep(CmConnection id, byte[] privateData) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmRep.ATTRIBUTE_ID, id.tid());
        CmRep.setLocalCommId(m, 0, id.localCommId());
        CmRep.setRemoteCommId(m, 0, id.remoteCommId());
        CmRep.setLocalQpn(m, 0, id.localQpn());
        CmRep.setStartingPsn(m, 0, id.rqPsn());
        CmRep.setResponderResources(m, 0, id.responderResources());
        CmRep.setInitiatorDepth(m, 0, id.initiatorDepth());
        CmRep.setTargetAckDelay(m, 0, id.settings().caAckDelay());
        CmRep.setFailoverAccepted(m, 0, 0);
        CmRep.setEndToEndFlowControl(m, 0, id.flowControl());
        CmRep.setRnrRetryCount(m, 0, id.rnrRetryCount());
        CmRep.setSrq(m, 0, id.srq());
        CmRep.setLocalCaGuid(m, 0, id.agent().guid());
        put(m, CmRep.PRIVATE_DATA, privateData);
        return m;
    }

    static MemorySegment rtu(CmConnection id) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmRtu.ATTRIBUTE_ID, id.tid());
        CmRtu.setLocalCommId(m, 0, id.localCommId());
        CmRtu.setRemoteCommId(m, 0, id.remoteCommId());
        return m;
    }

    /** A REJ from an id (cm_format_rej): a REQ_RCVD id names no local comm id. */
    static MemorySegment rej(CmConnection id, int reason, int messageRejected, boolean nameLocal, byte[] privateData) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmRej.ATTRIBUTE_ID, id.tid());
        CmRej.setLocalCommId(m, 0, nameLocal ? id.localCommId() : 0);
        CmRej.setRemoteCommId(m, 0, id.remoteCommId());
        CmRej.setMessageRejected(m, 0, messageRejected);
        CmRej.setReason(m, 0, reason);
        put(m, CmRej.PRIVATE_DATA, privateData);
        return m;
    }

    /** A REJ answering a received message with no id of its own (cm_issue_rej): the comm ids swapped. */
    static MemorySegment rejFor(MemorySegment received, int localCommId, int remoteCommId, int reason, int msg) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmRej.ATTRIBUTE_ID, Mad.transactionId(received, 0));
        CmRej.setLocalCommId(m, 0, localCommId);
        CmRej.setRemoteCommId(m, 0, remoteCommId);
        CmRej.setMessageRejected(m, 0, msg);
        CmRej.setReason(m, 0, reason);
        return m;
    }

    static MemorySegment dreq(CmConnection id, byte[] privateData) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmDreq.ATTRIBUTE_ID, id.tid());
        CmDreq.setLocalCommId(m, 0, id.localCommId());
        CmDreq.setRemoteCommId(m, 0, id.remoteCommId());
        CmDreq.setRemoteQpnEecn(m, 0, id.remoteQpn());
        put(m, CmDreq.PRIVATE_DATA, privateData);
        return m;
    }

    static MemorySegment drep(long tid, int localCommId, int remoteCommId) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmDrep.ATTRIBUTE_ID, tid);
        CmDrep.setLocalCommId(m, 0, localCommId);
        CmDrep.setRemoteCommId(m, 0, remoteCommId);
        return m;
    }

    /** A SIDR_REP answering a SIDR_REQ (the request id and transaction id of the request). */
    static MemorySegment sidrRep(long tid, int requestId, long serviceId, int status, int qpn, int qkey,
            byte[] privateData) {
        MemorySegment m = newMad();
        Mad.writeCmHeader(m, 0, CmSidrRep.ATTRIBUTE_ID, tid);
        CmSidrRep.setRequestId(m, 0, requestId);
        CmSidrRep.setStatus(m, 0, status);
        CmSidrRep.setQpn(m, 0, qpn);
        CmSidrRep.setServiceId(m, 0, serviceId);
        CmSidrRep.setQkey(m, 0, qkey);
        put(m, CmSidrRep.PRIVATE_DATA, privateData);
        return m;
    }

    static void put(MemorySegment m, int at, byte[] data) {
        if (data != null && data.length > 0) {
            MemorySegment.copy(data, 0, m, java.lang.foreign.ValueLayout.JAVA_BYTE, at, data.length);
        }
    }

    static byte[] get(MemorySegment m, int at, int length) {
        byte[] out = new byte[length];
        MemorySegment.copy(m, java.lang.foreign.ValueLayout.JAVA_BYTE, at, out, 0, length);
        return out;
    }

    static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }
}
