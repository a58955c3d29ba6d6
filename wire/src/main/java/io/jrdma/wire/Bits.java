package io.jrdma.wire;

import static io.jrdma.wire.Layouts.BYTE;
import static io.jrdma.wire.Layouts.INT_BE;
import static io.jrdma.wire.Layouts.LONG_BE;
import static io.jrdma.wire.Layouts.SHORT_BE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Bit-field access in the IBTA "Byte[Bit]" notation used by the management datagram tables: bit 0 is the most
 * significant bit of a byte or word. Setters mask the value to the field's width and keep every other bit.
 */
final class Bits {
    private Bits() {
    }

    /** The {@code width}-bit field starting at bit {@code bit} (0 = MSB) of the byte at {@code at}. */
    static int get8(MemorySegment s, long at, int bit, int width) {
        int shift = 8 - bit - width;
        return (s.get(BYTE, at) & 0xFF) >>> shift & (1 << width) - 1;
    }

    /** Sets the {@code width}-bit field starting at bit {@code bit} (0 = MSB) of the byte at {@code at}. */
    static void set8(MemorySegment s, long at, int bit, int width, int v) {
        int shift = 8 - bit - width;
        int mask = (1 << width) - 1 << shift;
        int old = s.get(BYTE, at) & 0xFF;
        s.set(BYTE, at, (byte) (old & ~mask | v << shift & mask));
    }

    /** One flag bit (0 = MSB) of the byte at {@code at}. */
    static boolean flag(MemorySegment s, long at, int bit) {
        return get8(s, at, bit, 1) != 0;
    }

    /** Sets one flag bit (0 = MSB) of the byte at {@code at}. */
    static void setFlag(MemorySegment s, long at, int bit, boolean v) {
        set8(s, at, bit, 1, v ? 1 : 0);
    }

    /** Unsigned byte at {@code at}. */
    static int u8(MemorySegment s, long at) {
        return s.get(BYTE, at) & 0xFF;
    }

    /** Sets the byte at {@code at}. */
    static void setU8(MemorySegment s, long at, int v) {
        s.set(BYTE, at, (byte) v);
    }

    /** Unsigned big-endian 16-bit value at {@code at}. */
    static int u16(MemorySegment s, long at) {
        return s.get(SHORT_BE, at) & 0xFFFF;
    }

    /** Sets the big-endian 16-bit value at {@code at}. */
    static void setU16(MemorySegment s, long at, int v) {
        s.set(SHORT_BE, at, (short) v);
    }

    /** Big-endian 32-bit value at {@code at}. */
    static int i32(MemorySegment s, long at) {
        return s.get(INT_BE, at);
    }

    /** Sets the big-endian 32-bit value at {@code at}. */
    static void setI32(MemorySegment s, long at, int v) {
        s.set(INT_BE, at, v);
    }

    /** Big-endian 64-bit value at {@code at} (4-byte aligned in MADs, read unaligned). */
    static long i64(MemorySegment s, long at) {
        return s.get(LONG_BE, at);
    }

    /** Sets the big-endian 64-bit value at {@code at}. */
    static void setI64(MemorySegment s, long at, long v) {
        s.set(LONG_BE, at, v);
    }

    /** The most significant {@code width} bits of the big-endian 32-bit word at {@code at} (24-bit QPNs, PSNs). */
    static int high(MemorySegment s, long at, int width) {
        return s.get(INT_BE, at) >>> 32 - width;
    }

    /** Sets the most significant {@code width} bits of the 32-bit word at {@code at}, keeping the low bits. */
    static void setHigh(MemorySegment s, long at, int width, int v) {
        int low = (1 << 32 - width) - 1;
        int old = s.get(INT_BE, at);
        s.set(INT_BE, at, old & low | v << 32 - width);
    }

    /** Copies {@code dst.length} bytes at {@code at} into {@code dst}. */
    static void copyOut(MemorySegment s, long at, byte[] dst, int len) {
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at, dst, 0, len);
    }

    /** Copies {@code len} bytes of {@code src} to {@code at}. */
    static void copyIn(byte[] src, MemorySegment s, long at, int len) {
        MemorySegment.copy(src, 0, s, ValueLayout.JAVA_BYTE, at, len);
    }
}
