package io.jrdma.soft;

import static io.jrdma.soft.FaultPair.only;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Psn;
import io.jrdma.wire.Reth;
import java.io.IOException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The requester's reliability rules, each made to happen by a targeted fault or a crafted packet: go-back-N from
 * the NAKed PSN, retry_cnt and rnr_retry exhaustion, the RNR delay, implied NAK, a bounded window, READs requested
 * in fixed chunks. Run on native sockets here and on NIO channels in {@link ReliabilityRequesterNioTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReliabilityRequesterTest extends ReliabilityRulesBase {

    @Test
    void shouldStartRetryCntOverWhenANakAcknowledgesNewPsnsRegression() throws IOException {
        // regression: sequence NAKs spent retry_cnt even when each acknowledged new packets, so a lossy link
        // failed a transfer that was making progress with RETRY_EXC_ERR
        Peer.Link l = link();
        l.retryCnt = 1;
        int p0 = l.psn;
        try (FaultPair pair = pair(l, FaultConfig.NONE, FaultConfig.NONE);
             DatagramChannel from = FaultPair.injector(B)) {
            pair.a.qp.postSend(write(1, pair.a, pair.b, 0, 6 * MTU)); // six packets to b, which is not driven
            int qpn = pair.a.qp.qpNum();
            for (int gap : new int[] {1, 3, 4}) {
                FaultPair.inject(from, A, ack(qpn, Psn.add(p0, gap), AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR)),
                        0);
                pair.driving(pair.a, "NAK " + gap, () -> soft(pair.a).requester.unackedPsn() == Psn.add(p0, gap));
                assertEquals(QpState.RTS, pair.a.qp.state(), "NAK at +" + gap);
            }
            assertEquals(3, pair.count(pair.a, Counter.RCVD_SEQ_ERR));
            assertEquals(5 + 3 + 2, pair.count(pair.a, Counter.RETRANSMITTED_PKTS));
            WorkCompletion wc = pair.completion(pair.a.cq);
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertSame(pair.a, pair.b, 0, 6 * MTU);
        }
    }

    @Test
    void shouldNotGoBackAgainForADuplicateNakRegression() throws IOException {
        // regression: each copy of a NAK started go-back-N again and spent retry_cnt
        Peer.Link l = link();
        l.retryCnt = 6; // 7 is never spent (as rxe), so count with 6
        int p0 = l.psn;
        try (FaultPair pair = pair(l, FaultConfig.NONE, FaultConfig.NONE);
             DatagramChannel from = FaultPair.injector(B)) {
            pair.a.qp.postSend(write(1, pair.a, pair.b, 0, 6 * MTU));
            int qpn = pair.a.qp.qpNum();
            byte[] nak = ack(qpn, Psn.add(p0, 2), AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR));
            for (int copy = 1; copy <= 2; copy++) {
                FaultPair.inject(from, A, nak, 0);
                int c = copy;
                pair.driving(pair.a, "NAK copy " + copy, () -> pair.count(pair.a, Counter.RCVD_SEQ_ERR) == c);
                pair.a.ctx.progress();
            }
            assertEquals(6 + 4, pair.count(pair.a, Counter.SENT_PKTS), "packets 2..5 went again once");
            assertEquals(4, pair.count(pair.a, Counter.RETRANSMITTED_PKTS));
            assertEquals(l.retryCnt - 1, soft(pair.a).requester.retryLeft(), "one retry spent");
            assertEquals(WcStatus.SUCCESS, pair.completion(pair.a.cq).status());
        }
    }

    @Test
    void shouldIgnoreANakForAPsnAlreadyAcknowledgedRegression() throws IOException {
        // regression (found by FuzzTest): a stale NAK or RNR NAK, overtaken by a later ACK, sent the requester
        // back to a PSN already done; with nothing to resend its timer ran out and the QP went to ERR
        Peer.Link l = link();
        l.timeout = 8;
        try (FaultPair pair = pair(l, FaultConfig.NONE, FaultConfig.NONE);
             DatagramChannel from = FaultPair.injector(B)) {
            pair.a.qp.postSend(write(1, pair.a, pair.b, 0, 2 * MTU));
            assertEquals(WcStatus.SUCCESS, pair.completion(pair.a.cq).status());
            int acked = Psn.add(soft(pair.a).requester.unackedPsn(), -1);
            int qpn = pair.a.qp.qpNum();
            long sent = pair.count(pair.a, Counter.SENT_PKTS);
            FaultPair.inject(from, A, ack(qpn, acked, AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR)), 0);
            FaultPair.inject(from, A, ack(qpn, acked, AethSyndrome.rnrNak(3)), 0);
            pair.driving(pair.a, "both NAKs", () -> pair.count(pair.a, Counter.RCVD_DROPPED) == 2);
            pair.settle(20 * Requester.ackTimeoutNs(8));
            assertEquals(sent, pair.count(pair.a, Counter.SENT_PKTS), "nothing sent again");
            assertEquals(0, pair.count(pair.a, Counter.COMPLETER_RETRY_ERR));
            assertEquals(QpState.RTS, pair.a.qp.state());
            pair.a.qp.postSend(write(2, pair.a, pair.b, 4096, 100));
            assertEquals(WcStatus.SUCCESS, pair.completion(pair.a.cq).status());
        }
    }

    @Test
    void shouldFailWithRetryExceededWhenOnlyAcksAreLostBadFlow() {
        Peer.Link l = link();
        l.timeout = 10;
        l.retryCnt = 2;
        try (FaultPair pair = pair(l, FaultConfig.NONE, FaultConfig.builder().dropAcks(1.0).build())) {
            pair.a.qp.postSend(write(1, pair.a, pair.b, 0, 3 * MTU));
            pair.a.qp.postSend(write(2, pair.a, pair.b, 8192, 10));
            WorkCompletion wc = pair.completion(pair.a.cq);
            assertEquals(1, wc.wrId());
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
            assertEquals(QpState.ERR, pair.a.qp.state());
            WorkCompletion flushed = pair.completion(pair.a.cq);
            assertEquals(2, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
            // every transmission arrived (the data is there), only the acknowledgements were lost
            assertSame(pair.a, pair.b, 0, 3 * MTU);
            assertEquals(3, pair.count(pair.a, Counter.COMPLETER_RETRY_ERR), "the first timeout and two retries");
            assertEquals(1, pair.count(pair.a, Counter.RETRY_EXCEEDED_ERR));
            // after a timeout the congestion window is one packet: each retry sends the oldest one again
            assertEquals(2, pair.count(pair.b, Counter.DUPLICATE_REQUEST), "both retries reached b");
            long acks = only(pair.atB, true, Opcode.RC_ACKNOWLEDGE.code()).size();
            assertTrue(acks >= 3);
            assertEquals(acks, pair.count(pair.b, Counter.FAULT_DROPPED), "each one dropped");
            assertEquals(0, pair.count(pair.a, Counter.RCVD_PKTS));
        }
    }

    @Test
    void shouldFailWithRnrRetryExceededAfterRnrRetryRetriesBadFlow() {
        Peer.Link l = link();
        l.rnrRetry = 3;
        try (FaultPair pair = pair(l, FaultConfig.NONE, FaultConfig.NONE)) {
            pair.a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(pair.a.addr(0), 100, pair.a.mr.lkey())));
            pair.a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(pair.a.addr(0), 100, pair.a.mr.lkey())));
            WorkCompletion wc = pair.completion(pair.a.cq);
            assertEquals(1, wc.wrId());
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status());
            assertEquals(WcStatus.WR_FLUSH_ERR, pair.completion(pair.a.cq).status());
            assertEquals(QpState.ERR, pair.a.qp.state());
            assertEquals(4, pair.count(pair.a, Counter.RCVD_RNR_ERR), "the first RNR NAK and three retries");
            assertEquals(4, pair.count(pair.b, Counter.SEND_RNR_ERR));
            assertEquals(1, pair.count(pair.a, Counter.RETRY_RNR_EXCEEDED_ERR));
        }
    }

    @Test
    void shouldRetryForeverOnRnrWhenRnrRetryIsSeven() {
        Peer.Link l = link();
        l.rnrRetry = 7;
        try (FaultPair pair = pair(l, FaultConfig.NONE, FaultConfig.NONE)) {
            pair.a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(pair.a.addr(0), 100, pair.a.mr.lkey())));
            pair.until("30 RNR NAKs", () -> pair.count(pair.a, Counter.RCVD_RNR_ERR) >= 30);
            assertEquals(QpState.RTS, pair.a.qp.state());
            assertEquals(0, pair.count(pair.a, Counter.RETRY_RNR_EXCEEDED_ERR));
            pair.b.qp.postRecv(new RecvWr().wrId(9).sg(new Sge(pair.b.addr(0), 4096, pair.b.mr.lkey())));
            assertEquals(WcStatus.SUCCESS, pair.completion(pair.a.cq).status());
        }
    }

    @Test
    void shouldKeepAtMostTheWindowUnacknowledged() {
        try (FaultPair pair = pair(link(), FaultConfig.NONE, FaultConfig.NONE)) {
            int window = soft(pair.a).requester.window();
            pair.a.qp.postSend(write(1, pair.a, pair.b, 0, 3 * window * MTU));
            for (int i = 0; i < 200; i++) {
                pair.a.ctx.progress(); // b is not driven: nothing is acknowledged
            }
            assertEquals(window, pair.count(pair.a, Counter.SENT_PKTS), "a sender never floods");
            assertEquals(WcStatus.SUCCESS, pair.completion(pair.a.cq).status());
            assertSame(pair.a, pair.b, 0, 3L * window * MTU);
        }
    }

    @Test
    void shouldAskAgainWithinOneEarlierReadRequestRegression() {
        // regression: after a loss a large READ was asked for again in chunks cut anew, which could span two of
        // the responder's resources; a responder (rxe, and now jrdma) drops such a duplicate, so the READ failed
        Peer.Link l = link();
        int p0 = l.psn;
        int chunk;
        try (FaultPair probe = new FaultPair(A, B, 1 << 20, ACCESS, l, FaultConfig.NONE, FaultConfig.NONE, kind())) {
            chunk = Math.max(1, soft(probe.a).requester.window() / Math.min(4, l.maxRd));
        }
        int packets = Math.min(3 * chunk + 5, (1 << 20) / MTU);
        // a response in the middle of the first request and one in the middle of the second are lost
        FaultConfig lose = FaultConfig.builder().dropPsns(Psn.add(p0, chunk / 2), Psn.add(p0, chunk + chunk / 2 + 1))
                .build();
        try (FaultPair pair = new FaultPair(A, B, 1 << 20, ACCESS, l, FaultConfig.NONE, lose, kind()).record()) {
            fill(pair.b.buf, 3);
            pair.a.qp.postSend(read(1, pair.a, pair.b, 0, packets * MTU));
            WorkCompletion wc = pair.completion(pair.a.cq);
            assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + "\n" + pair.counters());
            assertSame(pair.a, pair.b, 0, (long) packets * MTU);
            int rethAt = Opcode.RC_RDMA_READ_REQUEST.rethOffset();
            for (FaultPair.Seen s : only(pair.atA, true, Opcode.RC_RDMA_READ_REQUEST.code())) {
                int first = Psn.diff(s.psn(), p0);
                int last = first + (Reth.dmaLength(s.seg(), rethAt) + MTU - 1) / MTU - 1;
                assertEquals(first / chunk, last / chunk, "request for packets " + first + ".." + last
                        + " crosses a chunk of " + chunk);
                assertEquals(pair.b.addr((long) first * MTU), Reth.va(s.seg(), rethAt));
            }
            assertTrue(pair.count(pair.b, Counter.DUPLICATE_REQUEST) >= 1);
        }
    }
}
