package io.jrdma.examples.noncontig;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * The data every transfer carries, so the receiver can check it: message byte {@code o} of the message with seed
 * {@code s} is {@code tape[(o + s * STEP) mod P]}. The tape is built so that stale data cannot pass for new data:
 * no tape byte is 0 (buffers are cleared to 0 before a measurement), and {@code tape[j] != tape[(j + STEP) mod P]}
 * for every {@code j}, so every byte of the message with seed {@code s - 1} differs from the one with seed
 * {@code s}. Filling and checking are bulk copies and compares against a doubled tape, not byte loops.
 */
public final class Tape {

    /** The tape's period, a prime. */
    static final int P = 65_521;
    /** The shift per seed; P being prime, the walk {@code j, j + STEP, ...} visits every index once. */
    static final int STEP = 7_919;

    private final MemorySegment tape; // P bytes, then the same P bytes again

    /** Builds the tape (the same for every run) in {@code arena}. */
    public Tape(Arena arena) {
        tape = arena.allocate(2L * P);
        SplittableRandom random = new SplittableRandom(0x6A72646D61L);
        byte first = nonZero(random, (byte) 0, (byte) 0);
        byte prev = first;
        int j = 0;
        tape.set(ValueLayout.JAVA_BYTE, 0, first);
        for (int n = 1; n < P; n++) {
            j = (j + STEP) % P;
            byte b = n == P - 1 ? nonZero(random, prev, first) : nonZero(random, prev, prev);
            tape.set(ValueLayout.JAVA_BYTE, j, b);
            prev = b;
        }
        MemorySegment.copy(tape, 0, tape, P, P);
    }

    private static byte nonZero(SplittableRandom random, byte notA, byte notB) {
        while (true) {
            byte b = (byte) random.nextInt(1, 256);
            if (b != notA && b != notB) {
                return b;
            }
        }
    }

    /** The expected message byte at {@code msgOffset} of the message with {@code seed}. */
    public byte expected(long msgOffset, int seed) {
        return tape.get(ValueLayout.JAVA_BYTE, start(msgOffset, seed));
    }

    private static long start(long msgOffset, int seed) {
        return Math.floorMod(msgOffset + (long) seed * STEP, (long) P);
    }

    /** Writes message bytes {@code [msgOffset, msgOffset + length)} of the message {@code seed} at {@code dst}. */
    public void fill(MemorySegment dst, long dstOffset, long msgOffset, long length, int seed) {
        long done = 0;
        while (done < length) {
            long t = start(msgOffset + done, seed);
            long n = Math.min(length - done, P);
            MemorySegment.copy(tape, t, dst, dstOffset + done, n);
            done += n;
        }
    }

    /**
     * Compares {@code length} bytes at {@code seg} with message bytes {@code [msgOffset, msgOffset + length)} of
     * the message {@code seed}.
     *
     * @return -1 when they match, else the message offset of the first byte that differs
     */
    public long mismatch(MemorySegment seg, long offset, long msgOffset, long length, int seed) {
        long done = 0;
        while (done < length) {
            long t = start(msgOffset + done, seed);
            long n = Math.min(length - done, P);
            long m = MemorySegment.mismatch(seg, offset + done, offset + done + n, tape, t, t + n);
            if (m >= 0) {
                return msgOffset + done + m;
            }
            done += n;
        }
        return -1;
    }
}
