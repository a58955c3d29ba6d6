package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * CM ConnectReply (REP) message flyweight (IBA 12.6.8 table 110; the kernel's struct cm_rep_msg).
 *
 * <p>Static accessors over {@code (segment, offset of the MAD's first byte)}, big-endian, allocation-free.
 * Offset constants count from the MAD's first byte: the IBTA table's byte offset plus
 * {@link Mad#DATA} (24). Bit positions follow the IBTA "Byte[Bit]" notation (bit 0 = most significant);
 * setters mask values to the field width and leave every other bit unchanged.
 */
public final class CmRep {
    /** Attribute id of this message. */
    public static final int ATTRIBUTE_ID = CmAttributeId.REP;
    /** Offset of the bytes holding the Local Communication ID (IBTA byte 0). */
    public static final int LOCAL_COMM_ID = Mad.DATA + 0;
    /** Offset of the bytes holding the Remote Communication ID (IBTA byte 4). */
    public static final int REMOTE_COMM_ID = Mad.DATA + 4;
    /** Offset of the bytes holding the Local Q_Key (IBTA byte 8). */
    public static final int LOCAL_QKEY = Mad.DATA + 8;
    /** Offset of the bytes holding the Local QPN (IBTA byte 12). */
    public static final int LOCAL_QPN = Mad.DATA + 12;
    /** Offset of the bytes holding the Local EE Context Number (IBTA byte 16). */
    public static final int LOCAL_EE_CONTEXT_NUMBER = Mad.DATA + 16;
    /** Offset of the bytes holding the Starting PSN (IBTA byte 20). */
    public static final int STARTING_PSN = Mad.DATA + 20;
    /** Offset of the byte holding the Responder Resources (IBTA byte 24). */
    public static final int RESPONDER_RESOURCES = Mad.DATA + 24;
    /** Offset of the byte holding the Initiator Depth (IBTA byte 25). */
    public static final int INITIATOR_DEPTH = Mad.DATA + 25;
    /** Offset of the byte holding the Target ACK Delay (IBTA byte 26). */
    public static final int TARGET_ACK_DELAY = Mad.DATA + 26;
    /** Offset of the byte holding the Failover Accepted field (IBTA byte 26). */
    public static final int FAILOVER_ACCEPTED = Mad.DATA + 26;
    /** Offset of the byte holding the End-to-End Flow Control bit (IBTA byte 26). */
    public static final int END_TO_END_FLOW_CONTROL = Mad.DATA + 26;
    /** Offset of the byte holding the RNR Retry Count (IBTA byte 27). */
    public static final int RNR_RETRY_COUNT = Mad.DATA + 27;
    /** Offset of the byte holding the SRQ bit (IBTA byte 27). */
    public static final int SRQ = Mad.DATA + 27;
    /** Offset of the bytes holding the Local CA GUID (IBTA byte 28). */
    public static final int LOCAL_CA_GUID = Mad.DATA + 28;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA = Mad.DATA + 36;
    /** Length of the private data area: the most a consumer can send in this message. */
    public static final int PRIVATE_DATA_LENGTH = 196;

    private CmRep() {
    }

    /** The Local Communication ID (32 bits). */
    public static int localCommId(MemorySegment s, long off) {
        return Bits.i32(s, off + LOCAL_COMM_ID);
    }

    /** Sets the Local Communication ID. */
    public static void setLocalCommId(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + LOCAL_COMM_ID, v);
    }

    /** The Remote Communication ID (32 bits). */
    public static int remoteCommId(MemorySegment s, long off) {
        return Bits.i32(s, off + REMOTE_COMM_ID);
    }

    /** Sets the Remote Communication ID. */
    public static void setRemoteCommId(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + REMOTE_COMM_ID, v);
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

    /** The Local EE Context Number (24 bits). */
    public static int localEeContextNumber(MemorySegment s, long off) {
        return Bits.high(s, off + LOCAL_EE_CONTEXT_NUMBER, 24);
    }

    /** Sets the Local EE Context Number. */
    public static void setLocalEeContextNumber(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + LOCAL_EE_CONTEXT_NUMBER, 24, v);
    }

    /** The Starting PSN (24 bits). */
    public static int startingPsn(MemorySegment s, long off) {
        return Bits.high(s, off + STARTING_PSN, 24);
    }

    /** Sets the Starting PSN. */
    public static void setStartingPsn(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + STARTING_PSN, 24, v);
    }

    /** The Responder Resources (8 bits). */
    public static int responderResources(MemorySegment s, long off) {
        return Bits.u8(s, off + RESPONDER_RESOURCES);
    }

    /** Sets the Responder Resources. */
    public static void setResponderResources(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + RESPONDER_RESOURCES, v);
    }

    /** The Initiator Depth (8 bits). */
    public static int initiatorDepth(MemorySegment s, long off) {
        return Bits.u8(s, off + INITIATOR_DEPTH);
    }

    /** Sets the Initiator Depth. */
    public static void setInitiatorDepth(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + INITIATOR_DEPTH, v);
    }

    /** The Target ACK Delay (5 bits at bit 0). */
    public static int targetAckDelay(MemorySegment s, long off) {
        return Bits.get8(s, off + TARGET_ACK_DELAY, 0, 5);
    }

    /** Sets the Target ACK Delay. */
    public static void setTargetAckDelay(MemorySegment s, long off, int v) {
        Bits.set8(s, off + TARGET_ACK_DELAY, 0, 5, v);
    }

    /** The Failover Accepted field (2 bits at bit 5). */
    public static int failoverAccepted(MemorySegment s, long off) {
        return Bits.get8(s, off + FAILOVER_ACCEPTED, 5, 2);
    }

    /** Sets the Failover Accepted field. */
    public static void setFailoverAccepted(MemorySegment s, long off, int v) {
        Bits.set8(s, off + FAILOVER_ACCEPTED, 5, 2, v);
    }

    /** The End-to-End Flow Control bit (1 bit at bit 7). */
    public static boolean endToEndFlowControl(MemorySegment s, long off) {
        return Bits.flag(s, off + END_TO_END_FLOW_CONTROL, 7);
    }

    /** Sets the End-to-End Flow Control bit. */
    public static void setEndToEndFlowControl(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + END_TO_END_FLOW_CONTROL, 7, v);
    }

    /** The RNR Retry Count (3 bits at bit 0). */
    public static int rnrRetryCount(MemorySegment s, long off) {
        return Bits.get8(s, off + RNR_RETRY_COUNT, 0, 3);
    }

    /** Sets the RNR Retry Count. */
    public static void setRnrRetryCount(MemorySegment s, long off, int v) {
        Bits.set8(s, off + RNR_RETRY_COUNT, 0, 3, v);
    }

    /** The SRQ bit (1 bit at bit 3). */
    public static boolean srq(MemorySegment s, long off) {
        return Bits.flag(s, off + SRQ, 3);
    }

    /** Sets the SRQ bit. */
    public static void setSrq(MemorySegment s, long off, boolean v) {
        Bits.setFlag(s, off + SRQ, 3, v);
    }

    /** The Local CA GUID (64 bits). */
    public static long localCaGuid(MemorySegment s, long off) {
        return Bits.i64(s, off + LOCAL_CA_GUID);
    }

    /** Sets the Local CA GUID. */
    public static void setLocalCaGuid(MemorySegment s, long off, long v) {
        Bits.setI64(s, off + LOCAL_CA_GUID, v);
    }

}
