package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * CM ServiceIDResolutionRequest (SIDR_REQ) flyweight (IBA 12.11.1 table 119; the kernel's struct cm_sidr_req_msg).
 *
 * <p>The kernel's rdma_cm puts a {@link CmaHeader} first in the private data.
 *
 * <p>Static accessors over {@code (segment, offset of the MAD's first byte)}, big-endian, allocation-free.
 * Offset constants count from the MAD's first byte: the IBTA table's byte offset plus
 * {@link Mad#DATA} (24). Bit positions follow the IBTA "Byte[Bit]" notation (bit 0 = most significant);
 * setters mask values to the field width and leave every other bit unchanged.
 */
public final class CmSidrReq {
    /** Attribute id of this message. */
    public static final int ATTRIBUTE_ID = CmAttributeId.SIDR_REQ;
    /** Offset of the bytes holding the RequestID (IBTA byte 0). */
    public static final int REQUEST_ID = Mad.DATA + 0;
    /** Offset of the bytes holding the Partition Key (IBTA byte 4). */
    public static final int PARTITION_KEY = Mad.DATA + 4;
    /** Offset of the bytes holding the ServiceID (IBTA byte 8). */
    public static final int SERVICE_ID = Mad.DATA + 8;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA = Mad.DATA + 16;
    /** Length of the private data area: the most a consumer can send in this message. */
    public static final int PRIVATE_DATA_LENGTH = 216;

    private CmSidrReq() {
    }

    /** The RequestID (32 bits). */
    public static int requestId(MemorySegment s, long off) {
        return Bits.i32(s, off + REQUEST_ID);
    }

    /** Sets the RequestID. */
    public static void setRequestId(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + REQUEST_ID, v);
    }

    /** The Partition Key (16 bits). */
    public static int partitionKey(MemorySegment s, long off) {
        return Bits.u16(s, off + PARTITION_KEY);
    }

    /** Sets the Partition Key. */
    public static void setPartitionKey(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + PARTITION_KEY, v);
    }

    /** The ServiceID (64 bits). */
    public static long serviceId(MemorySegment s, long off) {
        return Bits.i64(s, off + SERVICE_ID);
    }

    /** Sets the ServiceID. */
    public static void setServiceId(MemorySegment s, long off, long v) {
        Bits.setI64(s, off + SERVICE_ID, v);
    }

}
