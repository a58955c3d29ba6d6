package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The governor of a completion channel waiter's polls: when the window grows, stays, shrinks, and is held off. */
class WaitSpinTest {

    private static final long US = 1_000;

    @Test
    void shortWaitsGrowTheWindowFromZeroToItsLongest() {
        WaitSpin spin = new WaitSpin();
        assertEquals(0, spin.windowNs(0), "a new channel's waiter sleeps at once");
        assertEquals(WaitSpin.START_NS, spin.ended(30 * US, true));
        assertEquals(2 * WaitSpin.START_NS, spin.ended(30 * US, true));
        assertEquals(4 * WaitSpin.START_NS, spin.ended(30 * US, true));
        assertEquals(WaitSpin.MAX_NS, spin.ended(60 * US, true));
        assertEquals(WaitSpin.MAX_NS, spin.ended(WaitSpin.GROW_WITHIN_NS, true), "capped");
        assertEquals(WaitSpin.MAX_NS, spin.windowNs(0));
    }

    @Test
    void aWaitThePollsCaughtKeepsTheWindow() {
        WaitSpin spin = grown();
        assertEquals(WaitSpin.MAX_NS, spin.ended(2 * US, true));
        assertEquals(WaitSpin.MAX_NS, spin.ended(WaitSpin.MAX_NS, true));
    }

    @Test
    void longWaitsAndTimeoutsHalveTheWindowDownToZero() {
        WaitSpin spin = grown();
        assertEquals(WaitSpin.MAX_NS / 2, spin.ended(WaitSpin.GROW_WITHIN_NS + 1, true));
        assertEquals(WaitSpin.MAX_NS / 4, spin.ended(5_000 * US, false), "a wait without an event");
        assertEquals(0, spin.ended(5_000 * US, true), "below the start: no polls");
        assertEquals(0, spin.ended(5_000 * US, true));
        assertEquals(0, spin.windowNs(0));
    }

    @Test
    void aContendedVerdictHoldsThePollsOffAndARecurringOneDoublesTheHold() {
        WaitSpin spin = grown();
        long t = 1_000_000_000L;
        spin.contended(t);
        assertEquals(0, spin.windowNs(t + 1));
        assertEquals(0, spin.windowNs(t + WaitSpin.FIRST_HOLD_NS - 1));
        assertEquals(WaitSpin.MAX_NS, spin.windowNs(t + WaitSpin.FIRST_HOLD_NS), "the window is kept for after");
        spin.contended(t + WaitSpin.FIRST_HOLD_NS - 1); // within the hold: no change
        assertEquals(WaitSpin.MAX_NS, spin.windowNs(t + WaitSpin.FIRST_HOLD_NS));

        long again = t + WaitSpin.FIRST_HOLD_NS + 10 * US; // soon after the hold: twice as long
        spin.contended(again);
        assertEquals(0, spin.windowNs(again + 2 * WaitSpin.FIRST_HOLD_NS - 1));
        assertEquals(WaitSpin.MAX_NS, spin.windowNs(again + 2 * WaitSpin.FIRST_HOLD_NS));

        long hold = 2 * WaitSpin.FIRST_HOLD_NS;
        for (int i = 0; i < 10; i++) { // doubling up to the longest
            again += hold + US;
            spin.contended(again);
            hold = Math.min(WaitSpin.LONGEST_HOLD_NS, 2 * hold);
        }
        assertEquals(0, spin.windowNs(again + WaitSpin.LONGEST_HOLD_NS - 1));
        assertEquals(WaitSpin.MAX_NS, spin.windowNs(again + WaitSpin.LONGEST_HOLD_NS));

        long late = again + WaitSpin.LONGEST_HOLD_NS + WaitSpin.FIRST_HOLD_NS + 1; // later: back to the first hold
        spin.contended(late);
        assertEquals(0, spin.windowNs(late + WaitSpin.FIRST_HOLD_NS - 1));
        assertEquals(WaitSpin.MAX_NS, spin.windowNs(late + WaitSpin.FIRST_HOLD_NS));
    }

    private static WaitSpin grown() {
        WaitSpin spin = new WaitSpin();
        for (int i = 0; i < 4; i++) {
            spin.ended(100 * US, true);
        }
        assertEquals(WaitSpin.MAX_NS, spin.windowNs(0));
        return spin;
    }
}
