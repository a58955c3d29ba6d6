package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * CM ConnectReject (REJ) message flyweight (IBA 12.6.7 table 108; the kernel's struct cm_rej_msg).
 *
 * <p>Static accessors over {@code (segment, offset of the MAD's first byte)}, big-endian, allocation-free.
 * Offset constants count from the MAD's first byte: the IBTA table's byte offset plus
 * {@link Mad#DATA} (24). Bit positions follow the IBTA "Byte[Bit]" notation (bit 0 = most significant);
 * setters mask values to the field width and leave every other bit unchanged.
 */
public final class CmRej {
    /** Attribute id of this message. */
    public static final int ATTRIBUTE_ID = CmAttributeId.REJ;
    /** Offset of the bytes holding the Local Communication ID (IBTA byte 0). */
    public static final int LOCAL_COMM_ID = Mad.DATA + 0;
    /** Offset of the bytes holding the Remote Communication ID (IBTA byte 4). */
    public static final int REMOTE_COMM_ID = Mad.DATA + 4;
    /** Offset of the byte holding the Message REJected field (see MESSAGE_*) (IBTA byte 8). */
    public static final int MESSAGE_REJECTED = Mad.DATA + 8;
    /** Offset of the byte holding the Reject Info Length (bytes of ARI used) (IBTA byte 9). */
    public static final int REJECTED_INFO_LENGTH = Mad.DATA + 9;
    /** Offset of the bytes holding the Reason (see {@link CmRejectReason}) (IBTA byte 10). */
    public static final int REASON = Mad.DATA + 10;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA = Mad.DATA + 84;
    /** Length of the private data area: the most a consumer can send in this message. */
    public static final int PRIVATE_DATA_LENGTH = 148;
    /** Message-rejected value: the REQ. */
    public static final int MESSAGE_REQ = 0;
    /** Message-rejected value: the REP. */
    public static final int MESSAGE_REP = 1;
    /** Message-rejected value: another message (LAP for MRA, or a REJ of anything but REQ and REP). */
    public static final int MESSAGE_OTHER = 2;
    /** Offset of the Additional Rejection Information. */
    public static final int ARI = Mad.DATA + 12;
    /** Length of the Additional Rejection Information area. */
    public static final int ARI_LENGTH = 72;

    private CmRej() {
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

    /** The Message REJected field (see MESSAGE_*) (2 bits at bit 0). */
    public static int messageRejected(MemorySegment s, long off) {
        return Bits.get8(s, off + MESSAGE_REJECTED, 0, 2);
    }

    /** Sets the Message REJected field (see MESSAGE_*). */
    public static void setMessageRejected(MemorySegment s, long off, int v) {
        Bits.set8(s, off + MESSAGE_REJECTED, 0, 2, v);
    }

    /** The Reject Info Length (bytes of ARI used) (7 bits at bit 0). */
    public static int rejectedInfoLength(MemorySegment s, long off) {
        return Bits.get8(s, off + REJECTED_INFO_LENGTH, 0, 7);
    }

    /** Sets the Reject Info Length (bytes of ARI used). */
    public static void setRejectedInfoLength(MemorySegment s, long off, int v) {
        Bits.set8(s, off + REJECTED_INFO_LENGTH, 0, 7, v);
    }

    /** The Reason (see {@link CmRejectReason}) (16 bits). */
    public static int reason(MemorySegment s, long off) {
        return Bits.u16(s, off + REASON);
    }

    /** Sets the Reason (see {@link CmRejectReason}). */
    public static void setReason(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + REASON, v);
    }

}
