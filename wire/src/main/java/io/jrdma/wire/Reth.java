package io.jrdma.wire;

import static io.jrdma.wire.Layouts.INT_BE;
import static io.jrdma.wire.Layouts.LONG_BE;

import java.lang.foreign.MemorySegment;

/**
 * RDMA Extended Transport Header flyweight (IBA 9.3), carried by RDMA WRITE FIRST/ONLY and RDMA READ requests.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     Virtual Address (63..32)                  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     Virtual Address (31..0)                   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          Remote Key                           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                          DMA Length                           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class Reth {
    /** Header length in bytes. */
    public static final int LENGTH = 16;
    /** Offset of the virtual address. */
    public static final int VA = 0;
    /** Offset of the remote key. */
    public static final int RKEY = 8;
    /** Offset of the DMA length. */
    public static final int DMA_LENGTH = 12;

    private Reth() {
    }

    /** Remote virtual address. */
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

    /** DMA length of the whole message in bytes (unsigned 32 bits; use {@link Integer#toUnsignedLong}). */
    public static int dmaLength(MemorySegment s, long off) {
        return s.get(INT_BE, off + DMA_LENGTH);
    }

    /** Sets the DMA length. */
    public static void setDmaLength(MemorySegment s, long off, int v) {
        s.set(INT_BE, off + DMA_LENGTH, v);
    }

    /** Writes all 16 bytes. */
    public static void write(MemorySegment s, long off, long va, int rkey, int dmaLength) {
        setVa(s, off, va);
        setRkey(s, off, rkey);
        setDmaLength(s, off, dmaLength);
    }
}
