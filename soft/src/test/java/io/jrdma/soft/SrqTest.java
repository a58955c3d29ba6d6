package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.SrqAttrMask;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Shared receive queues on the soft device: one SRQ feeding several QPs of two remote peers, RNR NAK on an empty
 * SRQ, the limit event, QP_LAST_WQE_REACHED and the flush of a QP on an SRQ, destruction order, the verbs' checks,
 * concurrent posting, and no allocation on the SRQ data path. The receiver is 127.0.33.1, the senders 127.0.33.2
 * and 127.0.33.3; every context is driven by the test thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SrqTest {

    private Peer r;
    private Peer s1;
    private Peer s2;
    private final ArrayDeque<AutoCloseable> resources = new ArrayDeque<>();

    @BeforeEach
    void open() {
        r = new Peer("127.0.33.1", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20, Peer.ALL_ACCESS, Peer.defaultCap());
        s1 = new Peer("127.0.33.2", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20, Peer.ALL_ACCESS, Peer.defaultCap());
        s2 = new Peer("127.0.33.3", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20, Peer.ALL_ACCESS, Peer.defaultCap());
    }

    @AfterEach
    void close() throws Exception {
        while (!resources.isEmpty()) {
            resources.pop().close();
        }
        s2.close();
        s1.close();
        r.close();
    }

    private <T extends AutoCloseable> T later(T resource) {
        resources.push(resource);
        return resource;
    }

    private SharedReceiveQueue srq(int maxWr, int maxSge) {
        return later(r.pd.createSrq(new SrqAttr().maxWr(maxWr).maxSge(maxSge)));
    }

    /** A QP at the receiver that takes its receives from {@code srq}. */
    private QueuePair srqQp(SharedReceiveQueue srq) {
        return later(r.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq)
                .cap(Peer.defaultCap()).srq(srq)));
    }

    private QueuePair qpOn(Peer p, QpCap cap) {
        return later(p.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(p.cq).recvCq(p.cq).cap(cap)));
    }

    private static void link(QueuePair x, Peer px, QueuePair y, Peer py) {
        Peer.Link l = new Peer.Link();
        Wiring.connect(x, y, py.ctx, l);
        Wiring.connect(y, x, px.ctx, l);
    }

    private void drive() {
        r.ctx.progress();
        s1.ctx.progress();
        s2.ctx.progress();
    }

    private List<WorkCompletion> awaitN(CompletionQueue cq, int n) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + Wiring.WAIT_NS;
        while (out.size() < n) {
            drive();
            if (cq.poll(wcs) == 1) {
                out.add(new WorkCompletion().copyFrom(wcs[0]));
            } else if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for completion " + (out.size() + 1) + " of " + n + "; got " + out);
            }
        }
        return out;
    }

    private WorkCompletion await(CompletionQueue cq) {
        return awaitN(cq, 1).getFirst();
    }

    private void assertQuiet(long ms, CompletionQueue... cqs) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() - end < 0) {
            drive();
            for (CompletionQueue cq : cqs) {
                if (cq.poll(wcs) > 0) {
                    fail("unexpected completion " + wcs[0]);
                }
            }
        }
    }

    private static void fill(MemorySegment seg, int seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7 + (i >>> 8)));
        }
    }

    private static SendWr send(Peer p, long wrId, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(p.addr(offset), length, p.mr.lkey()));
    }

    private void postSrqRecv(SharedReceiveQueue srq, long wrId, long offset, int length) {
        srq.postRecv(new RecvWr().wrId(wrId).sg(new Sge(r.addr(offset), length, r.mr.lkey())));
    }

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
    void shouldCompleteEveryWqeOnceWhenManyThreadsPost() throws InterruptedException {
        SharedReceiveQueue srq = srq(512, 1);
        int threads = 4;
        int each = 100;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> posters = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            int base = t * 1000;
            posters.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    RecvWr wr = new RecvWr().sg(new Sge(r.addr(0), 64, r.mr.lkey()));
                    for (int i = 0; i < each; i++) {
                        srq.postRecv(wr.wrId(base + i));
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        start.countDown();
        for (Thread t : posters) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertTrue(failures.isEmpty(), failures.toString());
        VerbsException full = assertThrows(VerbsException.class, () -> {
            for (int i = 0; i < 200; i++) {
                postSrqRecv(srq, 9999, 0, 64);
            }
        });
        assertEquals(Errno.ENOMEM, full.errno(), "512 fit, 400 were posted");

        QueuePair r1 = srqQp(srq);
        QueuePair a1 = qpOn(s1, new QpCap().maxSendWr(512).maxRecvWr(1).maxSendSge(1).maxRecvSge(1));
        link(r1, r, a1, s1);
        for (int i = 0; i < 512; i++) {
            a1.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sg(new Sge(s1.addr(0), 8, s1.mr.lkey())));
        }
        Set<Long> expected = new HashSet<>();
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < each; i++) {
                expected.add((long) t * 1000 + i);
            }
        }
        Set<Long> seen = new HashSet<>();
        for (WorkCompletion wc : awaitN(r.cq, 512)) {
            assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            if (wc.wrId() != 9999) {
                assertTrue(seen.add(wc.wrId()), "wr_id " + wc.wrId() + " completed twice");
            }
        }
        assertEquals(expected, seen);
    }

    @Test
    void shouldKeepUpWithAPosterThreadWhileTheEngineThreadConsumes() throws InterruptedException {
        // dedicated engine threads on both sides; a second thread refills the SRQ while messages arrive
        try (Peer rd = new Peer("127.0.33.4", Threading.DEDICATED, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS,
                Peer.defaultCap());
             Peer sd = new Peer("127.0.33.5", Threading.DEDICATED, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS,
                     Peer.defaultCap())) {
            SharedReceiveQueue dsrq = rd.pd.createSrq(new SrqAttr().maxWr(16).maxSge(1));
            QueuePair q1 = rd.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(rd.cq).recvCq(rd.cq)
                    .cap(Peer.defaultCap()).srq(dsrq));
            QueuePair q2 = rd.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(rd.cq).recvCq(rd.cq)
                    .cap(Peer.defaultCap()).srq(dsrq));
            QueuePair t1 = sd.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(sd.cq).recvCq(sd.cq)
                    .cap(Peer.defaultCap()));
            QueuePair t2 = sd.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(sd.cq).recvCq(sd.cq)
                    .cap(Peer.defaultCap()));
            try {
                link(q1, rd, t1, sd);
                link(q2, rd, t2, sd);
                int total = 300;
                List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
                Thread poster = Thread.ofPlatform().start(() -> {
                    RecvWr wr = new RecvWr().sg(new Sge(rd.addr(0), 64, rd.mr.lkey()));
                    long deadline = System.nanoTime() + Wiring.WAIT_NS;
                    for (int i = 0; i < total && failures.isEmpty(); ) {
                        try {
                            dsrq.postRecv(wr.wrId(i));
                            i++;
                        } catch (VerbsException e) {
                            if (e.errno() != Errno.ENOMEM || System.nanoTime() - deadline > 0) {
                                failures.add(e);
                                return;
                            }
                            Thread.yield(); // full: the engine thread will make room
                        }
                    }
                });
                WorkCompletion[] wcs = new WorkCompletion[16];
                for (int i = 0; i < wcs.length; i++) {
                    wcs[i] = new WorkCompletion();
                }
                Set<Long> seen = new HashSet<>();
                int[] perQp = new int[2];
                int sent = 0;
                int sendsDone = 0;
                long deadline = System.nanoTime() + Wiring.WAIT_NS;
                while (seen.size() < total) {
                    if (sent < total && sent - sendsDone < 32) {
                        QueuePair t = sent % 2 == 0 ? t1 : t2;
                        t.postSend(send(sd, sent, 0, 32));
                        sent++;
                    }
                    int n = sd.cq.poll(wcs);
                    for (int k = 0; k < n; k++) {
                        assertEquals(WcStatus.SUCCESS, wcs[k].status(), wcs[k].toString());
                    }
                    sendsDone += n;
                    n = rd.cq.poll(wcs);
                    for (int k = 0; k < n; k++) {
                        assertEquals(WcStatus.SUCCESS, wcs[k].status(), wcs[k].toString());
                        assertTrue(seen.add(wcs[k].wrId()), "wr_id " + wcs[k].wrId() + " twice");
                        perQp[wcs[k].qpNum() == q1.qpNum() ? 0 : 1]++;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        fail("received " + seen.size() + " of " + total + "; failures " + failures);
                    }
                }
                poster.join(TimeUnit.SECONDS.toMillis(10));
                assertTrue(failures.isEmpty(), failures.toString());
                assertEquals(total / 2, perQp[0]);
                assertEquals(total / 2, perQp[1]);
            } finally {
                q1.close();
                q2.close();
                t1.close();
                t2.close();
                dsrq.close();
            }
        }
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

    // ------------------------------------------------------------------------------------------------- verbs

    @Test
    void shouldReportSrqLimitsLikeRxeAndCheckThemBadFlow() {
        DeviceAttr d = r.ctx.queryDevice();
        assertEquals(SoftLimits.MAX_SRQ, d.maxSrq());
        assertEquals(SoftLimits.MAX_SRQ_WR, d.maxSrqWr());
        assertEquals(27, d.maxSrqSge());
        assertNotEquals(0, d.deviceCapFlags() & io.jrdma.verbs.DeviceCapFlags.SRQ_RESIZE, "rxe resizes SRQs");
        ProtectionDomain pd = r.pd;
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(0).maxSge(1))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(d.maxSrqWr() + 1).maxSge(1))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(8).maxSge(d.maxSrqSge() + 1))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(8).maxSge(1).srqLimit(9))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> pd.createSrq(null)).errno());
        SharedReceiveQueue s = later(pd.createSrq(new SrqAttr().maxWr(d.maxSrqWr()).maxSge(0)));
        SrqAttr q = s.query(new SrqAttr());
        assertEquals(d.maxSrqWr(), q.maxWr());
        assertEquals(1, q.maxSge(), "max_sge 0 is raised to 1 (RXE_MIN_SRQ_SGE)");
        assertEquals(0, q.srqLimit());
        assertSame(pd, s.pd());
        SharedReceiveQueue armed = later(pd.createSrq(new SrqAttr().maxWr(8).maxSge(1).srqLimit(2)));
        assertEquals(2, armed.query(new SrqAttr()).srqLimit(), "as rxe_srq_from_init, a limit given at creation arms");
    }

    @Test
    void shouldCheckModifyAndResizeKeepingPostedWqesBadFlow() {
        SharedReceiveQueue srq = srq(4, 1);
        for (int i = 0; i < 4; i++) {
            postSrqRecv(srq, i, i * 1024L, 1024);
        }
        VerbsException full = assertThrows(VerbsException.class, () -> postSrqRecv(srq, 4, 0, 8));
        assertEquals(Errno.ENOMEM, full.errno());
        assertEquals(0, full.badWrIndex());
        assertModifyFails(srq, new SrqAttr().srqLimit(5), SrqAttrMask.LIMIT); // above max_wr 4
        assertModifyFails(srq, new SrqAttr().srqLimit(-1), SrqAttrMask.LIMIT);
        assertModifyFails(srq, new SrqAttr().maxWr(0), SrqAttrMask.MAX_WR);
        assertModifyFails(srq, new SrqAttr().maxWr(3), SrqAttrMask.MAX_WR); // below the 4 posted
        assertModifyFails(srq, new SrqAttr().maxWr(SoftLimits.MAX_SRQ_WR + 1), SrqAttrMask.MAX_WR);
        assertEquals(4, srq.query(new SrqAttr()).maxWr(), "a refused modify changes nothing");

        srq.modify(new SrqAttr().maxWr(8).srqLimit(6), EnumSet.of(SrqAttrMask.MAX_WR, SrqAttrMask.LIMIT));
        SrqAttr q = srq.query(new SrqAttr());
        assertEquals(8, q.maxWr());
        assertEquals(6, q.srqLimit());
        assertModifyFails(srq, new SrqAttr().maxWr(5), SrqAttrMask.MAX_WR); // below the armed limit 6
        for (int i = 4; i < 8; i++) {
            postSrqRecv(srq, i, i * 1024L, 1024);
        }
        assertEquals(Errno.ENOMEM, assertThrows(VerbsException.class, () -> postSrqRecv(srq, 8, 0, 8)).errno());

        QueuePair r1 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        link(r1, r, a1, s1);
        for (int i = 0; i < 8; i++) {
            a1.postSend(send(s1, i, 0, 32));
        }
        List<WorkCompletion> got = awaitN(r.cq, 8);
        for (int i = 0; i < 8; i++) {
            assertEquals(i, got.get(i).wrId(), "the WQEs kept their order across the resize");
            assertEquals(WcStatus.SUCCESS, got.get(i).status());
        }
        AsyncEvent e = Wiring.awaitEvent(r.ctx, r.ctx, s1.ctx);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
    }

    private static void assertModifyFails(SharedReceiveQueue srq, SrqAttr attr, SrqAttrMask mask) {
        VerbsException e = assertThrows(VerbsException.class, () -> srq.modify(attr, EnumSet.of(mask)));
        assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
    }

    @Test
    void shouldCheckPostedReceivesBadFlow() {
        SharedReceiveQueue srq = srq(8, 2);
        Sge ok = new Sge(r.addr(0), 64, r.mr.lkey());
        VerbsException tooMany = assertThrows(VerbsException.class,
                () -> srq.postRecv(new RecvWr().wrId(1).sg(ok, ok, ok)));
        assertEquals(Errno.EINVAL, tooMany.errno());
        assertTrue(tooMany.getMessage().contains("max_sge"), tooMany.getMessage());
        ProtectionDomain other = later(r.ctx.allocPd());
        var foreignMr = later(other.registerMemory(r.buf.asSlice(0, 4096), Peer.ALL_ACCESS));
        VerbsException foreign = assertThrows(VerbsException.class, () -> srq.postRecv(new RecvWr().wrId(1)
                .sg(ok).next(new RecvWr().wrId(2).sg(new Sge(foreignMr.address(), 64, foreignMr.lkey())))));
        assertEquals(Errno.EINVAL, foreign.errno());
        assertEquals(1, foreign.badWrIndex(), "the first WR of the chain stays posted");
        assertTrue(foreign.getMessage().contains("protection domain"), foreign.getMessage());
    }

    @Test
    void shouldRefusePostRecvOnAQpThatUsesAnSrqBadFlow() {
        SharedReceiveQueue srq = srq(8, 1);
        QueuePair r1 = later(r.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq)
                .cap(new QpCap().maxSendWr(4).maxSendSge(1).maxRecvWr(1_000_000).maxRecvSge(1000)).srq(srq)));
        assertEquals(0, r1.cap().maxRecvWr(), "receive caps are ignored with an SRQ");
        assertEquals(0, r1.cap().maxRecvSge());
        r1.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        VerbsException e = assertThrows(VerbsException.class,
                () -> r1.postRecv(new RecvWr().wrId(1).sg(new Sge(r.addr(0), 8, r.mr.lkey()))));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("shared receive queue"), e.getMessage());
    }

    @Test
    void shouldRefuseAnSrqOfAnotherPdOrContextBadFlow() {
        ProtectionDomain other = later(r.ctx.allocPd());
        SharedReceiveQueue foreignPd = later(other.createSrq(new SrqAttr().maxWr(4).maxSge(1)));
        VerbsException e = assertThrows(VerbsException.class, () -> r.pd.createQp(new QpInitAttr()
                .qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq).cap(Peer.defaultCap()).srq(foreignPd)));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("protection domain"), e.getMessage());
        SharedReceiveQueue foreignCtx = later(s1.pd.createSrq(new SrqAttr().maxWr(4).maxSge(1)));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> r.pd.createQp(new QpInitAttr()
                .qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq).cap(Peer.defaultCap()).srq(foreignCtx))).errno());
        SharedReceiveQueue gone = r.pd.createSrq(new SrqAttr().maxWr(4).maxSge(1));
        gone.close();
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> r.pd.createQp(new QpInitAttr()
                .qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq).cap(Peer.defaultCap()).srq(gone))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> postSrqRecv(gone, 1, 0, 8)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> gone.modify(new SrqAttr().srqLimit(1), EnumSet.of(SrqAttrMask.LIMIT))).errno());
    }

    @Test
    void shouldDestroyInOrderOnlyBadFlow() {
        ProtectionDomain pd = r.ctx.allocPd();
        SharedReceiveQueue srq = pd.createSrq(new SrqAttr().maxWr(4).maxSge(1));
        QueuePair qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq)
                .cap(Peer.defaultCap()).srq(srq));
        VerbsException busy = assertThrows(VerbsException.class, srq::close);
        assertEquals(Errno.EBUSY, busy.errno());
        assertTrue(busy.getMessage().contains("1 QP"), busy.getMessage());
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, pd::close).errno());
        qp.close();
        VerbsException pdBusy = assertThrows(VerbsException.class, pd::close);
        assertEquals(Errno.EBUSY, pdBusy.errno());
        assertTrue(pdBusy.getMessage().contains("SRQ"), pdBusy.getMessage());
        srq.close();
        srq.close(); // a second close is a no-op
        pd.close();
    }
}
