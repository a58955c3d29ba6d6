package io.jrdma.tools.scale;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The data of {@code jrdma scale}: every 8-byte word of every message is a SplitMix64 hash of the sender's seed,
 * the QP index, the message index, the operation and the word's index, so a message placed on the wrong QP, in the
 * wrong slot, by the wrong operation, from an earlier run, or damaged in any word fails the check.
 */
final class Payload {

    private Payload() {
    }

    /** The word at {@code word} of message {@code msg} that QP {@code qp} sends by {@code op}. */
    static long word(long seed, int qp, int msg, int op, long word) {
        long z = seed + (((long) qp << 32) | ((long) msg << 2) | op) * 0x9E3779B97F4A7C15L
                + word * 0xD1B54A32D192ED03L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Writes the message into {@code seg} at {@code offset} ({@code size} a multiple of 8). */
    static void fill(MemorySegment seg, long offset, int size, long seed, int qp, int msg, int op) {
        for (int w = 0; w < size / 8; w++) {
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * w, word(seed, qp, msg, op, w));
        }
    }

    /** The offset (from {@code offset}) of the first wrong word of the message in {@code seg}, or -1 if intact. */
    static long mismatch(MemorySegment seg, long offset, int size, long seed, int qp, int msg, int op) {
        for (int w = 0; w < size / 8; w++) {
            if (seg.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8L * w) != word(seed, qp, msg, op, w)) {
                return 8L * w;
            }
        }
        return -1;
    }
}
