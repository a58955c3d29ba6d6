package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * Rebuilds a CM MAD from its decoded fields with the flyweights' setters, into a zeroed 256-byte buffer: what a
 * sender built on these codecs would put on the wire. Private data, ARI and additional information are opaque to
 * the CM and copied as they are, except the {@link CmaHeader} of REQ and SIDR_REQ, which is rebuilt from its fields.
 */
final class CmReencoder {
    private CmReencoder() {
    }

    static MemorySegment reencode(MemorySegment in, long off) {
        MemorySegment out = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
        Mad.writeHeader(out, 0, Mad.mgmtClass(in, off), Mad.classVersion(in, off), Mad.method(in, off),
                Mad.status(in, off), Mad.transactionId(in, off), Mad.attributeId(in, off),
                Mad.attributeModifier(in, off));
        Mad.setBaseVersion(out, 0, Mad.baseVersion(in, off));
        Mad.setClassSpecific(out, 0, Mad.classSpecific(in, off));
        switch (Mad.attributeId(in, off)) {
            case CmAttributeId.REQ -> req(in, off, out);
            case CmAttributeId.REP -> rep(in, off, out);
            case CmAttributeId.RTU -> {
                CmRtu.setLocalCommId(out, 0, CmRtu.localCommId(in, off));
                CmRtu.setRemoteCommId(out, 0, CmRtu.remoteCommId(in, off));
                copy(in, off, out, CmRtu.PRIVATE_DATA, CmRtu.PRIVATE_DATA_LENGTH);
            }
            case CmAttributeId.REJ -> {
                CmRej.setLocalCommId(out, 0, CmRej.localCommId(in, off));
                CmRej.setRemoteCommId(out, 0, CmRej.remoteCommId(in, off));
                CmRej.setMessageRejected(out, 0, CmRej.messageRejected(in, off));
                CmRej.setRejectedInfoLength(out, 0, CmRej.rejectedInfoLength(in, off));
                CmRej.setReason(out, 0, CmRej.reason(in, off));
                copy(in, off, out, CmRej.ARI, CmRej.ARI_LENGTH);
                copy(in, off, out, CmRej.PRIVATE_DATA, CmRej.PRIVATE_DATA_LENGTH);
            }
            case CmAttributeId.MRA -> {
                CmMra.setLocalCommId(out, 0, CmMra.localCommId(in, off));
                CmMra.setRemoteCommId(out, 0, CmMra.remoteCommId(in, off));
                CmMra.setMessageMraed(out, 0, CmMra.messageMraed(in, off));
                CmMra.setServiceTimeout(out, 0, CmMra.serviceTimeout(in, off));
                copy(in, off, out, CmMra.PRIVATE_DATA, CmMra.PRIVATE_DATA_LENGTH);
            }
            case CmAttributeId.DREQ -> {
                CmDreq.setLocalCommId(out, 0, CmDreq.localCommId(in, off));
                CmDreq.setRemoteCommId(out, 0, CmDreq.remoteCommId(in, off));
                CmDreq.setRemoteQpnEecn(out, 0, CmDreq.remoteQpnEecn(in, off));
                copy(in, off, out, CmDreq.PRIVATE_DATA, CmDreq.PRIVATE_DATA_LENGTH);
            }
            case CmAttributeId.DREP -> {
                CmDrep.setLocalCommId(out, 0, CmDrep.localCommId(in, off));
                CmDrep.setRemoteCommId(out, 0, CmDrep.remoteCommId(in, off));
                copy(in, off, out, CmDrep.PRIVATE_DATA, CmDrep.PRIVATE_DATA_LENGTH);
            }
            case CmAttributeId.SIDR_REQ -> {
                CmSidrReq.setRequestId(out, 0, CmSidrReq.requestId(in, off));
                CmSidrReq.setPartitionKey(out, 0, CmSidrReq.partitionKey(in, off));
                CmSidrReq.setServiceId(out, 0, CmSidrReq.serviceId(in, off));
                cma(in, off, out, CmSidrReq.PRIVATE_DATA, CmSidrReq.PRIVATE_DATA_LENGTH);
            }
            case CmAttributeId.SIDR_REP -> {
                CmSidrRep.setRequestId(out, 0, CmSidrRep.requestId(in, off));
                CmSidrRep.setStatus(out, 0, CmSidrRep.status(in, off));
                CmSidrRep.setAdditionalInformationLength(out, 0, CmSidrRep.additionalInformationLength(in, off));
                CmSidrRep.setQpn(out, 0, CmSidrRep.qpn(in, off));
                CmSidrRep.setServiceId(out, 0, CmSidrRep.serviceId(in, off));
                CmSidrRep.setQkey(out, 0, CmSidrRep.qkey(in, off));
                copy(in, off, out, CmSidrRep.ADDITIONAL_INFORMATION, CmSidrRep.ADDITIONAL_INFORMATION_MAX_LENGTH);
                copy(in, off, out, CmSidrRep.PRIVATE_DATA, CmSidrRep.PRIVATE_DATA_LENGTH);
            }
            default -> throw new AssertionError("attribute 0x" + Integer.toHexString(Mad.attributeId(in, off)));
        }
        return out;
    }

    private static void req(MemorySegment in, long off, MemorySegment o) {
        CmReq.setLocalCommId(o, 0, CmReq.localCommId(in, off));
        CmReq.setServiceId(o, 0, CmReq.serviceId(in, off));
        CmReq.setLocalCaGuid(o, 0, CmReq.localCaGuid(in, off));
        CmReq.setLocalQkey(o, 0, CmReq.localQkey(in, off));
        CmReq.setLocalQpn(o, 0, CmReq.localQpn(in, off));
        CmReq.setResponderResources(o, 0, CmReq.responderResources(in, off));
        CmReq.setLocalEecn(o, 0, CmReq.localEecn(in, off));
        CmReq.setInitiatorDepth(o, 0, CmReq.initiatorDepth(in, off));
        CmReq.setRemoteEecn(o, 0, CmReq.remoteEecn(in, off));
        CmReq.setRemoteCmResponseTimeout(o, 0, CmReq.remoteCmResponseTimeout(in, off));
        CmReq.setTransportServiceType(o, 0, CmReq.transportServiceType(in, off));
        CmReq.setEndToEndFlowControl(o, 0, CmReq.endToEndFlowControl(in, off));
        CmReq.setStartingPsn(o, 0, CmReq.startingPsn(in, off));
        CmReq.setLocalCmResponseTimeout(o, 0, CmReq.localCmResponseTimeout(in, off));
        CmReq.setRetryCount(o, 0, CmReq.retryCount(in, off));
        CmReq.setPartitionKey(o, 0, CmReq.partitionKey(in, off));
        CmReq.setPathPacketPayloadMtu(o, 0, CmReq.pathPacketPayloadMtu(in, off));
        CmReq.setRdcExists(o, 0, CmReq.rdcExists(in, off));
        CmReq.setRnrRetryCount(o, 0, CmReq.rnrRetryCount(in, off));
        CmReq.setMaxCmRetries(o, 0, CmReq.maxCmRetries(in, off));
        CmReq.setSrq(o, 0, CmReq.srq(in, off));
        CmReq.setExtendedTransportType(o, 0, CmReq.extendedTransportType(in, off));
        byte[] gid = new byte[16];
        CmReq.setPrimaryLocalPortLid(o, 0, CmReq.primaryLocalPortLid(in, off));
        CmReq.setPrimaryRemotePortLid(o, 0, CmReq.primaryRemotePortLid(in, off));
        CmReq.primaryLocalPortGid(in, off, gid);
        CmReq.setPrimaryLocalPortGid(o, 0, gid);
        CmReq.primaryRemotePortGid(in, off, gid);
        CmReq.setPrimaryRemotePortGid(o, 0, gid);
        CmReq.setPrimaryFlowLabel(o, 0, CmReq.primaryFlowLabel(in, off));
        CmReq.setPrimaryPacketRate(o, 0, CmReq.primaryPacketRate(in, off));
        CmReq.setPrimaryTrafficClass(o, 0, CmReq.primaryTrafficClass(in, off));
        CmReq.setPrimaryHopLimit(o, 0, CmReq.primaryHopLimit(in, off));
        CmReq.setPrimarySl(o, 0, CmReq.primarySl(in, off));
        CmReq.setPrimarySubnetLocal(o, 0, CmReq.primarySubnetLocal(in, off));
        CmReq.setPrimaryLocalAckTimeout(o, 0, CmReq.primaryLocalAckTimeout(in, off));
        CmReq.setAlternateLocalPortLid(o, 0, CmReq.alternateLocalPortLid(in, off));
        CmReq.setAlternateRemotePortLid(o, 0, CmReq.alternateRemotePortLid(in, off));
        CmReq.alternateLocalPortGid(in, off, gid);
        CmReq.setAlternateLocalPortGid(o, 0, gid);
        CmReq.alternateRemotePortGid(in, off, gid);
        CmReq.setAlternateRemotePortGid(o, 0, gid);
        CmReq.setAlternateFlowLabel(o, 0, CmReq.alternateFlowLabel(in, off));
        CmReq.setAlternatePacketRate(o, 0, CmReq.alternatePacketRate(in, off));
        CmReq.setAlternateTrafficClass(o, 0, CmReq.alternateTrafficClass(in, off));
        CmReq.setAlternateHopLimit(o, 0, CmReq.alternateHopLimit(in, off));
        CmReq.setAlternateSl(o, 0, CmReq.alternateSl(in, off));
        CmReq.setAlternateSubnetLocal(o, 0, CmReq.alternateSubnetLocal(in, off));
        CmReq.setAlternateLocalAckTimeout(o, 0, CmReq.alternateLocalAckTimeout(in, off));
        CmReq.setSapSupported(o, 0, CmReq.sapSupported(in, off));
        cma(in, off, o, CmReq.PRIVATE_DATA, CmReq.PRIVATE_DATA_LENGTH);
    }

    private static void rep(MemorySegment in, long off, MemorySegment o) {
        CmRep.setLocalCommId(o, 0, CmRep.localCommId(in, off));
        CmRep.setRemoteCommId(o, 0, CmRep.remoteCommId(in, off));
        CmRep.setLocalQkey(o, 0, CmRep.localQkey(in, off));
        CmRep.setLocalQpn(o, 0, CmRep.localQpn(in, off));
        CmRep.setLocalEeContextNumber(o, 0, CmRep.localEeContextNumber(in, off));
        CmRep.setStartingPsn(o, 0, CmRep.startingPsn(in, off));
        CmRep.setResponderResources(o, 0, CmRep.responderResources(in, off));
        CmRep.setInitiatorDepth(o, 0, CmRep.initiatorDepth(in, off));
        CmRep.setTargetAckDelay(o, 0, CmRep.targetAckDelay(in, off));
        CmRep.setFailoverAccepted(o, 0, CmRep.failoverAccepted(in, off));
        CmRep.setEndToEndFlowControl(o, 0, CmRep.endToEndFlowControl(in, off));
        CmRep.setRnrRetryCount(o, 0, CmRep.rnrRetryCount(in, off));
        CmRep.setSrq(o, 0, CmRep.srq(in, off));
        CmRep.setLocalCaGuid(o, 0, CmRep.localCaGuid(in, off));
        copy(in, off, o, CmRep.PRIVATE_DATA, CmRep.PRIVATE_DATA_LENGTH);
    }

    /** An rdma_cm header rebuilt from its fields, then the consumer's bytes as they are. */
    private static void cma(MemorySegment in, long off, MemorySegment o, int at, int length) {
        long h = off + at;
        if (CmaHeader.ipVersion(in, h) == 4) {
            CmaHeader.writeIpv4(o, at, CmaHeader.port(in, h), CmaHeader.srcIpv4(in, h), CmaHeader.dstIpv4(in, h));
        } else {
            byte[] addr = new byte[16];
            CmaHeader.setCmaVersion(o, at, CmaHeader.cmaVersion(in, h));
            CmaHeader.setIpVersion(o, at, CmaHeader.ipVersion(in, h));
            CmaHeader.setPort(o, at, CmaHeader.port(in, h));
            CmaHeader.srcAddr(in, h, addr);
            CmaHeader.setSrcAddr(o, at, addr);
            CmaHeader.dstAddr(in, h, addr);
            CmaHeader.setDstAddr(o, at, addr);
        }
        copy(in, off, o, at + CmaHeader.LENGTH, length - CmaHeader.LENGTH);
    }

    private static void copy(MemorySegment in, long off, MemorySegment o, int at, int length) {
        MemorySegment.copy(in, off + at, o, at, length);
    }
}
