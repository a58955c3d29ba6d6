package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A requester whose peer takes packets slower than the requester sends them, as kernel Soft-RoCE in an emulated
 * guest does: the requester's device sends through a bottleneck ({@link FaultConfig#rate()}, 8 MB/s, a queue of 2,048
 * packets), so what it has in flight waits in a queue, and with its whole window in flight the ACKs it asked for
 * come further apart than its local ACK timeout (4.2 ms). The timer runs out while the peer is still working through
 * the queue. Go-back-N must not answer each timeout by queueing the whole window again behind the first copy (the
 * peer would take every packet twice or more, and a QP answered only late would spend its retries): after a timeout
 * the requester sends what its congestion window allows, one packet at first, and never again what an ACK has
 * covered. Device time runs on a manual clock, so the case is the same on any machine.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SlowPeerTest {

    private static final String A = "127.0.44.1";
    private static final String B = "127.0.44.2";
    private static final int MESSAGES = 32;
    private static final int BYTES = 64 * 1024; // 64 packets at MTU 1024
    private static final long RATE = 8_000_000;
    private static final int TIMEOUT = 10; // 4.096 us * 2^10 = 4.2 ms

    @ParameterizedTest(name = "{0}")
    @EnumSource(LinkKind.class)
    void shouldFinishAgainstASlowPeerWithoutSendingTheQueueAgainOnEveryTimeout(LinkKind kind) {
        FaultConfig slow = FaultConfig.builder().rate(RATE).hold(2048).build();
        Peer.Link link = new Peer.Link();
        link.timeout = TIMEOUT;
        try (FaultPair pair = new FaultPair(A, B, (long) MESSAGES * BYTES, Peer.ALL_ACCESS, link, slow,
                FaultConfig.NONE, kind.assume())) {
            Peer a = pair.a;
            Peer b = pair.b;
            Random random = new Random(7);
            for (long off = 0; off < a.buf.byteSize(); off += 8) {
                a.buf.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off, random.nextLong());
            }
            for (int i = 0; i < MESSAGES; i++) {
                b.qp.postRecv(new RecvWr().wrId(100 + i).sg(new Sge(b.addr((long) i * BYTES), BYTES, b.mr.lkey())));
            }
            long start = pair.clock.nanoTime();
            for (int i = 0; i < MESSAGES; i++) {
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(a.addr((long) i * BYTES), BYTES, a.mr.lkey())));
            }
            List<WorkCompletion> sent = pair.completions(a.cq, MESSAGES);
            long took = pair.clock.nanoTime() - start;
            String why = kind + ", device time " + took / 1000 + " us\n" + pair.counters();
            for (int i = 0; i < MESSAGES; i++) {
                WorkCompletion s = sent.get(i);
                assertEquals(WcStatus.SUCCESS, s.status(), () -> s + "\n" + why);
                assertEquals(i, s.wrId(), "each send completes once, in order");
            }
            List<WorkCompletion> received = pair.completions(b.cq, MESSAGES);
            pair.settle(8 * Requester.ackTimeoutNs(TIMEOUT)); // late duplicates land
            for (int i = 0; i < MESSAGES; i++) {
                WorkCompletion r = received.get(i);
                assertEquals(WcStatus.SUCCESS, r.status(), () -> r + "\n" + why);
                assertEquals(100 + i, r.wrId());
                assertEquals(BYTES, r.byteLen());
            }
            assertEquals(-1, a.buf.mismatch(b.buf), "every byte arrived intact");
            pair.assertQuiet();

            long packets = (long) MESSAGES * (BYTES / 1024);
            long atRate = packets * (12 + 1024 + 4) * 1_000_000_000L / RATE; // BTH, payload, ICRC
            assertTrue(took >= atRate, "the bottleneck set the pace: " + why);
            assertTrue(pair.count(a, Counter.COMPLETER_RETRY_ERR) > 0, "the ACK timer ran out: " + why);
            assertEquals(0, pair.count(a, Counter.RETRY_EXCEEDED_ERR), why);
            long timeouts = pair.count(a, Counter.COMPLETER_RETRY_ERR);
            long again = pair.count(a, Counter.RETRANSMITTED_PKTS);
            assertTrue(again <= timeouts, again + " of " + packets + " packets sent again, more than one a timeout: "
                    + why);
            assertTrue(took < atRate * 11 / 10, "the bottleneck carried hardly anything twice: " + why);
        }
    }
}
