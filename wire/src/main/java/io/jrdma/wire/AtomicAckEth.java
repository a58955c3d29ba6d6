package io.jrdma.wire;

import static io.jrdma.wire.Layouts.LONG_BE;

import java.lang.foreign.MemorySegment;

/**
 * Atomic Acknowledge Extended Transport Header flyweight (IBA 9.3), carried by ATOMIC Acknowledge after the AETH.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |               Original Remote Data (64 bits)                  |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicAckEth {
    /** Header length in bytes. */
    public static final int LENGTH = 8;
    /** Offset of the original remote data. */
    public static final int ORIG_DATA = 0;

    private AtomicAckEth() {
    }

    /** The remote 64-bit value before the atomic operation. */
    public static long origData(MemorySegment s, long off) {
        return s.get(LONG_BE, off + ORIG_DATA);
    }

    /** Sets the original remote data. */
    public static void setOrigData(MemorySegment s, long off, long v) {
        s.set(LONG_BE, off + ORIG_DATA, v);
    }
}
