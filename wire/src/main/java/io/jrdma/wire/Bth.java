package io.jrdma.wire;

import static io.jrdma.wire.Layouts.BYTE;
import static io.jrdma.wire.Layouts.INT_BE;
import static io.jrdma.wire.Layouts.MASK24;
import static io.jrdma.wire.Layouts.SHORT_BE;

import java.lang.foreign.MemorySegment;

/**
 * Base Transport Header flyweight (IBA 9.2), static accessors over {@code (segment, offset of the BTH)}.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |    OpCode     |S|M|Pad| TVer  |        Partition Key          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |F|B| Resv6a    |             Destination QP                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |A|  Resv7      |        Packet Sequence Number                 |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * S = Solicited Event, M = MigReq, F/B = FECN/BECN (RoCEv2: byte 4 is "resv8a", masked by the ICRC),
 * A = AckReq.
 */
public final class Bth {
    /** Header length in bytes. */
    public static final int LENGTH = 12;
    /** Offset of the opcode byte. */
    public static final int OPCODE = 0;
    /** Offset of the SE/M/PadCnt/TVer byte. */
    public static final int FLAGS = 1;
    /** Offset of the 16-bit P_Key. */
    public static final int PKEY = 2;
    /** Offset of the resv8a byte (FECN/BECN). */
    public static final int RESV8A = 4;
    /** Offset of the 32-bit word whose low 24 bits are the destination QP. */
    public static final int DEST_QP_WORD = 4;
    /** Offset of the 32-bit word holding AckReq (bit 31) and the PSN (low 24 bits). */
    public static final int PSN_WORD = 8;
    /** Offset of the AckReq/Resv7 byte. */
    public static final int ACK_REQ = 8;

    private static final int SE_BIT = 0x80;
    private static final int MIG_BIT = 0x40;
    private static final int PAD_MASK = 0x30;
    private static final int PAD_SHIFT = 4;
    private static final int TVER_MASK = 0x0F;
    private static final int ACK_BIT = 0x80;

    private Bth() {
    }

    /** The opcode byte (0..255); decode with {@link Opcode#of(int)}. */
    public static int opcode(MemorySegment s, long off) {
        return s.get(BYTE, off + OPCODE) & 0xFF;
    }

    /** Sets the opcode byte. */
    public static void setOpcode(MemorySegment s, long off, int v) {
        s.set(BYTE, off + OPCODE, (byte) v);
    }

    /** Solicited Event bit (bit 7 of byte 1). */
    public static boolean solicited(MemorySegment s, long off) {
        return (s.get(BYTE, off + FLAGS) & SE_BIT) != 0;
    }

    /** Sets the Solicited Event bit. */
    public static void setSolicited(MemorySegment s, long off, boolean v) {
        setBits(s, off + FLAGS, SE_BIT, v ? SE_BIT : 0);
    }

    /** MigReq bit (bit 6 of byte 1). */
    public static boolean migReq(MemorySegment s, long off) {
        return (s.get(BYTE, off + FLAGS) & MIG_BIT) != 0;
    }

    /** Sets the MigReq bit. */
    public static void setMigReq(MemorySegment s, long off, boolean v) {
        setBits(s, off + FLAGS, MIG_BIT, v ? MIG_BIT : 0);
    }

    /** Pad count (bits 5-4 of byte 1): bytes appended to the payload to reach a multiple of 4. */
    public static int padCount(MemorySegment s, long off) {
        return (s.get(BYTE, off + FLAGS) & PAD_MASK) >>> PAD_SHIFT;
    }

    /** Sets the pad count (0..3). */
    public static void setPadCount(MemorySegment s, long off, int v) {
        setBits(s, off + FLAGS, PAD_MASK, v << PAD_SHIFT);
    }

    /** Transport header version (bits 3-0 of byte 1); 0 in IBA 1.x. */
    public static int tver(MemorySegment s, long off) {
        return s.get(BYTE, off + FLAGS) & TVER_MASK;
    }

    /** Sets the transport header version. */
    public static void setTver(MemorySegment s, long off, int v) {
        setBits(s, off + FLAGS, TVER_MASK, v);
    }

    /** Partition key (16 bits; 0xFFFF is the default full-membership key). */
    public static int pkey(MemorySegment s, long off) {
        return s.get(SHORT_BE, off + PKEY) & 0xFFFF;
    }

    /** Sets the partition key. */
    public static void setPkey(MemorySegment s, long off, int v) {
        s.set(SHORT_BE, off + PKEY, (short) v);
    }

    /** Byte 4: FECN (bit 7), BECN (bit 6), reserved; 0 when sent, masked to 0xFF in the ICRC. */
    public static int resv8a(MemorySegment s, long off) {
        return s.get(BYTE, off + RESV8A) & 0xFF;
    }

    /** Sets byte 4. */
    public static void setResv8a(MemorySegment s, long off, int v) {
        s.set(BYTE, off + RESV8A, (byte) v);
    }

    /** Destination QP number (24 bits, bytes 5-7). */
    public static int destQp(MemorySegment s, long off) {
        return s.get(INT_BE, off + DEST_QP_WORD) & MASK24;
    }

    /** Sets the destination QP, keeping byte 4. */
    public static void setDestQp(MemorySegment s, long off, int v) {
        int w = s.get(INT_BE, off + DEST_QP_WORD);
        s.set(INT_BE, off + DEST_QP_WORD, (w & ~MASK24) | (v & MASK24));
    }

    /** AckReq bit (bit 7 of byte 8). */
    public static boolean ackReq(MemorySegment s, long off) {
        return (s.get(BYTE, off + ACK_REQ) & ACK_BIT) != 0;
    }

    /** Sets the AckReq bit. */
    public static void setAckReq(MemorySegment s, long off, boolean v) {
        setBits(s, off + ACK_REQ, ACK_BIT, v ? ACK_BIT : 0);
    }

    /** Packet sequence number (24 bits, bytes 9-11). */
    public static int psn(MemorySegment s, long off) {
        return s.get(INT_BE, off + PSN_WORD) & MASK24;
    }

    /** Sets the PSN, keeping byte 8. */
    public static void setPsn(MemorySegment s, long off, int v) {
        int w = s.get(INT_BE, off + PSN_WORD);
        s.set(INT_BE, off + PSN_WORD, (w & ~MASK24) | (v & MASK24));
    }

    /**
     * Writes all 12 bytes: TVer 0, byte 4 (FECN/BECN/resv) 0, Resv7 0.
     *
     * @param s        segment
     * @param off      offset of the BTH
     * @param opcode   opcode byte
     * @param se       Solicited Event
     * @param migReq   MigReq
     * @param padCount pad count 0..3
     * @param pkey     partition key
     * @param destQp   destination QP (24 bits)
     * @param ackReq   AckReq
     * @param psn      PSN (24 bits)
     */
    public static void write(MemorySegment s, long off, int opcode, boolean se, boolean migReq, int padCount,
                             int pkey, int destQp, boolean ackReq, int psn) {
        int flags = (se ? SE_BIT : 0) | (migReq ? MIG_BIT : 0) | ((padCount << PAD_SHIFT) & PAD_MASK);
        s.set(INT_BE, off, (opcode & 0xFF) << 24 | flags << 16 | (pkey & 0xFFFF));
        s.set(INT_BE, off + DEST_QP_WORD, destQp & MASK24);
        s.set(INT_BE, off + PSN_WORD, (ackReq ? 1 << 31 : 0) | (psn & MASK24));
    }

    private static void setBits(MemorySegment s, long at, int mask, int bits) {
        int b = s.get(BYTE, at);
        s.set(BYTE, at, (byte) ((b & ~mask) | (bits & mask)));
    }
}
