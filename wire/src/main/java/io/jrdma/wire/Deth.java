package io.jrdma.wire;

import static io.jrdma.wire.Layouts.INT_BE;
import static io.jrdma.wire.Layouts.MASK24;

import java.lang.foreign.MemorySegment;

/**
 * Datagram Extended Transport Header flyweight (IBA 9.3), carried by UD packets.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          Queue Key                            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |   Reserved    |            Source QP                          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class Deth {
    /** Header length in bytes. */
    public static final int LENGTH = 8;
    /** Offset of the Q_Key. */
    public static final int QKEY = 0;
    /** Offset of the 32-bit word: reserved byte, then the 24-bit source QP. */
    public static final int SRC_QP_WORD = 4;

    private Deth() {
    }

    /** Queue key. */
    public static int qkey(MemorySegment s, long off) {
        return s.get(INT_BE, off + QKEY);
    }

    /** Sets the queue key. */
    public static void setQkey(MemorySegment s, long off, int v) {
        s.set(INT_BE, off + QKEY, v);
    }

    /** Source QP number (24 bits). */
    public static int srcQp(MemorySegment s, long off) {
        return s.get(INT_BE, off + SRC_QP_WORD) & MASK24;
    }

    /** Sets the source QP and zeroes the reserved byte. */
    public static void setSrcQp(MemorySegment s, long off, int v) {
        s.set(INT_BE, off + SRC_QP_WORD, v & MASK24);
    }

    /** Writes all 8 bytes (reserved byte 0). */
    public static void write(MemorySegment s, long off, int qkey, int srcQp) {
        setQkey(s, off, qkey);
        setSrcQp(s, off, srcQp);
    }
}
