package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * CM MessageReceiptAcknowledgement (MRA) message flyweight (IBA 12.6.6 table 107; the kernel's struct cm_mra_msg).
 *
 * <p>Static accessors over {@code (segment, offset of the MAD's first byte)}, big-endian, allocation-free.
 * Offset constants count from the MAD's first byte: the IBTA table's byte offset plus
 * {@link Mad#DATA} (24). Bit positions follow the IBTA "Byte[Bit]" notation (bit 0 = most significant);
 * setters mask values to the field width and leave every other bit unchanged.
 */
public final class CmMra {
    /** Attribute id of this message. */
    public static final int ATTRIBUTE_ID = CmAttributeId.MRA;
    /** Offset of the bytes holding the Local Communication ID (IBTA byte 0). */
    public static final int LOCAL_COMM_ID = Mad.DATA + 0;
    /** Offset of the bytes holding the Remote Communication ID (IBTA byte 4). */
    public static final int REMOTE_COMM_ID = Mad.DATA + 4;
    /** Offset of the byte holding the Message MRAed field (see MESSAGE_*) (IBTA byte 8). */
    public static final int MESSAGE_MRAED = Mad.DATA + 8;
    /** Offset of the byte holding the Service Timeout (IBTA byte 9). */
    public static final int SERVICE_TIMEOUT = Mad.DATA + 9;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA = Mad.DATA + 10;
    /** Length of the private data area: the most a consumer can send in this message. */
    public static final int PRIVATE_DATA_LENGTH = 222;
    /** Message-MRAed value: the REQ. */
    public static final int MESSAGE_REQ = 0;
    /** Message-MRAed value: the REP. */
    public static final int MESSAGE_REP = 1;
    /** Message-MRAed value: another message (LAP for MRA, or a REJ of anything but REQ and REP). */
    public static final int MESSAGE_OTHER = 2;

    private CmMra() {
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

    /** The Message MRAed field (see MESSAGE_*) (2 bits at bit 0). */
    public static int messageMraed(MemorySegment s, long off) {
        return Bits.get8(s, off + MESSAGE_MRAED, 0, 2);
    }

    /** Sets the Message MRAed field (see MESSAGE_*). */
    public static void setMessageMraed(MemorySegment s, long off, int v) {
        Bits.set8(s, off + MESSAGE_MRAED, 0, 2, v);
    }

    /** The Service Timeout (5 bits at bit 0). */
    public static int serviceTimeout(MemorySegment s, long off) {
        return Bits.get8(s, off + SERVICE_TIMEOUT, 0, 5);
    }

    /** Sets the Service Timeout. */
    public static void setServiceTimeout(MemorySegment s, long off, int v) {
        Bits.set8(s, off + SERVICE_TIMEOUT, 0, 5, v);
    }

}
