package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * CM ConnectRequest (REQ) message flyweight (IBA 12.6.5 table 106; the kernel's struct cm_req_msg).
 *
 * <p>The primary path fields start at IBTA byte 52, the alternate path's at byte 96, with the same layout.
 * The kernel's rdma_cm puts a {@link CmaHeader} first in the private data.
 *
 * <p>Static accessors over {@code (segment, offset of the MAD's first byte)}, big-endian, allocation-free.
 * Offset constants count from the MAD's first byte: the IBTA table's byte offset plus
 * {@link Mad#DATA} (24). Bit positions follow the IBTA "Byte[Bit]" notation (bit 0 = most significant);
 * setters mask values to the field width and leave every other bit unchanged.
 */
public final class CmReq {
    /** Attribute id of this message. */
    public static final int ATTRIBUTE_ID = CmAttributeId.REQ;
    /** Offset of the bytes holding the Local Communication ID (IBTA byte 0). */
    public static final int LOCAL_COMM_ID = Mad.DATA + 0;
    /** Offset of the bytes holding the ServiceID (IBTA byte 8). */
    public static final int SERVICE_ID = Mad.DATA + 8;
    /** Offset of the bytes holding the Local CA GUID (IBTA byte 16). */
    public static final int LOCAL_CA_GUID = Mad.DATA + 16;
    /** Offset of the bytes holding the Local Q_Key (IBTA byte 28). */
    public static final int LOCAL_QKEY = Mad.DATA + 28;
    /** Offset of the bytes holding the Local QPN (IBTA byte 32). */
    public static final int LOCAL_QPN = Mad.DATA + 32;
    /** Offset of the byte holding the Responder Resources (IBTA byte 35). */
    public static final int RESPONDER_RESOURCES = Mad.DATA + 35;
    /** Offset of the bytes holding the Local EECN (IBTA byte 36). */
    public static final int LOCAL_EECN = Mad.DATA + 36;
    /** Offset of the byte holding the Initiator Depth (IBTA byte 39). */
    public static final int INITIATOR_DEPTH = Mad.DATA + 39;
    /** Offset of the bytes holding the Remote EECN (IBTA byte 40). */
    public static final int REMOTE_EECN = Mad.DATA + 40;
    /** Offset of the byte holding the Remote CM Response Timeout (IBTA byte 43). */
    public static final int REMOTE_CM_RESPONSE_TIMEOUT = Mad.DATA + 43;
    /** Offset of the byte holding the Transport Service Type (IBTA byte 43). */
    public static final int TRANSPORT_SERVICE_TYPE = Mad.DATA + 43;
    /** Offset of the byte holding the End-to-End Flow Control bit (IBTA byte 43). */
    public static final int END_TO_END_FLOW_CONTROL = Mad.DATA + 43;
    /** Offset of the bytes holding the Starting PSN (IBTA byte 44). */
    public static final int STARTING_PSN = Mad.DATA + 44;
    /** Offset of the byte holding the Local CM Response Timeout (IBTA byte 47). */
    public static final int LOCAL_CM_RESPONSE_TIMEOUT = Mad.DATA + 47;
    /** Offset of the byte holding the Retry Count (IBTA byte 47). */
    public static final int RETRY_COUNT = Mad.DATA + 47;
    /** Offset of the bytes holding the Partition Key (IBTA byte 48). */
    public static final int PARTITION_KEY = Mad.DATA + 48;
    /** Offset of the byte holding the Path Packet Payload MTU (IBA enum: 1 = 256 .. 5 = 4096) (IBTA byte 50). */
    public static final int PATH_PACKET_PAYLOAD_MTU = Mad.DATA + 50;
    /** Offset of the byte holding the RDC Exists bit (IBTA byte 50). */
    public static final int RDC_EXISTS = Mad.DATA + 50;
    /** Offset of the byte holding the RNR Retry Count (IBTA byte 50). */
    public static final int RNR_RETRY_COUNT = Mad.DATA + 50;
    /** Offset of the byte holding the Max CM Retries (IBTA byte 51). */
    public static final int MAX_CM_RETRIES = Mad.DATA + 51;
    /** Offset of the byte holding the SRQ bit (IBTA byte 51). */
    public static final int SRQ = Mad.DATA + 51;
    /** Offset of the byte holding the Extended Transport Type (IBTA byte 51). */
    public static final int EXTENDED_TRANSPORT_TYPE = Mad.DATA + 51;
    /** Offset of the bytes holding the Primary Local Port LID (IBTA byte 52). */
    public static final int PRIMARY_LOCAL_PORT_LID = Mad.DATA + 52;
    /** Offset of the bytes holding the Primary Remote Port LID (IBTA byte 54). */
    public static final int PRIMARY_REMOTE_PORT_LID = Mad.DATA + 54;
    /** Offset of the bytes holding the Primary Local Port GID (IBTA byte 56). */
    public static final int PRIMARY_LOCAL_PORT_GID = Mad.DATA + 56;
    /** Offset of the bytes holding the Primary Remote Port GID (IBTA byte 72). */
    public static final int PRIMARY_REMOTE_PORT_GID = Mad.DATA + 72;
    /** Offset of the bytes holding the Primary Flow Label (IBTA byte 88). */
    public static final int PRIMARY_FLOW_LABEL = Mad.DATA + 88;
    /** Offset of the byte holding the Primary Packet Rate (IBTA byte 91). */
    public static final int PRIMARY_PACKET_RATE = Mad.DATA + 91;
    /** Offset of the byte holding the Primary Traffic Class (IBTA byte 92). */
    public static final int PRIMARY_TRAFFIC_CLASS = Mad.DATA + 92;
    /** Offset of the byte holding the Primary Hop Limit (IBTA byte 93). */
    public static final int PRIMARY_HOP_LIMIT = Mad.DATA + 93;
    /** Offset of the byte holding the Primary SL (IBTA byte 94). */
    public static final int PRIMARY_SL = Mad.DATA + 94;
    /** Offset of the byte holding the Primary Subnet Local bit (IBTA byte 94). */
    public static final int PRIMARY_SUBNET_LOCAL = Mad.DATA + 94;
    /** Offset of the byte holding the Primary Local ACK Timeout (IBTA byte 95). */
    public static final int PRIMARY_LOCAL_ACK_TIMEOUT = Mad.DATA + 95;
    /** Offset of the bytes holding the Alternate Local Port LID (IBTA byte 96). */
    public static final int ALTERNATE_LOCAL_PORT_LID = Mad.DATA + 96;
    /** Offset of the bytes holding the Alternate Remote Port LID (IBTA byte 98). */
    public static final int ALTERNATE_REMOTE_PORT_LID = Mad.DATA + 98;
    /** Offset of the bytes holding the Alternate Local Port GID (IBTA byte 100). */
    public static final int ALTERNATE_LOCAL_PORT_GID = Mad.DATA + 100;
    /** Offset of the bytes holding the Alternate Remote Port GID (IBTA byte 116). */
    public static final int ALTERNATE_REMOTE_PORT_GID = Mad.DATA + 116;
    /** Offset of the bytes holding the Alternate Flow Label (IBTA byte 132). */
    public static final int ALTERNATE_FLOW_LABEL = Mad.DATA + 132;
    /** Offset of the byte holding the Alternate Packet Rate (IBTA byte 135). */
    public static final int ALTERNATE_PACKET_RATE = Mad.DATA + 135;
    /** Offset of the byte holding the Alternate Traffic Class (IBTA byte 136). */
    public static final int ALTERNATE_TRAFFIC_CLASS = Mad.DATA + 136;
    /** Offset of the byte holding the Alternate Hop Limit (IBTA byte 137). */
    public static final int ALTERNATE_HOP_LIMIT = Mad.DATA + 137;
    /** Offset of the byte holding the Alternate SL (IBTA byte 138). */
    public static final int ALTERNATE_SL = Mad.DATA + 138;
    /** Offset of the byte holding the Alternate Subnet Local bit (IBTA byte 138). */
    public static final int ALTERNATE_SUBNET_LOCAL = Mad.DATA + 138;
    /** Offset of the byte holding the Alternate Local ACK Timeout (IBTA byte 139). */
    public static final int ALTERNATE_LOCAL_ACK_TIMEOUT = Mad.DATA + 139;
    /** Offset of the byte holding the SAP Supported bit (IBTA byte 139). */
    public static final int SAP_SUPPORTED = Mad.DATA + 139;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA = Mad.DATA + 140;
    /** Length of the private data area: the most a consumer can send in this message. */
    public static final int PRIVATE_DATA_LENGTH = 92;
    /** Transport Service Type of a reliable connection. */
    public static final int TRANSPORT_RC = 0;
    /** Transport Service Type of an unreliable connection. */
    public static final int TRANSPORT_UC = 1;
    /** Transport Service Type of reliable datagram. */
    public static final int TRANSPORT_RD = 2;
    /** Transport Service Type meaning "see the Extended Transport Type" (XRC). */
    public static final int TRANSPORT_EXTENDED = 3;
    /** Extended Transport Type of XRC. */
    public static final int EXTENDED_TRANSPORT_XRC = 1;

    private CmReq() {
    }

    /** The Local Communication ID (32 bits). */
    public static int localCommId(MemorySegment s, long off) {
        return Bits.i32(s, off + LOCAL_COMM_ID);
    }

    /** Sets the Local Communication ID. */
    public static void setLocalCommId(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + LOCAL_COMM_ID, v);
    }

    /** The ServiceID (64 bits). */
    public static long serviceId(MemorySegment s, long off) {
        return Bits.i64(s, off + SERVICE_ID);
    }

    /** Sets the ServiceID. */
    public static void setServiceId(MemorySegment s, long off, long v) {
        Bits.setI64(s, off + SERVICE_ID, v);
    }

    /** The Local CA GUID (64 bits). */
    public static long localCaGuid(MemorySegment s, long off) {
        return Bits.i64(s, off + LOCAL_CA_GUID);
    }

    /** Sets the Local CA GUID. */
    public static void setLocalCaGuid(MemorySegment s, long off, long v) {
        Bits.setI64(s, off + LOCAL_CA_GUID, v);
    }

    /** The Local Q_Key (32 bits). */
    public static int localQkey(MemorySegment s, long off) {
        return Bits.i32(s, off + LOCAL_QKEY);
    }

    /** Sets the Local Q_Key. */
    public static void setLocalQkey(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + LOCAL_QKEY, v);
    }

    /** The Local QPN (24 bits). */
    public static int localQpn(MemorySegment s, long off) {
        return Bits.high(s, off + LOCAL_QPN, 24);
    }

    /** Sets the Local QPN. */
    public static void setLocalQpn(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + LOCAL_QPN, 24, v);
    }

    /** The Responder Resources (8 bits). */
    public static int responderResources(MemorySegment s, long off) {
        return Bits.u8(s, off + RESPONDER_RESOURCES);
    }

    /** Sets the Responder Resources. */
    public static void setResponderResources(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + RESPONDER_RESOURCES, v);
    }

    /** The Local EECN (24 bits). */
    public static int localEecn(MemorySegment s, long off) {
        return Bits.high(s, off + LOCAL_EECN, 24);
    }

    /** Sets the Local EECN. */
    public static void setLocalEecn(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + LOCAL_EECN, 24, v);
    }

    /** The Initiator Depth (8 bits). */
    public static int initiatorDepth(MemorySegment s, long off) {
        return Bits.u8(s, off + INITIATOR_DEPTH);
    }

    /** Sets the Initiator Depth. */
    public static void setInitiatorDepth(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + INITIATOR_DEPTH, v);
    }

    /** The Remote EECN (24 bits). */
    public static int remoteEecn(MemorySegment s, long off) {
        return Bits.high(s, off + REMOTE_EECN, 24);
    }

    /** Sets the Remote EECN. */
    public static void setRemoteEecn(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + REMOTE_EECN, 24, v);
    }

    /** The Remote CM Response Timeout (5 bits at bit 0). */
    public static int remoteCmResponseTimeout(MemorySegment s, long off) {
        return Bits.get8(s, off + REMOTE_CM_RESPONSE_TIMEOUT, 0, 5);
    }

    /** Sets the Remote CM Response Timeout. */
    public static void setRemoteCmResponseTimeout(MemorySegment s, long off, int v) {
        Bits.set8(s, off + REMOTE_CM_RESPONSE_TIMEOUT, 0, 5, v);
    }

    /** The Transport Service Type (2 bits at bit 5). */
    public static int transportServiceType(MemorySegment s, long off) {
        return Bits.get8(s, off + TRANSPORT_SERVICE_TYPE, 5, 2);
    }

    /** Sets the Transport Service Type. */
    public static void setTransportServiceType(MemorySegment s, long off, int v) {
        Bits.set8(s, off + TRANSPORT_SERVICE_TYPE, 5, 2, v);
    }

    /** The End-to-End Flow Control bit (1 bit at bit 7). */
    public static boolean endToEndFlowControl(MemorySegment s, long off) {
        return Bits.flag(s, off + END_TO_END_FLOW_CONTROL, 7);
    }

    /** Sets the End-to-End Flow Control bit. */
    public static void setEndToEndFlowControl(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + END_TO_END_FLOW_CONTROL, 7, v);
    }

    /** The Starting PSN (24 bits). */
    public static int startingPsn(MemorySegment s, long off) {
        return Bits.high(s, off + STARTING_PSN, 24);
    }

    /** Sets the Starting PSN. */
    public static void setStartingPsn(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + STARTING_PSN, 24, v);
    }

    /** The Local CM Response Timeout (5 bits at bit 0). */
    public static int localCmResponseTimeout(MemorySegment s, long off) {
        return Bits.get8(s, off + LOCAL_CM_RESPONSE_TIMEOUT, 0, 5);
    }

    /** Sets the Local CM Response Timeout. */
    public static void setLocalCmResponseTimeout(MemorySegment s, long off, int v) {
        Bits.set8(s, off + LOCAL_CM_RESPONSE_TIMEOUT, 0, 5, v);
    }

    /** The Retry Count (3 bits at bit 5). */
    public static int retryCount(MemorySegment s, long off) {
        return Bits.get8(s, off + RETRY_COUNT, 5, 3);
    }

    /** Sets the Retry Count. */
    public static void setRetryCount(MemorySegment s, long off, int v) {
        Bits.set8(s, off + RETRY_COUNT, 5, 3, v);
    }

    /** The Partition Key (16 bits). */
    public static int partitionKey(MemorySegment s, long off) {
        return Bits.u16(s, off + PARTITION_KEY);
    }

    /** Sets the Partition Key. */
    public static void setPartitionKey(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + PARTITION_KEY, v);
    }

    /** The Path Packet Payload MTU (IBA enum: 1 = 256 .. 5 = 4096) (4 bits at bit 0). */
    public static int pathPacketPayloadMtu(MemorySegment s, long off) {
        return Bits.get8(s, off + PATH_PACKET_PAYLOAD_MTU, 0, 4);
    }

    /** Sets the Path Packet Payload MTU (IBA enum: 1 = 256 .. 5 = 4096). */
    public static void setPathPacketPayloadMtu(MemorySegment s, long off, int v) {
        Bits.set8(s, off + PATH_PACKET_PAYLOAD_MTU, 0, 4, v);
    }

    /** The RDC Exists bit (1 bit at bit 4). */
    public static boolean rdcExists(MemorySegment s, long off) {
        return Bits.flag(s, off + RDC_EXISTS, 4);
    }

    /** Sets the RDC Exists bit. */
    public static void setRdcExists(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + RDC_EXISTS, 4, v);
    }

    /** The RNR Retry Count (3 bits at bit 5). */
    public static int rnrRetryCount(MemorySegment s, long off) {
        return Bits.get8(s, off + RNR_RETRY_COUNT, 5, 3);
    }

    /** Sets the RNR Retry Count. */
    public static void setRnrRetryCount(MemorySegment s, long off, int v) {
        Bits.set8(s, off + RNR_RETRY_COUNT, 5, 3, v);
    }

    /** The Max CM Retries (4 bits at bit 0). */
    public static int maxCmRetries(MemorySegment s, long off) {
        return Bits.get8(s, off + MAX_CM_RETRIES, 0, 4);
    }

    /** Sets the Max CM Retries. */
    public static void setMaxCmRetries(MemorySegment s, long off, int v) {
        Bits.set8(s, off + MAX_CM_RETRIES, 0, 4, v);
    }

    /** The SRQ bit (1 bit at bit 4). */
    public static boolean srq(MemorySegment s, long off) {
        return Bits.flag(s, off + SRQ, 4);
    }

    /** Sets the SRQ bit. */
    public static void setSrq(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + SRQ, 4, v);
    }

    /** The Extended Transport Type (3 bits at bit 5). */
    public static int extendedTransportType(MemorySegment s, long off) {
        return Bits.get8(s, off + EXTENDED_TRANSPORT_TYPE, 5, 3);
    }

    /** Sets the Extended Transport Type. */
    public static void setExtendedTransportType(MemorySegment s, long off, int v) {
        Bits.set8(s, off + EXTENDED_TRANSPORT_TYPE, 5, 3, v);
    }

    /** The Primary Local Port LID (16 bits). */
    public static int primaryLocalPortLid(MemorySegment s, long off) {
        return Bits.u16(s, off + PRIMARY_LOCAL_PORT_LID);
    }

    /** Sets the Primary Local Port LID. */
    public static void setPrimaryLocalPortLid(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + PRIMARY_LOCAL_PORT_LID, v);
    }

    /** The Primary Remote Port LID (16 bits). */
    public static int primaryRemotePortLid(MemorySegment s, long off) {
        return Bits.u16(s, off + PRIMARY_REMOTE_PORT_LID);
    }

    /** Sets the Primary Remote Port LID. */
    public static void setPrimaryRemotePortLid(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + PRIMARY_REMOTE_PORT_LID, v);
    }

    /** Copies the 16 bytes of the Primary Local Port GID into {@code dst} (at least 16 bytes). */
    public static void primaryLocalPortGid(MemorySegment s, long off, byte[] dst) {
        Bits.copyOut(s, off + PRIMARY_LOCAL_PORT_GID, dst, 16);
    }

    /** Sets the Primary Local Port GID from the first 16 bytes of {@code gid}. */
    public static void setPrimaryLocalPortGid(MemorySegment s, long off, byte[] gid) {
        Bits.copyIn(gid, s, off + PRIMARY_LOCAL_PORT_GID, 16);
    }

    /** Copies the 16 bytes of the Primary Remote Port GID into {@code dst} (at least 16 bytes). */
    public static void primaryRemotePortGid(MemorySegment s, long off, byte[] dst) {
        Bits.copyOut(s, off + PRIMARY_REMOTE_PORT_GID, dst, 16);
    }

    /** Sets the Primary Remote Port GID from the first 16 bytes of {@code gid}. */
    public static void setPrimaryRemotePortGid(MemorySegment s, long off, byte[] gid) {
        Bits.copyIn(gid, s, off + PRIMARY_REMOTE_PORT_GID, 16);
    }

    /** The Primary Flow Label (20 bits). */
    public static int primaryFlowLabel(MemorySegment s, long off) {
        return Bits.high(s, off + PRIMARY_FLOW_LABEL, 20);
    }

    /** Sets the Primary Flow Label. */
    public static void setPrimaryFlowLabel(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + PRIMARY_FLOW_LABEL, 20, v);
    }

    /** The Primary Packet Rate (6 bits at bit 2). */
    public static int primaryPacketRate(MemorySegment s, long off) {
        return Bits.get8(s, off + PRIMARY_PACKET_RATE, 2, 6);
    }

    /** Sets the Primary Packet Rate. */
    public static void setPrimaryPacketRate(MemorySegment s, long off, int v) {
        Bits.set8(s, off + PRIMARY_PACKET_RATE, 2, 6, v);
    }

    /** The Primary Traffic Class (8 bits). */
    public static int primaryTrafficClass(MemorySegment s, long off) {
        return Bits.u8(s, off + PRIMARY_TRAFFIC_CLASS);
    }

    /** Sets the Primary Traffic Class. */
    public static void setPrimaryTrafficClass(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + PRIMARY_TRAFFIC_CLASS, v);
    }

    /** The Primary Hop Limit (8 bits). */
    public static int primaryHopLimit(MemorySegment s, long off) {
        return Bits.u8(s, off + PRIMARY_HOP_LIMIT);
    }

    /** Sets the Primary Hop Limit. */
    public static void setPrimaryHopLimit(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + PRIMARY_HOP_LIMIT, v);
    }

    /** The Primary SL (4 bits at bit 0). */
    public static int primarySl(MemorySegment s, long off) {
        return Bits.get8(s, off + PRIMARY_SL, 0, 4);
    }

    /** Sets the Primary SL. */
    public static void setPrimarySl(MemorySegment s, long off, int v) {
        Bits.set8(s, off + PRIMARY_SL, 0, 4, v);
    }

    /** The Primary Subnet Local bit (1 bit at bit 4). */
    public static boolean primarySubnetLocal(MemorySegment s, long off) {
        return Bits.flag(s, off + PRIMARY_SUBNET_LOCAL, 4);
    }

    /** Sets the Primary Subnet Local bit. */
    public static void setPrimarySubnetLocal(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + PRIMARY_SUBNET_LOCAL, 4, v);
    }

    /** The Primary Local ACK Timeout (5 bits at bit 0). */
    public static int primaryLocalAckTimeout(MemorySegment s, long off) {
        return Bits.get8(s, off + PRIMARY_LOCAL_ACK_TIMEOUT, 0, 5);
    }

    /** Sets the Primary Local ACK Timeout. */
    public static void setPrimaryLocalAckTimeout(MemorySegment s, long off, int v) {
        Bits.set8(s, off + PRIMARY_LOCAL_ACK_TIMEOUT, 0, 5, v);
    }

    /** The Alternate Local Port LID (16 bits). */
    public static int alternateLocalPortLid(MemorySegment s, long off) {
        return Bits.u16(s, off + ALTERNATE_LOCAL_PORT_LID);
    }

    /** Sets the Alternate Local Port LID. */
    public static void setAlternateLocalPortLid(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + ALTERNATE_LOCAL_PORT_LID, v);
    }

    /** The Alternate Remote Port LID (16 bits). */
    public static int alternateRemotePortLid(MemorySegment s, long off) {
        return Bits.u16(s, off + ALTERNATE_REMOTE_PORT_LID);
    }

    /** Sets the Alternate Remote Port LID. */
    public static void setAlternateRemotePortLid(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + ALTERNATE_REMOTE_PORT_LID, v);
    }

    /** Copies the 16 bytes of the Alternate Local Port GID into {@code dst} (at least 16 bytes). */
    public static void alternateLocalPortGid(MemorySegment s, long off, byte[] dst) {
        Bits.copyOut(s, off + ALTERNATE_LOCAL_PORT_GID, dst, 16);
    }

    /** Sets the Alternate Local Port GID from the first 16 bytes of {@code gid}. */
    public static void setAlternateLocalPortGid(MemorySegment s, long off, byte[] gid) {
        Bits.copyIn(gid, s, off + ALTERNATE_LOCAL_PORT_GID, 16);
    }

    /** Copies the 16 bytes of the Alternate Remote Port GID into {@code dst} (at least 16 bytes). */
    public static void alternateRemotePortGid(MemorySegment s, long off, byte[] dst) {
        Bits.copyOut(s, off + ALTERNATE_REMOTE_PORT_GID, dst, 16);
    }

    /** Sets the Alternate Remote Port GID from the first 16 bytes of {@code gid}. */
    public static void setAlternateRemotePortGid(MemorySegment s, long off, byte[] gid) {
        Bits.copyIn(gid, s, off + ALTERNATE_REMOTE_PORT_GID, 16);
    }

    /** The Alternate Flow Label (20 bits). */
    public static int alternateFlowLabel(MemorySegment s, long off) {
        return Bits.high(s, off + ALTERNATE_FLOW_LABEL, 20);
    }

    /** Sets the Alternate Flow Label. */
    public static void setAlternateFlowLabel(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + ALTERNATE_FLOW_LABEL, 20, v);
    }

    /** The Alternate Packet Rate (6 bits at bit 2). */
    public static int alternatePacketRate(MemorySegment s, long off) {
        return Bits.get8(s, off + ALTERNATE_PACKET_RATE, 2, 6);
    }

    /** Sets the Alternate Packet Rate. */
    public static void setAlternatePacketRate(MemorySegment s, long off, int v) {
        Bits.set8(s, off + ALTERNATE_PACKET_RATE, 2, 6, v);
    }

    /** The Alternate Traffic Class (8 bits). */
    public static int alternateTrafficClass(MemorySegment s, long off) {
        return Bits.u8(s, off + ALTERNATE_TRAFFIC_CLASS);
    }

    /** Sets the Alternate Traffic Class. */
    public static void setAlternateTrafficClass(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + ALTERNATE_TRAFFIC_CLASS, v);
    }

    /** The Alternate Hop Limit (8 bits). */
    public static int alternateHopLimit(MemorySegment s, long off) {
        return Bits.u8(s, off + ALTERNATE_HOP_LIMIT);
    }

    /** Sets the Alternate Hop Limit. */
    public static void setAlternateHopLimit(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + ALTERNATE_HOP_LIMIT, v);
    }

    /** The Alternate SL (4 bits at bit 0). */
    public static int alternateSl(MemorySegment s, long off) {
        return Bits.get8(s, off + ALTERNATE_SL, 0, 4);
    }

    /** Sets the Alternate SL. */
    public static void setAlternateSl(MemorySegment s, long off, int v) {
        Bits.set8(s, off + ALTERNATE_SL, 0, 4, v);
    }

    /** The Alternate Subnet Local bit (1 bit at bit 4). */
    public static boolean alternateSubnetLocal(MemorySegment s, long off) {
        return Bits.flag(s, off + ALTERNATE_SUBNET_LOCAL, 4);
    }

    /** Sets the Alternate Subnet Local bit. */
    public static void setAlternateSubnetLocal(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + ALTERNATE_SUBNET_LOCAL, 4, v);
    }

    /** The Alternate Local ACK Timeout (5 bits at bit 0). */
    public static int alternateLocalAckTimeout(MemorySegment s, long off) {
        return Bits.get8(s, off + ALTERNATE_LOCAL_ACK_TIMEOUT, 0, 5);
    }

    /** Sets the Alternate Local ACK Timeout. */
    public static void setAlternateLocalAckTimeout(MemorySegment s, long off, int v) {
        Bits.set8(s, off + ALTERNATE_LOCAL_ACK_TIMEOUT, 0, 5, v);
    }

    /** The SAP Supported bit (1 bit at bit 5). */
    public static boolean sapSupported(MemorySegment s, long off) {
        return Bits.flag(s, off + SAP_SUPPORTED, 5);
    }

    /** Sets the SAP Supported bit. */
    public static void setSapSupported(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + SAP_SUPPORTED, 5, v);
    }

}
