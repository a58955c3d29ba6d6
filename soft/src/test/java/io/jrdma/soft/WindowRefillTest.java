package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Psn;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An RC requester whose window of unacknowledged packets filled sends no new packet until half of the window is
 * acknowledged again ({@link Requester#transmit}), instead of one more packet for every ACK that frees room.
 *
 * <p>Two invoker-mode devices on loopback share one {@link ManualClock}, moved by a fixed step after each round
 * (one pass of the requester's device, one of the responder's). The responder's link holds every packet it sends
 * (only ACKs) for a fixed delay, so ACKs arrive one at a time, many rounds after the packets they
 * acknowledge, and the window of a single 8 MiB RDMA WRITE at path MTU 4096 fills again and again. The requester
 * device's tap sees its first transmissions and the ACKs it takes in; since a pass receives before it transmits,
 * the tap's order is the order in which the requester learned of them. A pass that sent nothing new while the
 * window was full (and the message not all sent) proves the requester met its full window; the next new packet
 * must then leave with at most half the window unacknowledged.
 */
class WindowRefillTest {

    private static final String IP_A = "127.0.221.1";
    private static final String IP_B = "127.0.221.2";
    /** 2,048 packets of 4,096 bytes, eight windows of 256, and one short packet at the end. */
    private static final int LENGTH = (8 << 20) + 1000;
    private static final long STEP_NS = 10_000;

    private static final long REAL_LIMIT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final int ROUND_LIMIT = 100_000;

    /**
     * ACK delays in clock steps of 10 us: twelve rounds (an ACK arrives after the requester could have sent 384
     * packets, more than any window), and six, where the packet that fills the window is the last one a pass may
     * send (its budget, 32 packets, divides a half window), so the next pass starts with the window full.
     */
    @ParameterizedTest(name = "ACK delay {0} ns")
    @ValueSource(longs = {120_000, 60_000})
    void shouldSendNoNewPacketAfterAFullWindowUntilHalfOfItIsAcknowledged(long ackDelayNs) {
        ManualClock clock = new ManualClock();
        FaultConfig lateAcks = FaultConfig.builder().delay(1.0, ackDelayNs).build();
        Peer.Link link = Peer.Link.tolerant(); // ACK timeout 1 s of the stepped clock: never reached here
        link.mtu = Mtu.MTU_4096;
        try (Peer a = new Peer(IP_A, Threading.INVOKER, clock, LENGTH, Peer.ALL_ACCESS, Peer.defaultCap());
             Peer b = new Peer(IP_B, Threading.INVOKER, clock, LENGTH, Peer.ALL_ACCESS, Peer.defaultCap(),
                lateAcks)) {
            a.connect(b, link);
            b.connect(a, link);
            int window = ((SoftQp) a.qp).requester.window();
            assertTrue(window >= 8 && window <= 256, "window " + window);
            int packets = (LENGTH + 4095) / 4096;
            assertTrue(packets >= 4 * window, packets + " packets for a window of " + window);
            RcDataPathTest.fill(a.buf, 0, LENGTH, new Random(221));
            Watch watch = new Watch(window, link.psn, packets);
            a.ctx.tap(watch);

            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), LENGTH, a.mr.lkey())).remote(b.addr(0), b.mr.rkey()));
            WorkCompletion wc = drive(a, b, clock, watch);
            a.ctx.tap(null);

            String why = watch + "\n a: " + a.ctx.counters() + "\n b: " + b.ctx.counters();
            assertEquals(WcStatus.SUCCESS, wc.status(), why);
            assertEquals(-1, MemorySegment.mismatch(a.buf, 0, LENGTH, b.buf, 0, LENGTH), "the data arrived intact");
            assertNull(watch.violation, why);
            assertTrue(watch.fills >= 2, "the window filled, more than once: " + why);
            assertEquals(window - 1, watch.maxInFlight, "the window was used to its end, never beyond: " + why);
            assertEquals(packets, watch.sent, "every packet went out once: " + why);
            assertEquals(0, watch.resent + watch.naks, "no packet sent twice, no NAK: " + why);
            assertEquals(0, a.ctx.counters().get(Counter.RETRANSMITTED_PKTS), why);
            assertNull(a.ctx.lastEngineFailure());
            assertNull(b.ctx.lastEngineFailure());
        }
    }

    /**
     * Rounds until the WRITE completes: a poll of the requester's CQ (one pass of its device), the tap's end of that
     * pass, one pass of the responder's device, then one clock step. Bounded in rounds and in real time.
     */
    private static WorkCompletion drive(Peer a, Peer b, ManualClock clock, Watch watch) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + REAL_LIMIT_NS;
        for (int round = 0; ; round++) {
            int n = a.cq.poll(wcs);
            watch.passEnded();
            if (n == 1) {
                return wcs[0];
            }
            if (round > ROUND_LIMIT || System.nanoTime() > deadline) {
                fail("no completion after " + round + " rounds: " + watch + "\n a: " + a.ctx.counters()
                        + "\n b: " + b.ctx.counters());
            }
            b.ctx.progress();
            clock.advance(STEP_NS);
        }
    }

    /** Follows the requester's PSNs from its device's tap: what is in flight when each new packet goes out. */
    private static final class Watch implements PacketTap {
        private final int window;
        private final int end;       // the PSN after the message's last packet
        private int next;            // the PSN after the newest packet sent
        private int acked;           // the newest PSN acknowledged
        private int sentThisPass;
        private boolean full;        // the requester met its full window and has sent nothing new since
        private int fullAt;          // PSNs in flight when it did
        int sent;
        int resent;
        int naks;
        int fills;
        int maxInFlight;
        int refills;                 // new packets after a fill
        int maxRefillInFlight = -1;  // the most in flight at any of them
        String violation;

        Watch(int window, int firstPsn, int packets) {
            this.window = window;
            this.next = firstPsn;
            this.acked = Psn.add(firstPsn, -1);
            this.end = Psn.add(firstPsn, packets);
        }

        @Override
        public void onPacket(boolean transmit, MemorySegment packet, long offset, int length, int srcIp,
                int srcPort, int dstIp, int dstPort) {
            int psn = Bth.psn(packet, offset);
            if (transmit) {
                if (Psn.diff(psn, next) < 0) {
                    resent++;
                    return;
                }
                if (psn != next && violation == null) {
                    violation = "PSN 0x" + Integer.toHexString(psn) + " sent before 0x" + Integer.toHexString(next);
                }
                int inFlight = Psn.diff(psn, Psn.next(acked));
                if (full) {
                    refills++;
                    maxRefillInFlight = Math.max(maxRefillInFlight, inFlight);
                    if (inFlight > window / 2 && violation == null) {
                        violation = "fill " + fills + ": the window of " + window + " was full (" + fullAt
                                + " in flight), yet the next new packet (PSN 0x" + Integer.toHexString(psn)
                                + ") went out with " + inFlight + " unacknowledged, more than half the window ("
                                + window / 2 + ")";
                    }
                    full = false;
                }
                maxInFlight = Math.max(maxInFlight, inFlight);
                if (inFlight + 1 >= window && !full) {
                    full = true; // this packet filled the window, whether or not its pass went on to meet it
                    fullAt = inFlight + 1;
                    fills++;
                }
                next = Psn.next(psn);
                sent++;
                sentThisPass++;
            } else if (Bth.opcode(packet, offset) == Opcode.RC_ACKNOWLEDGE.code()) {
                int syndrome = Aeth.syndrome(packet, offset + Bth.LENGTH);
                if ((syndrome & AethSyndrome.TYPE_MASK) != AethSyndrome.TYPE_ACK) {
                    naks++;
                } else if (Psn.diff(psn, acked) > 0) {
                    acked = psn;
                }
            }
        }

        /**
         * A pass of the requester's device ended. One that sent nothing new while the message still had packets to
         * send and a full window unacknowledged met that window (its ACKs came in before it transmitted).
         */
        void passEnded() {
            int inFlight = Psn.diff(next, Psn.next(acked));
            if (sentThisPass == 0 && Psn.diff(end, next) > 0 && inFlight >= window && !full) {
                full = true;
                fullAt = inFlight;
                fills++;
            }
            sentThisPass = 0;
        }

        @Override
        public String toString() {
            return "window " + window + ", sent " + sent + " (resent " + resent + "), fills " + fills
                    + ", most in flight " + maxInFlight + ", new packets after a fill " + refills
                    + " (most in flight at one " + maxRefillInFlight + "), NAKs " + naks + ", next 0x"
                    + Integer.toHexString(next) + ", acked 0x" + Integer.toHexString(acked);
        }
    }
}
