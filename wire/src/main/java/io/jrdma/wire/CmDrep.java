package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * CM DisconnectReply (DREP) message flyweight (IBA 12.6.11 table 113; the kernel's struct cm_drep_msg).
 *
 * <p>Static accessors over {@code (segment, offset of the MAD's first byte)}, big-endian, allocation-free.
 * Offset constants count from the MAD's first byte: the IBTA table's byte offset plus
 * {@link Mad#DATA} (24). Bit positions follow the IBTA "Byte[Bit]" notation (bit 0 = most significant);
 * setters mask values to the field width and leave every other bit unchanged.
 */
public final class CmDrep {
    /** Attribute id of this message. */
    public static final int ATTRIBUTE_ID = CmAttributeId.DREP;
    /** Offset of the bytes holding the Local Communication ID (IBTA byte 0). */
    public static final int LOCAL_COMM_ID = Mad.DATA + 0;
    /** Offset of the bytes holding the Remote Communication ID (IBTA byte 4). */
    public static final int REMOTE_COMM_ID = Mad.DATA + 4;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA = Mad.DATA + 8;
    /** Length of the private data area: the most a consumer can send in this message. */
    public static final int PRIVATE_DATA_LENGTH = 224;

    private CmDrep() {
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

}
