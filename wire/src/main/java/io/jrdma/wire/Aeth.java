package io.jrdma.wire;

import static io.jrdma.wire.Layouts.BYTE;
import static io.jrdma.wire.Layouts.INT_BE;
import static io.jrdma.wire.Layouts.MASK24;

import java.lang.foreign.MemorySegment;

/**
 * ACK Extended Transport Header flyweight (IBA 9.3): syndrome and message sequence number. Decode the syndrome
 * with {@link AethSyndrome}.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |0|Typ|  Value  |            Message Sequence Number            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  \__Syndrome___/
 * </pre>
 * Syndrome bit 7 is reserved (0), bits 6-5 the type (ACK, RNR NAK, reserved, NAK), bits 4-0 the value.
 */
public final class Aeth {
    /** Header length in bytes. */
    public static final int LENGTH = 4;
    /** Offset of the syndrome byte. */
    public static final int SYNDROME = 0;
    /** Offset of the 32-bit word whose low 24 bits are the MSN. */
    public static final int MSN_WORD = 0;

    private Aeth() {
    }

    /** Syndrome byte (0..255). */
    public static int syndrome(MemorySegment s, long off) {
        return s.get(BYTE, off + SYNDROME) & 0xFF;
    }

    /** Sets the syndrome byte. */
    public static void setSyndrome(MemorySegment s, long off, int v) {
        s.set(BYTE, off + SYNDROME, (byte) v);
    }

    /** Message sequence number (24 bits). */
    public static int msn(MemorySegment s, long off) {
        return s.get(INT_BE, off + MSN_WORD) & MASK24;
    }

    /** Sets the MSN, keeping the syndrome. */
    public static void setMsn(MemorySegment s, long off, int v) {
        int w = s.get(INT_BE, off + MSN_WORD);
        s.set(INT_BE, off + MSN_WORD, (w & ~MASK24) | (v & MASK24));
    }

    /** Writes all 4 bytes. */
    public static void write(MemorySegment s, long off, int syndrome, int msn) {
        s.set(INT_BE, off, (syndrome & 0xFF) << 24 | (msn & MASK24));
    }
}
