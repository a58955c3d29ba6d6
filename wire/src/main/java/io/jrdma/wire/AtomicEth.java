package io.jrdma.wire;

import static io.jrdma.wire.Layouts.INT_BE;
import static io.jrdma.wire.Layouts.LONG_BE;

import java.lang.foreign.MemorySegment;

/**
 * Atomic Extended Transport Header flyweight (IBA 9.3), carried by CmpSwap and FetchAdd requests.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Virtual Address (64 bits)                    |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          Remote Key                           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |               Swap (CmpSwap) or Add (FetchAdd) Data           |
 * +                          (64 bits)                            +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Compare Data (64 bits, CmpSwap)              |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicEth {
    /** Header length in bytes. */
    public static final int LENGTH = 28;
    /** Offset of the virtual address. */
    public static final int VA = 0;
    /** Offset of the remote key. */
    public static final int RKEY = 8;
    /** Offset of the swap (CmpSwap) or add (FetchAdd) operand. */
    public static final int SWAP_ADD = 12;
    /** Offset of the compare operand. */
    public static final int COMPARE = 20;

    private AtomicEth() {
    }

    /** Remote virtual address (8-byte aligned). */
    public static long va(MemorySegment s, long off) {
        return s.get(LONG_BE, off + VA);
    }

    /** Sets the remote virtual address. */
    public static void setVa(MemorySegment s, long off, long v) {
        s.set(LONG_BE, off + VA, v);
    }

    /** Remote key. */
    public static int rkey(MemorySegment s, long off) {
        return s.get(INT_BE, off + RKEY);
    }

    /** Sets the remote key. */
    public static void setRkey(MemorySegment s, long off, int v) {
        s.set(INT_BE, off + RKEY, v);
    }

    /** Swap (CmpSwap) or add (FetchAdd) operand. */
    public static long swapAdd(MemorySegment s, long off) {
        return s.get(LONG_BE, off + SWAP_ADD);
    }

    /** Sets the swap/add operand. */
    public static void setSwapAdd(MemorySegment s, long off, long v) {
        s.set(LONG_BE, off + SWAP_ADD, v);
    }

    /** Compare operand (CmpSwap; ignored by FetchAdd). */
    public static long compare(MemorySegment s, long off) {
        return s.get(LONG_BE, off + COMPARE);
    }

    /** Sets the compare operand. */
    public static void setCompare(MemorySegment s, long off, long v) {
        s.set(LONG_BE, off + COMPARE, v);
    }

    /** Writes all 28 bytes. */
    public static void write(MemorySegment s, long off, long va, int rkey, long swapAdd, long compare) {
        setVa(s, off, va);
        setRkey(s, off, rkey);
        setSwapAdd(s, off, swapAdd);
        setCompare(s, off, compare);
    }
}
