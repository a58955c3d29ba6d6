package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * CM ServiceIDResolutionResponse (SIDR_REP) flyweight (IBA 12.11.2 table 120; the kernel's struct cm_sidr_rep_msg).
 *
 * <p>Static accessors over {@code (segment, offset of the MAD's first byte)}, big-endian, allocation-free.
 * Offset constants count from the MAD's first byte: the IBTA table's byte offset plus
 * {@link Mad#DATA} (24). Bit positions follow the IBTA "Byte[Bit]" notation (bit 0 = most significant);
 * setters mask values to the field width and leave every other bit unchanged.
 */
public final class CmSidrRep {
    /** Attribute id of this message. */
    public static final int ATTRIBUTE_ID = CmAttributeId.SIDR_REP;
    /** Offset of the bytes holding the RequestID (IBTA byte 0). */
    public static final int REQUEST_ID = Mad.DATA + 0;
    /** Offset of the byte holding the Status (see {@link CmSidrStatus}) (IBTA byte 4). */
    public static final int STATUS = Mad.DATA + 4;
    /** Offset of the byte holding the Additional Information Length (IBTA byte 5). */
    public static final int ADDITIONAL_INFORMATION_LENGTH = Mad.DATA + 5;
    /** Offset of the bytes holding the QPN (IBTA byte 8). */
    public static final int QPN = Mad.DATA + 8;
    /** Offset of the bytes holding the ServiceID (IBTA byte 12). */
    public static final int SERVICE_ID = Mad.DATA + 12;
    /** Offset of the bytes holding the Q_Key (IBTA byte 20). */
    public static final int QKEY = Mad.DATA + 20;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA = Mad.DATA + 96;
    /** Length of the private data area: the most a consumer can send in this message. */
    public static final int PRIVATE_DATA_LENGTH = 136;
    /** Offset of the Additional Information (a ClassPortInfo on redirect). */
    public static final int ADDITIONAL_INFORMATION = Mad.DATA + 24;
    /** Length of the Additional Information area. */
    public static final int ADDITIONAL_INFORMATION_MAX_LENGTH = 72;

    private CmSidrRep() {
    }

    /** The RequestID (32 bits). */
    public static int requestId(MemorySegment s, long off) {
        return Bits.i32(s, off + REQUEST_ID);
    }

    /** Sets the RequestID. */
    public static void setRequestId(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + REQUEST_ID, v);
    }

    /** The Status (see {@link CmSidrStatus}) (8 bits). */
    public static int status(MemorySegment s, long off) {
        return Bits.u8(s, off + STATUS);
    }

    /** Sets the Status (see {@link CmSidrStatus}). */
    public static void setStatus(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + STATUS, v);
    }

    /** The Additional Information Length (8 bits). */
    public static int additionalInformationLength(MemorySegment s, long off) {
        return Bits.u8(s, off + ADDITIONAL_INFORMATION_LENGTH);
    }

    /** Sets the Additional Information Length. */
    public static void setAdditionalInformationLength(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + ADDITIONAL_INFORMATION_LENGTH, v);
    }

    /** The QPN (24 bits). */
    public static int qpn(MemorySegment s, long off) {
        return Bits.high(s, off + QPN, 24);
    }

    /** Sets the QPN. */
    public static void setQpn(MemorySegment s, long off, int v) {
        Bits.setHigh(s, off + QPN, 24, v);
    }

    /** The ServiceID (64 bits). */
    public static long serviceId(MemorySegment s, long off) {
        return Bits.i64(s, off + SERVICE_ID);
    }

    /** Sets the ServiceID. */
    public static void setServiceId(MemorySegment s, long off, long v) {
        Bits.setI64(s, off + SERVICE_ID, v);
    }

    /** The Q_Key (32 bits). */
    public static int qkey(MemorySegment s, long off) {
        return Bits.i32(s, off + QKEY);
    }

    /** Sets the Q_Key. */
    public static void setQkey(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + QKEY, v);
    }

}
