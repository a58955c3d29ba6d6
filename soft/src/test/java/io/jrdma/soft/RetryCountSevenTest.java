package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A transport retry_cnt of 7 is never spent, as in kernel rxe (rxe_comp.c: {@code if (qp->comp.retry_cnt != 7)
 * qp->comp.retry_cnt--;}), while 6 and below are. Found against rxe with perftest (retry_cnt 7): a jrdma requester
 * flooding a slow rxe VM with four QPs of 1 MiB SENDs lost enough packets in a row to run out of retries and fail
 * with RETRY_EXC_ERR, where rxe itself keeps retrying. The clock is manual and the sender's link is down, so every
 * ACK timeout is counted exactly.
 */
class RetryCountSevenTest {

    private static final int TIMEOUT = 10;

    private static Pair pair(ManualClock clock, int retryCnt, String ipA, String ipB) {
        Peer.Link link = new Peer.Link();
        link.timeout = TIMEOUT;
        link.retryCnt = retryCnt;
        return new Pair(ipA, ipB, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap(), link);
    }

    /** Steps the clock through {@code timeouts} ACK timeouts; returns the first completion on {@code cq}, or null. */
    private static WorkCompletion step(Pair p, CompletionQueue cq, ManualClock clock, int timeouts) {
        long timeoutNs = Requester.ackTimeoutNs(TIMEOUT);
        WorkCompletion[] wcs = {new WorkCompletion()};
        for (int i = 0; i < timeouts * 4; i++) {
            p.drive();
            if (cq.poll(wcs) == 1) {
                return new WorkCompletion().copyFrom(wcs[0]);
            }
            clock.advance(timeoutNs / 4 + 1);
        }
        return null;
    }

    private static void send(Peer a, long wrId) {
        a.qp.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 3000, a.mr.lkey())));
    }

    @Test
    void aRetryCountOfSevenShouldRetransmitUntilTheLinkComesBack() {
        ManualClock clock = new ManualClock();
        try (Pair p = pair(clock, 7, "127.0.46.5", "127.0.46.6")) {
            p.a.buf.set(ValueLayout.JAVA_LONG, 0, 0x5eed5eedL);
            p.b.qp.postRecv(new RecvWr().wrId(9).sg(new Sge(p.b.addr(8192), 4096, p.b.mr.lkey())));
            p.a.ctx.setPortState(PortState.DOWN);
            send(p.a, 1);
            WorkCompletion early = step(p, p.a.cq, clock, 30); // far more timeouts than 7 retries
            assertEquals(null, early, () -> "completed while the link was down: " + early);
            long timeouts = p.a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR);
            assertTrue(timeouts >= 29, "ACK timeouts: " + timeouts);
            assertEquals(0, p.a.ctx.counters().get(Counter.RETRY_EXCEEDED_ERR));
            assertEquals(QpState.RTS, p.a.qp.state());
            p.a.ctx.setPortState(PortState.ACTIVE);
            WorkCompletion wc = step(p, p.a.cq, clock, 4);
            if (wc == null) {
                fail("no completion after the link came back");
            }
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            WorkCompletion rc = step(p, p.b.cq, clock, 1);
            assertEquals(9, rc == null ? -1 : rc.wrId());
            assertEquals(3000, rc.byteLen());
            assertEquals(0x5eed5eedL, p.b.buf.get(ValueLayout.JAVA_LONG, 8192));
        }
    }

    @Test
    void aRetryCountOfSixShouldFailAfterSixRetransmissionsBadFlow() {
        ManualClock clock = new ManualClock();
        try (Pair p = pair(clock, 6, "127.0.46.7", "127.0.46.8")) {
            p.a.ctx.setPortState(PortState.DOWN);
            send(p.a, 1);
            send(p.a, 2);
            WorkCompletion wc = step(p, p.a.cq, clock, 30);
            if (wc == null) {
                fail("a retry_cnt of 6 was never exhausted");
            }
            assertEquals(1, wc.wrId());
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status(), wc.toString());
            assertEquals(7, p.a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR), "6 retries, failed at the 7th");
            assertEquals(1, p.a.ctx.counters().get(Counter.RETRY_EXCEEDED_ERR));
            assertEquals(QpState.ERR, p.a.qp.state());
            WorkCompletion flushed = step(p, p.a.cq, clock, 1);
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed == null ? null : flushed.status());
        }
    }
}
