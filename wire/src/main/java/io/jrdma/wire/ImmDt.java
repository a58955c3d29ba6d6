package io.jrdma.wire;

import static io.jrdma.wire.Layouts.INT_BE;

import java.lang.foreign.MemorySegment;

/**
 * Immediate Data extended header flyweight (IBA 9.3).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                        Immediate Data                         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The four bytes travel as the sender gave them (network order, as verbs' {@code imm_data} is {@code __be32}).
 */
public final class ImmDt {
    /** Header length in bytes. */
    public static final int LENGTH = 4;
    /** Offset of the immediate data. */
    public static final int IMM = 0;

    private ImmDt() {
    }

    /** Immediate data, read big-endian. */
    public static int imm(MemorySegment s, long off) {
        return s.get(INT_BE, off + IMM);
    }

    /** Sets the immediate data, written big-endian. */
    public static void setImm(MemorySegment s, long off, int v) {
        s.set(INT_BE, off + IMM, v);
    }
}
