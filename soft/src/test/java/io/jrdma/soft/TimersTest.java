package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retransmission on the local ACK timeout, retry_cnt exhaustion, and RNR NAK handling, with an injected clock
 * that the test steps (no sleeping for timers).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimersTest {

    private static final String A = "127.0.4.1";
    private static final String B = "127.0.4.2";

    /** Drives both peers, stepping the clock by {@code stepNs} each pass, until a completion arrives at {@code p}. */
    private static WorkCompletion awaitStepping(Peer a, Peer b, Peer p, ManualClock clock, long stepNs) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        for (int i = 0; i < 100_000; i++) {
            a.ctx.progress();
            b.ctx.progress();
            if (p.cq.poll(wcs) == 1) {
                return wcs[0];
            }
            clock.advance(stepNs);
        }
        throw new AssertionError("no completion after 100000 passes");
    }

    @Test
    void shouldFailWithRetryExceededWhenThePeerNeverAnswersBadFlow() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.timeout = 10; // 4.096 us * 2^10 = 4.19 ms
        link.retryCnt = 3;
        try (Peer a = new Peer(A, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap());
             Peer b = new Peer(B, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap())) {
            a.connect(b.qp.qpNum() + 100, b.ctx.queryGid(1, 1), link); // no such QP at b: every packet dropped
            b.connect(a, link);
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 10, a.mr.lkey())));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 10, a.mr.lkey())));
            WorkCompletion wc = awaitStepping(a, b, a, clock, Requester.ackTimeoutNs(10) / 4);
            assertEquals(1, wc.wrId());
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
            assertEquals(QpState.ERR, a.qp.state());
            WorkCompletion flushed = awaitStepping(a, b, a, clock, 0);
            assertEquals(2, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
            // the first transmission plus retry_cnt retransmissions, each started by a timeout, then the failure
            assertEquals(4, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR));
            assertEquals(1, a.ctx.counters().get(Counter.RETRY_EXCEEDED_ERR));
            // after a timeout the congestion window is one packet: each retry sends the oldest one again
            assertEquals(2 + 3, b.ctx.counters().get(Counter.RCVD_DROPPED), "2 WRs, then 1 packet x 3 retries");
        }
    }

    @Test
    void shouldRetransmitAfterTheAckTimeoutAndSucceed() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.timeout = 8;
        try (Pair pair = new Pair(A, B, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            // a sends while b is not driven; the clock passes the ACK timeout before b ever answers, so a goes
            // back and sends the oldest packet again (its congestion window after a timeout); b had all three, sees
            // it as a duplicate, and its ACK for the whole message shows a that the timeout was spurious: nothing
            // else is sent again
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 3000, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
            clock.advance(Requester.ackTimeoutNs(8) + 1);
            a.ctx.progress(); // timeout: the first packet goes again
            WorkCompletion wc = awaitStepping(a, b, a, clock, 1000);
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(1, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR));
            assertEquals(1, a.ctx.counters().get(Counter.RETRANSMITTED_PKTS), "one packet sent again");
            assertEquals(1, b.ctx.counters().get(Counter.DUPLICATE_REQUEST), "and seen twice");
        }
    }

    @Test
    void shouldWaitOnRnrNakUntilAReceiveIsPosted() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.minRnrTimer = 14; // 1.28 ms
        link.rnrRetry = 7;     // forever
        try (Pair pair = new Pair(A, B, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 2000, a.mr.lkey())));
            WorkCompletion[] wcs = {new WorkCompletion()};
            for (int i = 0; i < 200; i++) {
                a.ctx.progress();
                b.ctx.progress();
                assertEquals(0, a.cq.poll(wcs), "no completion while the receiver has no buffer");
                clock.advance(200_000);
            }
            long rnrSent = b.ctx.counters().get(Counter.SEND_RNR_ERR);
            assertTrue(rnrSent >= 2, "RNR NAKs sent: " + rnrSent);
            assertEquals(rnrSent, a.ctx.counters().get(Counter.RCVD_RNR_ERR));
            assertTrue(rnrSent <= 200 * 200_000L / 1_280_000 + 2, "the requester waits the RNR delay: " + rnrSent);
            b.qp.postRecv(new RecvWr().wrId(9).sg(new Sge(b.addr(0), 4096, b.mr.lkey())));
            assertEquals(WcStatus.SUCCESS, awaitStepping(a, b, a, clock, 100_000).status());
            WorkCompletion recv = awaitStepping(a, b, b, clock, 0);
            assertEquals(2000, recv.byteLen());
            assertEquals(0, a.ctx.counters().get(Counter.RETRY_EXCEEDED_ERR));
        }
    }

    @Test
    void shouldFailWithRnrRetryExceededWhenRnrRetryIsZeroBadFlow() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.rnrRetry = 0;
        try (Pair pair = new Pair(A, B, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 10, a.mr.lkey())));
            WorkCompletion wc = awaitStepping(a, b, a, clock, 1000);
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status());
            assertEquals(1, a.ctx.counters().get(Counter.RETRY_RNR_EXCEEDED_ERR));
            assertEquals(QpState.ERR, a.qp.state());
        }
    }

    @Test
    void shouldRunTheAckTimerFromTheEndOfAPassThatLostTheCpu() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.timeout = 10; // 4.19 ms
        long timeout = Requester.ackTimeoutNs(10);
        try (Pair pair = new Pair(A, B, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            // a's thread loses the CPU for two timeouts while it hands its packet to the link (a busy process took
            // the core): the pass that sends it ends two timeouts after it began
            a.ctx.tap((transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort) -> {
                if (transmit) {
                    clock.advance(2 * timeout);
                }
            });
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 10, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
            a.ctx.tap(null);
            a.ctx.progress(); // b has not run: no ACK yet, but the packet left only now, so no timeout either
            assertEquals(0, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR), "timed out on its own preemption");
            clock.advance(timeout - 1);
            a.ctx.progress();
            assertEquals(0, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR), "a whole timeout after it left");
            clock.advance(1); // the timer still runs: one timeout after the packet left, it goes again
            a.ctx.progress();
            assertEquals(1, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR));
            assertEquals(1, a.ctx.counters().get(Counter.RETRANSMITTED_PKTS));
            assertEquals(WcStatus.SUCCESS, awaitStepping(a, b, a, clock, 0).status());
            assertEquals(1, b.ctx.counters().get(Counter.DUPLICATE_REQUEST), "the retransmission, seen twice");
        }
    }

    @Test
    void shouldTakeInTheAckBeforeItsTimerRunsOutOnAPost() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.timeout = 10; // 4.19 ms
        try (Pair pair = new Pair(A, B, Threading.INVOKER, clock, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            SendWr write = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 10, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey());
            a.qp.postSend(write.wrId(1));
            b.ctx.progress(); // b answers at once: the ACK waits in a's socket
            // a's application computes for two timeouts without polling, then posts again: the post's pass sends
            // the new request and must not time out the first one, whose ACK is there to be taken in
            clock.advance(2 * Requester.ackTimeoutNs(10));
            a.qp.postSend(write.wrId(2));
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
            int got = 0;
            for (int i = 0; i < 1_000 && got < 2; i++) {
                b.ctx.progress();
                got += a.cq.poll(wcs, 2 - got);
            }
            assertEquals(2, got);
            assertEquals(0, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR), "timed out a peer that answered");
            assertEquals(0, a.ctx.counters().get(Counter.RETRANSMITTED_PKTS));
            assertEquals(0, b.ctx.counters().get(Counter.DUPLICATE_REQUEST));
        }
    }
}
