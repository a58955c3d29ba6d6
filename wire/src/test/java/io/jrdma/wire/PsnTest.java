package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PsnTest {
    @Test
    void shouldWrapWhenAddingAcrossTheTop() {
        assertEquals(0, Psn.next(0xFFFFFF));
        assertEquals(4, Psn.add(0xFFFFFE, 6));
        assertEquals(0xFFFFFF, Psn.add(0, -1));
        assertEquals(0xFFFFF0, Psn.add(5, -21));
        assertEquals(0x123457, Psn.next(0x123456));
    }

    @Test
    void shouldCompareAcrossTheWrap() {
        assertTrue(Psn.compare(0xFFFFFF, 0) < 0, "0xFFFFFF precedes 0");
        assertTrue(Psn.compare(0, 0xFFFFFF) > 0, "0 follows 0xFFFFFF");
        assertTrue(Psn.compare(3, 0xFFFFF0) > 0);
        assertEquals(0, Psn.compare(0x42, 0x42));
        assertTrue(Psn.compare(1, 2) < 0);
        assertTrue(Psn.compare(0x7FFFFF, 0) > 0, "2^23 - 1 ahead");
        assertTrue(Psn.compare(0x800000, 0) < 0, "2^23 ahead reads as behind");
    }

    @Test
    void shouldGiveSignedDistanceOnTheCircle() {
        assertEquals(1, Psn.diff(0, 0xFFFFFF));
        assertEquals(-1, Psn.diff(0xFFFFFF, 0));
        assertEquals(19, Psn.diff(3, 0xFFFFF0));
        assertEquals(-19, Psn.diff(0xFFFFF0, 3));
        assertEquals(0, Psn.diff(7, 7));
        assertEquals(0x7FFFFF, Psn.diff(0x7FFFFF, 0));
        assertEquals(-0x800000, Psn.diff(0x800000, 0));
        for (int a : new int[] {0, 1, 0x7FFFFF, 0x800000, 0xFFFFFE, 0xFFFFFF}) {
            for (int n = -1000; n <= 1000; n += 7) {
                assertEquals(n, Psn.diff(Psn.add(a, n), a));
                assertEquals(Integer.signum(n), Integer.signum(Psn.compare(Psn.add(a, n), a)));
            }
        }
    }

    @Test
    void shouldValidate24Bits() {
        assertTrue(Psn.isValid(0));
        assertTrue(Psn.isValid(0xFFFFFF));
        assertFalse(Psn.isValid(0x1000000));
        assertFalse(Psn.isValid(-1));
    }
}
