package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * After a receive that found nothing, an invoker-mode pass asks the native socket for one datagram (a receive asked
 * for more tries for a second one and fails first). When that datagram completes a work request, the pass stops
 * receiving and the poll returns with the completion; when it does not, the pass goes on and takes in the rest of a
 * burst, so the burst still gets one acknowledge.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReceiveAfterIdleTest {

    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    @Test
    void shouldReturnThePollWithTheFirstCompletionAfterIdleAndTakeTheRestNext() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        try (Pair pair = Pair.invoker("127.0.63.1", "127.0.63.2", 1 << 16)) {
            Peer a = pair.a;
            Peer b = pair.b;
            for (int i = 0; i < 2; i++) {
                b.qp.postRecv(new RecvWr().wrId(10 + i).sg(new Sge(b.addr(64L * i), 64, b.mr.lkey())));
            }
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            assertEquals(0, b.cq.poll(wcs), "nothing yet: b's receive comes back empty");
            for (int i = 0; i < 2; i++) { // each post runs a's engine: two SENDs, two datagrams
                a.buf.set(ValueLayout.JAVA_LONG, 8L * i, 0x5E_0000L + i);
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(a.addr(8L * i), 8, a.mr.lkey())));
            }
            Thread.sleep(10); // both are in b's socket (loopback delivers within the send)
            assertEquals(1, b.cq.poll(wcs), "the pass stopped at the first SEND's completion");
            assertRecv(wcs[0], 10);
            assertEquals(1, b.cq.poll(wcs), "the next pass took in the second SEND");
            assertRecv(wcs[0], 11);
            assertEquals(0x5E_0000L, b.buf.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(0x5E_0001L, b.buf.get(ValueLayout.JAVA_LONG, 64));
            // and nothing is lost to the split: both SENDs are acknowledged and complete at a, in order
            List<WorkCompletion> sent = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT_NS;
            while (sent.size() < 2 && System.nanoTime() < deadline) {
                b.ctx.progress();
                int n = a.cq.poll(wcs);
                for (int i = 0; i < n; i++) {
                    WorkCompletion c = new WorkCompletion();
                    c.copyFrom(wcs[i]);
                    sent.add(c);
                }
            }
            assertEquals(2, sent.size(), "both SENDs completed at a\n" + a.ctx.counters);
            for (int i = 0; i < 2; i++) {
                assertEquals(WcStatus.SUCCESS, sent.get(i).status());
                assertEquals(i, sent.get(i).wrId());
            }
        }
    }

    @Test
    void shouldTakeInAWholeBurstOfWritesAfterIdleInOnePassWithOneAcknowledge() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        try (Pair pair = Pair.invoker("127.0.63.3", "127.0.63.4", 1 << 16)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<int[]> sentByB = new ArrayList<>(); // opcode, PSN
            b.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
                if (tx) {
                    sentByB.add(new int[] {Bth.opcode(p, off), Bth.psn(p, off)});
                }
            });
            assertEquals(0, b.ctx.progress(), "nothing yet: b's receive comes back empty");
            int n = 3;
            int firstPsn = a.qp.query(new QpAttr()).sqPsn();
            for (int i = 0; i < n; i++) { // no completion at b: a WRITE only lands in its memory
                a.buf.set(ValueLayout.JAVA_LONG, 8L * i, 0x77_0000L + i);
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(a.addr(8L * i), 8, a.mr.lkey())).remote(b.addr(256L + 8L * i), b.mr.rkey()));
            }
            Thread.sleep(10);
            b.ctx.progress(); // one pass
            for (int i = 0; i < n; i++) {
                assertEquals(0x77_0000L + i, b.buf.get(ValueLayout.JAVA_LONG, 256L + 8L * i), "WRITE " + i);
            }
            assertEquals(1, sentByB.size(), "one acknowledge for the burst");
            assertEquals(Opcode.RC_ACKNOWLEDGE.code(), sentByB.get(0)[0]);
            assertEquals((firstPsn + n - 1) & 0xFFFFFF, sentByB.get(0)[1], "for the last WRITE");
        }
    }

    private static void assertRecv(WorkCompletion wc, long wrId) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(wrId, wc.wrId());
        assertEquals(8, wc.byteLen());
    }
}
