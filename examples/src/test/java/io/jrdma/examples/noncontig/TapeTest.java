package io.jrdma.examples.noncontig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The tape makes stale or missing data fail verification; layouts reject bad shapes. */
class TapeTest {

    @Test
    void shouldMakeEveryByteOfTheNextMessageDifferFromTheLastAndFromZero() {
        try (Arena arena = Arena.ofConfined()) {
            Tape tape = new Tape(arena);
            for (long o = 0; o < 2L * Tape.P + 17; o++) {
                byte now = tape.expected(o, 42);
                assertNotEquals(0, now, "tape byte 0 at " + o);
                assertNotEquals(tape.expected(o, 41), now, "seeds 41 and 42 agree at message offset " + o);
            }
        }
    }

    @Test
    void shouldFillWhatItChecksAndFindTheFirstWrongByte() {
        try (Arena arena = Arena.ofConfined()) {
            Tape tape = new Tape(arena);
            long len = 3L * Tape.P; // longer than the tape: filled and checked in pieces
            MemorySegment seg = arena.allocate(len + 10);
            tape.fill(seg, 10, 5, len, 7);
            assertEquals(-1, tape.mismatch(seg, 10, 5, len, 7));
            assertEquals(tape.expected(5 + 1000, 7), seg.get(ValueLayout.JAVA_BYTE, 10 + 1000));
            assertEquals(5, tape.mismatch(seg, 10, 5, len, 8), "the next seed's data must differ at once");
            seg.set(ValueLayout.JAVA_BYTE, 10 + 2 * Tape.P + 3, (byte) ~seg.get(ValueLayout.JAVA_BYTE,
                    10 + 2 * Tape.P + 3));
            assertEquals(5 + 2 * Tape.P + 3, tape.mismatch(seg, 10, 5, len, 7));
            assertEquals(0, tape.mismatch(arena.allocate(64), 0, 0, 64, 1), "zeros never pass");
        }
    }

    @Test
    void shouldRejectAStrideSmallerThanTheBlock() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Layout(8, 4, 7));
        assertTrue(e.getMessage().contains("stride (7) must be at least block_size (8)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Layout(0, 4, 8));
        assertThrows(IllegalArgumentException.class, () -> new Layout(8, 0, 8));
        Layout l = new Layout(3, 40, 7);
        assertEquals(120, l.messageBytes());
        assertEquals(39 * 7 + 3, l.span());
        assertEquals(10, l.workRequests(4));
        assertEquals(2, l.workRequests(32));
    }

    @Test
    void shouldParseSizesWithBinarySuffixes() {
        assertEquals(4096, NoncontigConfig.parseSize("4096"));
        assertEquals(64 << 10, NoncontigConfig.parseSize("64K"));
        assertEquals(1 << 20, NoncontigConfig.parseSize("1MiB"));
        assertEquals(java.util.List.of(3, 6, 12, 24), NoncontigConfig.doubling(3, 30));
        assertThrows(IllegalArgumentException.class, () -> NoncontigConfig.parseSize("12Q"));
        assertThrows(IllegalArgumentException.class, () -> NoncontigConfig.parseSizes("8,,16"));
    }
}
