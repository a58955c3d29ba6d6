package io.jrdma.wire;

import static io.jrdma.wire.Layouts.INT_BE;

import java.lang.foreign.MemorySegment;

/**
 * Invalidate Extended Transport Header flyweight (IBA 9.3), carried by SEND LAST/ONLY with Invalidate.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 R_Key to invalidate                           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class Ieth {
    /** Header length in bytes. */
    public static final int LENGTH = 4;
    /** Offset of the remote key. */
    public static final int RKEY = 0;

    private Ieth() {
    }

    /** The remote key the responder invalidates. */
    public static int rkey(MemorySegment s, long off) {
        return s.get(INT_BE, off + RKEY);
    }

    /** Sets the remote key to invalidate. */
    public static void setRkey(MemorySegment s, long off, int v) {
        s.set(INT_BE, off + RKEY, v);
    }
}
