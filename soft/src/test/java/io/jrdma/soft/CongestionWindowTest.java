package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The congestion window's arithmetic on its own: whole until a timeout, then slow start, then a packet a window. */
class CongestionWindowTest {

    @Test
    void shouldAllowTheWholeWindowUntilATimeout() {
        CongestionWindow w = window(123);
        assertEquals(123, w.size());
        w.acknowledged(50);
        assertEquals(123, w.size(), "never more than the requester's window");
    }

    @Test
    void shouldFallToOnePacketThenGrowBySlowStartToHalfWhatWasInFlight() {
        CongestionWindow w = window(128);
        w.timedOut(100, 0);
        assertEquals(1, w.size());
        assertEquals(50, w.threshold());
        w.acknowledged(1);
        assertEquals(2, w.size());
        w.acknowledged(2);
        assertEquals(4, w.size(), "each ACK widens it by what it acknowledged: doubling per round trip");
        w.acknowledged(40);
        assertEquals(44, w.size());
        w.acknowledged(44);
        assertEquals(50, w.size(), "slow start stops at the threshold");
    }

    @Test
    void shouldGrowByOnePacketPerWindowAboveTheThreshold() {
        CongestionWindow w = window(64);
        w.timedOut(8, 0);
        assertEquals(4, w.threshold());
        w.acknowledged(3);
        assertEquals(4, w.size());
        w.acknowledged(3);
        assertEquals(4, w.size(), "three of four acknowledged: not yet");
        w.acknowledged(1);
        assertEquals(5, w.size());
        for (int i = 0; i < 1000; i++) {
            w.acknowledged(64);
        }
        assertEquals(64, w.size(), "back to the whole window, no further");
    }

    @Test
    void shouldKeepAThresholdOfTwoAndHalveOnlyWhatTheWindowAllowed() {
        CongestionWindow w = window(256);
        w.timedOut(1, 0);
        assertEquals(2, w.threshold(), "at least two packets");
        w.timedOut(200, 0);
        assertEquals(2, w.threshold(), "half of the one packet the window allowed, not of what was in flight");
        w.reset(256);
        assertEquals(256, w.size(), "a reset (path MTU set, QP reset) gives the whole window back");
    }

    @Test
    void shouldCallATimeoutSpuriousOnlyWhenItsFirstAckCoversMoreThanThePacketSentAgain() {
        CongestionWindow w = window(64);
        w.timedOut(30, 0xFFFFFF);
        assertEquals(false, w.spuriousTimeout(0), "the ACK covers the packet sent again (PSN 0xFFFFFF) only");
        assertEquals(false, w.spuriousTimeout(9), "only the first ACK after the timeout tells");
        w.timedOut(30, 0xFFFFFF);
        assertEquals(true, w.spuriousTimeout(5), "it covers PSNs sent before the timeout, across the wrap");
        w.timedOut(30, 100);
        w.probeEnded();
        assertEquals(false, w.spuriousTimeout(120), "a NAK's go-back-N came first");
    }

    @Test
    void shouldGiveAQpItsWholeWindowWhetherOrNotItsPathMtuIsSet() {
        try (Peer p = new Peer("127.0.44.3", Threading.INVOKER, new ManualClock(), 4096, Peer.ALL_ACCESS,
                Peer.defaultCap())) {
            Requester r = ((SoftQp) p.qp).requester;
            assertEquals(r.window(), r.congestionWindow(), "a new QP");
            p.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            p.qp.modify(new QpAttr().qpState(QpState.RESET), EnumSet.of(QpAttrMask.STATE));
            assertEquals(r.window(), r.congestionWindow(), "after a reset");
        }
    }

    /** A congestion window over a requester's window of {@code max} packets, never timed out. */
    private static CongestionWindow window(int max) {
        CongestionWindow w = new CongestionWindow();
        w.reset(max);
        return w;
    }
}
