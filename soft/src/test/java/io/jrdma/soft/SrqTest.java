package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.SrqAttrMask;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Shared receive queues on the soft device: one SRQ feeding several QPs of two remote peers, RNR NAK on an empty
 * SRQ, the limit event, QP_LAST_WQE_REACHED and the flush of a QP on an SRQ, and no allocation on the SRQ data
 * path. Concurrent posting is in {@link SrqConcurrencyTest}, the verbs' checks and destruction order in
 * {@link SrqVerbsTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SrqTest extends SrqFixture {

    // ------------------------------------------------------------------------------------------------- data path

    @Test
    void shouldFeedThreeQpsOfTwoPeersFromOneSrq() {
        SharedReceiveQueue srq = srq(32, 2);
        QueuePair r1 = srqQp(srq);
        QueuePair r2 = srqQp(srq);
        QueuePair r3 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        QueuePair a2 = qpOn(s1, Peer.defaultCap());
        QueuePair b1 = qpOn(s2, Peer.defaultCap());
        link(r1, r, a1, s1);
        link(r2, r, a2, s1);
        link(r3, r, b1, s2);
        // 12 receives of 4 KiB, each as two SGEs of 2 KiB, so placements also cross SGE boundaries
        for (int i = 0; i < 12; i++) {
            srq.postRecv(new RecvWr().wrId(i).sg(new Sge(r.addr(i * 4096L), 2048, r.mr.lkey()),
                    new Sge(r.addr(i * 4096L + 2048), 2048, r.mr.lkey())));
        }
        int[] lengths = {3000, 10, 1024, 2500}; // 3, 1, 1 and 3 packets at MTU 1024
        QueuePair[] senders = {a1, a2, b1};
        Peer[] owners = {s1, s1, s2};
        QueuePair[] receivers = {r1, r2, r3};
        Map<Integer, MemorySegment> sent = new HashMap<>();
        for (int k = 0; k < lengths.length; k++) { // interleaved: every QP has a message in flight at once
            for (int q = 0; q < senders.length; q++) {
                int imm = (q + 1) * 100 + k;
                long off = (q * 4L + k) * 4096;
                MemorySegment src = owners[q].buf.asSlice(off, lengths[k]);
                fill(src, imm);
                sent.put(imm, src);
                senders[q].postSend(send(owners[q], imm, off, lengths[k]).opcode(WrOpcode.SEND_WITH_IMM)
                        .immData(imm));
            }
        }
        List<WorkCompletion> got = awaitN(r.cq, 12);
        Set<Long> wrIds = new HashSet<>();
        Map<Integer, Integer> nextK = new HashMap<>();
        for (WorkCompletion wc : got) {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertTrue((wc.wcFlags() & WcFlags.WITH_IMM) != 0);
            int q = wc.immData() / 100 - 1;
            int k = wc.immData() % 100;
            assertEquals(receivers[q].qpNum(), wc.qpNum(), "the completion names the QP the message came in on");
            assertEquals(nextK.getOrDefault(q, 0), k, "one QP's messages complete in order");
            nextK.put(q, k + 1);
            assertEquals(lengths[k], wc.byteLen());
            assertTrue(wrIds.add(wc.wrId()), "every SRQ WQE is used once");
            MemorySegment landed = r.buf.asSlice(wc.wrId() * 4096, lengths[k]);
            assertEquals(-1, sent.get(wc.immData()).mismatch(landed), "payload of " + wc);
        }
        assertEquals(12, wrIds.size());
        for (WorkCompletion wc : awaitN(s1.cq, 8)) {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        for (WorkCompletion wc : awaitN(s2.cq, 4)) {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        }
        assertEquals(0, r.ctx.counters().get(Counter.SEND_RNR_ERR));
        assertNull(r.ctx.pollAsyncEvent(), "no limit armed, no error: no event");
    }

    @Test
    void shouldNakRnrWhileTheSrqIsEmptyAndRecoverOnceAReceiveIsPosted() {
        SharedReceiveQueue srq = srq(8, 1);
        QueuePair r1 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        link(r1, r, a1, s1);
        fill(s1.buf.asSlice(0, 700), 3);
        a1.postSend(send(s1, 5, 0, 700));
        assertQuiet(50, r.cq, s1.cq);
        assertTrue(r.ctx.counters().get(Counter.SEND_RNR_ERR) > 0, "the responder NAKed RNR");
        assertTrue(s1.ctx.counters().get(Counter.RCVD_RNR_ERR) > 0, "the requester saw the RNR NAK");
        postSrqRecv(srq, 9, 8192, 1024);
        WorkCompletion rc = await(r.cq);
        assertEquals(9, rc.wrId());
        assertEquals(WcStatus.SUCCESS, rc.status());
        assertEquals(700, rc.byteLen());
        assertEquals(r1.qpNum(), rc.qpNum());
        assertEquals(-1, s1.buf.asSlice(0, 700).mismatch(r.buf.asSlice(8192, 700)));
        WorkCompletion sc = await(s1.cq);
        assertEquals(5, sc.wrId());
        assertEquals(WcStatus.SUCCESS, sc.status(), "rnr_retry 7 retries until the SRQ has a receive");
        assertEquals(QpState.RTS, a1.state());
    }

    @Test
    void shouldRaiseTheLimitEventOnceAndAgainOnlyAfterRearming() {
        SharedReceiveQueue srq = srq(16, 1);
        QueuePair r1 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        link(r1, r, a1, s1);
        for (int i = 0; i < 4; i++) {
            postSrqRecv(srq, i, i * 1024L, 1024);
        }
        srq.modify(new SrqAttr().srqLimit(3), EnumSet.of(SrqAttrMask.LIMIT));
        assertEquals(3, srq.query(new SrqAttr()).srqLimit());

        exchange(a1, 1); // 3 left: not below the limit
        Wiring.assertNoEvent(r.ctx, 20, r.ctx, s1.ctx);
        exchange(a1, 2); // 2 left: below 3
        AsyncEvent e = Wiring.awaitEvent(r.ctx, r.ctx, s1.ctx);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
        assertSame(srq, e.srq());
        assertNull(e.qp());
        assertNull(e.cq());
        assertEquals(0, srq.query(new SrqAttr()).srqLimit(), "the event disarms the limit");
        exchange(a1, 3); // 1 left: disarmed, no event
        Wiring.assertNoEvent(r.ctx, 20, r.ctx, s1.ctx);

        srq.modify(new SrqAttr().srqLimit(2), EnumSet.of(SrqAttrMask.LIMIT));
        assertEquals(2, srq.query(new SrqAttr()).srqLimit());
        Wiring.assertNoEvent(r.ctx, 20, r.ctx, s1.ctx); // as rxe: only taking a WQE checks the limit
        for (int i = 4; i < 7; i++) {
            postSrqRecv(srq, i, i * 1024L, 1024);
        }
        exchange(a1, 4); // 3 left
        exchange(a1, 5); // 2 left: not below 2
        Wiring.assertNoEvent(r.ctx, 20, r.ctx, s1.ctx);
        exchange(a1, 6); // 1 left
        e = Wiring.awaitEvent(r.ctx, r.ctx, s1.ctx);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
        assertSame(srq, e.srq());
        Wiring.assertNoEvent(r.ctx, 20, r.ctx, s1.ctx);
        assertEquals(2, r.ctx.counters().get(Counter.ASYNC_EVENTS));
    }

    /** One 16-byte SEND from {@code a1}; waits for both completions. */
    private void exchange(QueuePair a1, long wrId) {
        a1.postSend(send(s1, wrId, 0, 16));
        assertEquals(WcStatus.SUCCESS, await(r.cq).status());
        assertEquals(WcStatus.SUCCESS, await(s1.cq).status());
    }

    @Test
    void shouldRaiseLastWqeReachedAndFlushOnlyTheQpsOwnSendQueue() {
        SharedReceiveQueue srq = srq(8, 1);
        QueuePair r1 = srqQp(srq);
        QueuePair r2 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        QueuePair a2 = qpOn(s1, Peer.defaultCap());
        link(r1, r, a1, s1);
        link(r2, r, a2, s1);
        for (int i = 0; i < 3; i++) {
            postSrqRecv(srq, 10 + i, i * 1024L, 1024);
        }
        // r1 has a SEND outstanding (s1 is not driven, so nothing acknowledges it) when it is moved to ERR
        r1.postSend(new SendWr().wrId(50).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(r.addr(65536), 8, r.mr.lkey())));
        Wiring.move(r1, QpState.ERR);
        AsyncEvent e = Wiring.awaitEvent(r.ctx, r.ctx);
        assertEquals(AsyncEventType.QP_LAST_WQE_REACHED, e.type());
        assertSame(r1, e.qp());
        assertNull(e.srq());
        WorkCompletion flushed = await(r.cq);
        assertEquals(50, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        assertEquals(r1.qpNum(), flushed.qpNum());
        assertQuiet(20, r.cq); // the SRQ's receives are not flushed with r1
        Wiring.assertNoEvent(r.ctx, 20, r.ctx, s1.ctx);

        a2.postSend(send(s1, 7, 0, 64));
        WorkCompletion rc = await(r.cq);
        assertEquals(10, rc.wrId(), "the SRQ still holds its first receive");
        assertEquals(WcStatus.SUCCESS, rc.status());
        assertEquals(r2.qpNum(), rc.qpNum());
        assertEquals(WcStatus.SUCCESS, await(s1.cq).status());
        assertEquals(QpState.ERR, r1.state());
    }

    @Test
    void shouldFlushTheWqeAQpTookFromTheSrqWhenItFailsMidMessage() {
        SharedReceiveQueue srq = srq(8, 1);
        QueuePair r1 = srqQp(srq);
        QueuePair r2 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        QueuePair a2 = qpOn(s1, Peer.defaultCap());
        link(r1, r, a1, s1);
        link(r2, r, a2, s1);
        postSrqRecv(srq, 1, 0, 200_000);
        postSrqRecv(srq, 2, 200_000, 1024);
        // a 100-packet SEND: a1's first pass sends at most 32 packets, r1 places them and holds WQE 1
        a1.postSend(send(s1, 3, 0, 100 * 1024));
        r.ctx.progress();
        assertEquals(0, r.ctx.counters().get(Counter.SEND_RNR_ERR));
        Wiring.move(r1, QpState.ERR);
        WorkCompletion flushed = await(r.cq);
        assertEquals(1, flushed.wrId(), "the WQE r1 took out of the SRQ completes, it is not lost");
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        assertEquals(WcOpcode.RECV, flushed.opcode());
        assertEquals(r1.qpNum(), flushed.qpNum());
        AsyncEvent e = r.ctx.pollAsyncEvent(); // raised after that completion, in the same pass
        assertEquals(AsyncEventType.QP_LAST_WQE_REACHED, e.type());
        assertSame(r1, e.qp());

        a2.postSend(send(s1, 4, 0, 100));
        WorkCompletion rc = await(r.cq);
        assertEquals(2, rc.wrId());
        assertEquals(WcStatus.SUCCESS, rc.status());
        assertEquals(r2.qpNum(), rc.qpNum());
    }

    @Test
    void shouldAllocateNothingOnTheSrqDataPathAfterWarmUp() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        SharedReceiveQueue srq = srq(64, 2);
        QueuePair r1 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        link(r1, r, a1, s1);
        RecvWr recv = new RecvWr().wrId(1).sg(new Sge(r.addr(0), 2048, r.mr.lkey()),
                new Sge(r.addr(4096), 2048, r.mr.lkey()));
        SendWr send = send(s1, 2, 0, 3000);
        WorkCompletion[] wcs = {new WorkCompletion()};
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 4; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 1000; i++) {
                srq.postRecv(recv);
                a1.postSend(send);
                int got = 0;
                long spins = 0;
                while (got < 2) {
                    r.ctx.progress();
                    s1.ctx.progress();
                    got += r.cq.poll(wcs);
                    got += s1.cq.poll(wcs);
                    if (++spins > 50_000_000L) {
                        throw new AssertionError("stuck at iteration " + i);
                    }
                }
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            if (round > 0) {
                best = Math.min(best, allocated);
            }
        }
        assertTrue(best < 256, "the SRQ data path allocated " + best + " bytes in 1000 messages");
    }
}
