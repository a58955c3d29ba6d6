package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * Common MAD header flyweight (IBA 13.4.3, the kernel's {@code struct ib_mad_hdr}): the first 24 bytes of every
 * 256-byte management datagram. Communication management MADs travel as UD SENDs to QP 1 (the GSI) with the
 * Q_Key {@link #GSI_QKEY}; the class data ({@code Cm*} flyweights) follows at {@link #DATA}.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | BaseVersion   | MgmtClass     | ClassVersion  |R|  Method     |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |            Status             |         ClassSpecific         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    TransactionID (64 bits)                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          AttributeID          |           Reserved            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      AttributeModifier                        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class Mad {
    /** Size of every MAD in bytes. */
    public static final int MAD_SIZE = 256;
    /** Length of the common MAD header. */
    public static final int HEADER_LENGTH = 24;
    /** Offset of the class data (the CM message fields) from the MAD's first byte. */
    public static final int DATA = HEADER_LENGTH;

    /** Offset of the base version byte. */
    public static final int BASE_VERSION = 0;
    /** Offset of the management class byte. */
    public static final int MGMT_CLASS = 1;
    /** Offset of the class version byte. */
    public static final int CLASS_VERSION = 2;
    /** Offset of the method byte (response bit, then the 7-bit method). */
    public static final int METHOD = 3;
    /** Offset of the 16-bit status. */
    public static final int STATUS = 4;
    /** Offset of the 16-bit class-specific field. */
    public static final int CLASS_SPECIFIC = 6;
    /** Offset of the 64-bit transaction id. */
    public static final int TRANSACTION_ID = 8;
    /** Offset of the 16-bit attribute id. */
    public static final int ATTRIBUTE_ID = 16;
    /** Offset of the 16 reserved bits after the attribute id. */
    public static final int RESERVED = 18;
    /** Offset of the 32-bit attribute modifier. */
    public static final int ATTRIBUTE_MODIFIER = 20;

    /** The MAD base version (IB_MGMT_BASE_VERSION). */
    public static final int BASE_VERSION_1 = 1;
    /** Management class of communication management (IB_MGMT_CLASS_CM). */
    public static final int MGMT_CLASS_CM = 0x07;
    /** Class version of the CM messages the kernel sends and accepts (IB_CM_CLASS_VERSION, IBA 1.2). */
    public static final int CM_CLASS_VERSION = 2;

    /** Method Get. */
    public static final int METHOD_GET = 0x01;
    /** Method Set. */
    public static final int METHOD_SET = 0x02;
    /** Method Send: every CM message uses it. */
    public static final int METHOD_SEND = 0x03;
    /** Method Trap. */
    public static final int METHOD_TRAP = 0x05;
    /** Method Report. */
    public static final int METHOD_REPORT = 0x06;
    /** Method TrapRepress. */
    public static final int METHOD_TRAP_REPRESS = 0x07;
    /** The response bit of the method byte. */
    public static final int METHOD_RESPONSE = 0x80;
    /** Method GetResp (Get with the response bit). */
    public static final int METHOD_GET_RESP = 0x81;
    /** Method ReportResp. */
    public static final int METHOD_REPORT_RESP = 0x86;

    /** QP number of the General Services Interface, which carries CM MADs. */
    public static final int GSI_QPN = 1;
    /** The well-known Q_Key of QP 1 (IB_QP1_QKEY). */
    public static final int GSI_QKEY = 0x8001_0000;

    private Mad() {
    }

    /** Base version. */
    public static int baseVersion(MemorySegment s, long off) {
        return Bits.u8(s, off + BASE_VERSION);
    }

    /** Sets the base version. */
    public static void setBaseVersion(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + BASE_VERSION, v);
    }

    /** Management class. */
    public static int mgmtClass(MemorySegment s, long off) {
        return Bits.u8(s, off + MGMT_CLASS);
    }

    /** Sets the management class. */
    public static void setMgmtClass(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + MGMT_CLASS, v);
    }

    /** Class version. */
    public static int classVersion(MemorySegment s, long off) {
        return Bits.u8(s, off + CLASS_VERSION);
    }

    /** Sets the class version. */
    public static void setClassVersion(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + CLASS_VERSION, v);
    }

    /** Method byte, including the response bit {@link #METHOD_RESPONSE}. */
    public static int method(MemorySegment s, long off) {
        return Bits.u8(s, off + METHOD);
    }

    /** Sets the method byte. */
    public static void setMethod(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + METHOD, v);
    }

    /** Status (16 bits). */
    public static int status(MemorySegment s, long off) {
        return Bits.u16(s, off + STATUS);
    }

    /** Sets the status. */
    public static void setStatus(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + STATUS, v);
    }

    /** Class-specific field (16 bits). */
    public static int classSpecific(MemorySegment s, long off) {
        return Bits.u16(s, off + CLASS_SPECIFIC);
    }

    /** Sets the class-specific field. */
    public static void setClassSpecific(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + CLASS_SPECIFIC, v);
    }

    /** Transaction id. */
    public static long transactionId(MemorySegment s, long off) {
        return Bits.i64(s, off + TRANSACTION_ID);
    }

    /** Sets the transaction id. */
    public static void setTransactionId(MemorySegment s, long off, long v) {
        Bits.setI64(s, off + TRANSACTION_ID, v);
    }

    /** Attribute id (16 bits); CM ids in {@link CmAttributeId}. */
    public static int attributeId(MemorySegment s, long off) {
        return Bits.u16(s, off + ATTRIBUTE_ID);
    }

    /** Sets the attribute id. */
    public static void setAttributeId(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + ATTRIBUTE_ID, v);
    }

    /** The reserved 16 bits after the attribute id (zero on the wire). */
    public static int reserved(MemorySegment s, long off) {
        return Bits.u16(s, off + RESERVED);
    }

    /** Attribute modifier. */
    public static int attributeModifier(MemorySegment s, long off) {
        return Bits.i32(s, off + ATTRIBUTE_MODIFIER);
    }

    /** Sets the attribute modifier. */
    public static void setAttributeModifier(MemorySegment s, long off, int v) {
        Bits.setI32(s, off + ATTRIBUTE_MODIFIER, v);
    }

    /**
     * Writes all 24 header bytes (reserved bits zero).
     *
     * @param s      memory holding the MAD
     * @param off    offset of the MAD's first byte
     * @param mgmtClass management class
     * @param classVersion class version
     * @param method method byte
     * @param status status
     * @param transactionId transaction id
     * @param attributeId attribute id
     * @param attributeModifier attribute modifier
     */
    public static void writeHeader(MemorySegment s, long off, int mgmtClass, int classVersion, int method,
            int status, long transactionId, int attributeId, int attributeModifier) {
        setBaseVersion(s, off, BASE_VERSION_1);
        setMgmtClass(s, off, mgmtClass);
        setClassVersion(s, off, classVersion);
        setMethod(s, off, method);
        setStatus(s, off, status);
        setClassSpecific(s, off, 0);
        setTransactionId(s, off, transactionId);
        setAttributeId(s, off, attributeId);
        Bits.setU16(s, off + RESERVED, 0);
        setAttributeModifier(s, off, attributeModifier);
    }

    /** Writes the header of a CM message as the kernel's ib_cm does: class 7 version 2, Send, status 0. */
    public static void writeCmHeader(MemorySegment s, long off, int attributeId, long transactionId) {
        writeHeader(s, off, MGMT_CLASS_CM, CM_CLASS_VERSION, METHOD_SEND, 0, transactionId, attributeId, 0);
    }

    /** True when the MAD at {@code off} is a communication management MAD (class 7, base version 1). */
    public static boolean isCm(MemorySegment s, long off) {
        return baseVersion(s, off) == BASE_VERSION_1 && mgmtClass(s, off) == MGMT_CLASS_CM;
    }
}
