package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Threading#ADAPTIVE}, the default: while the application polls, its threads run the engine's passes and the
 * engine thread stays parked; when the application stops (blocks on something else), the engine thread takes over
 * and the peer is answered in time, without a retransmission; a thread waiting on a completion channel drives the
 * engine from the kernel's receive and a post from another thread meanwhile wakes it; posts from many threads that
 * find the engine held by another are never lost.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdaptiveThreadingTest extends AdaptiveThreadingBase {

    // ----------------------------------------------------------------------------------------- (a) callers drive

    /**
     * Two threads ping-pong 20,000 SENDs, each polling its own device. The engine threads' own work is measured by
     * what they do, not how fast: a parked engine thread sleeps on a schedule (parks growing from 50 us to 10 ms
     * while the callers drive, some nine per takeover before they reach 10 ms) and takes over only when no caller ran
     * a pass for a millisecond, which a polling caller does only when it loses its CPU that long. Their CPU time
     * is printed, not asserted: on a loaded host callers lose their CPUs often and the engine threads rightly
     * cover for them, so it says little.
     */
    @Test
    void whileTheApplicationPollsItsThreadsRunThePassesAndTheEngineThreadStaysParked() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/status")), "needs Linux's /proc");
        int roundTrips = 20_000;
        try (Peer a = peer("127.0.150.1", Threading.ADAPTIVE, 1 << 16);
                Peer b = peer("127.0.150.2", Threading.ADAPTIVE, 1 << 16)) {
            connect(a, a.qp, b, b.qp, Peer.Link.tolerant()); // a loaded host's stalls must not time out
            prepost(a, a.qp);
            prepost(b, b.qp);
            PassThreads tapA = new PassThreads();
            PassThreads tapB = new PassThreads();
            a.ctx.tap(tapA);
            b.ctx.tap(tapB);
            runBoth(() -> exchange(a, a.qp, 2_000, true), () -> exchange(b, b.qp, 2_000, false)); // warm up
            Thread[] engines = {engineThread(a), engineThread(b)};
            long engineCpu = cpu(engines);
            long sleeps = engineSleeps();
            long takeovers = a.ctx.engine.takeovers() + b.ctx.engine.takeovers();
            long enginePackets = tapA.engine.sum() + tapB.engine.sum();
            long callerPackets = tapA.callers.sum() + tapB.callers.sum();

            long start = System.nanoTime();
            long[] longest = new long[1];
            long[] callers = runBoth(() -> longest[0] = exchange(a, a.qp, roundTrips, true),
                    () -> exchange(b, b.qp, roundTrips, false));
            double seconds = (System.nanoTime() - start) / 1e9;
            engineCpu = cpu(engines) - engineCpu;
            sleeps = engineSleeps() - sleeps;
            takeovers = a.ctx.engine.takeovers() + b.ctx.engine.takeovers() - takeovers;
            enginePackets = tapA.engine.sum() + tapB.engine.sum() - enginePackets;
            callerPackets = tapA.callers.sum() + tapB.callers.sum() - callerPackets;
            String figures = String.format("%d round trips in %.2f s (longest %.2f ms); callers: CPU %.1f ms, context"
                    + " switches %d, packets %d; engine threads: CPU %.2f ms, sleeps %d, takeovers %d, packets %d",
                    roundTrips, seconds, longest[0] / 1e6, callers[0] / 1e6, callers[1], callerPackets,
                    engineCpu / 1e6, sleeps, takeovers, enginePackets);
            System.out.println("adaptive, polling: " + figures);

            assertTrue(callerPackets >= 4L * roundTrips, figures); // a SEND and its ACK each way, seen on both sides
            assertTrue(enginePackets * 50 < callerPackets, "the callers run (nearly) all passes: " + figures);
            long sleepBudget = 20 * (takeovers + 1) + (long) (2 * 2 * 100 * seconds); // 2 engines, 100/s, twice
            assertTrue(sleeps <= sleepBudget, "the engine threads stay parked (at most " + sleepBudget + " sleeps): "
                    + figures);
            assertTrue(takeovers <= 2 * callers[1] + 20, "the engine threads take over only from callers that lost"
                    + " their CPUs: " + figures);
            assertQuiet(a);
            assertQuiet(b);
        }
    }

    // ------------------------------------------------------------------------------- (b) the application blocks

    @Test
    void aSideWhoseApplicationBlocksStillAnswersItsPeerWithoutRetransmission() throws Exception {
        int len = 256 << 10;
        long writeAt = 64 << 10;
        long readAt = writeAt + len;
        try (Peer a = peer("127.0.150.3", Threading.ADAPTIVE, readAt + len);
                Peer b = peer("127.0.150.4", Threading.ADAPTIVE, readAt + len)) {
            Peer.Link link = new Peer.Link();
            link.timeout = 16; // 268 ms: a takeover takes up to 10 ms, a loaded host's stall may take 100
            connect(a, a.qp, b, b.qp, link);
            prepost(a, a.qp);
            prepost(b, b.qp);
            runBoth(() -> exchange(a, a.qp, 200, true), () -> exchange(b, b.qp, 200, false));
            int cycles = 5;
            long[] latency = new long[cycles];
            int tookOver = 0;
            for (int cycle = 0; cycle < cycles; cycle++) {
                long takeovers = b.ctx.engine.takeovers();
                CountDownLatch received = new CountDownLatch(1);
                CountDownLatch resume = new CountDownLatch(1);
                long seq = 1000 + cycle;
                // b's application polls (so b's engine thread parks and b's responder holds the ACK for an answer),
                // takes the SEND and then blocks without answering or polling again: only b's engine thread can
                // acknowledge it, and what follows
                Worker app = Worker.start("b-app", () -> {
                    WorkCompletion wc = awaitOne(b, b.cq);
                    assertEquals(WcOpcode.RECV, wc.opcode());
                    assertEquals(seq, b.buf.get(ValueLayout.JAVA_LONG, wc.wrId() * 64)); // the warm-up's receives
                    received.countDown();
                    assertTrue(resume.await(60, TimeUnit.SECONDS));
                });
                awaitParked(engineThread(b)); // b's engine thread saw its application drive, and parked
                a.buf.set(ValueLayout.JAVA_LONG, SEND_AT, seq);
                long t0 = System.nanoTime();
                a.qp.postSend(send(a, seq, SEND_AT));
                assertTrue(received.await(20, TimeUnit.SECONDS), "b's application never got the SEND");
                expect(a, seq, WcOpcode.SEND);
                latency[cycle] = System.nanoTime() - t0;

                RcDataPathTest.fill(a.buf, writeAt, len, new java.util.Random(cycle));
                RcDataPathTest.fill(b.buf, readAt, len, new java.util.Random(100 + cycle));
                a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sg(sge(a, writeAt, len)).remote(b.addr(writeAt), b.mr.rkey()));
                expect(a, 1, WcOpcode.RDMA_WRITE);
                a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                        .sg(sge(a, readAt, len)).remote(b.addr(readAt), b.mr.rkey()));
                expect(a, 2, WcOpcode.RDMA_READ);
                assertEquals(1, resume.getCount(), "all of it while b's application was blocked");
                // b's engine thread parked while the application drove, and took over when it blocked; on a host so
                // loaded that the application hardly ran, the engine thread may never have seen it drive at all
                tookOver += b.ctx.engine.takeovers() > takeovers ? 1 : 0;
                resume.countDown();
                app.join();
                assertEquals(-1, a.buf.asSlice(writeAt, len).mismatch(b.buf.asSlice(writeAt, len)), "WRITE");
                assertEquals(-1, a.buf.asSlice(readAt, len).mismatch(b.buf.asSlice(readAt, len)), "READ");
            }
            String figures = "SEND completed after " + Arrays.toString(Arrays.stream(latency).map(l -> l / 1000)
                    .toArray()) + " us; b's engine thread took over in " + tookOver + " of " + cycles + " cycles";
            System.out.println("adaptive, application blocked: " + figures);
            assertTrue(tookOver > 0, figures);
            Arrays.sort(latency);
            assertTrue(latency[cycles / 2] < TimeUnit.MILLISECONDS.toNanos(67), "the ACK a blocked application held"
                    + " goes out when the engine thread takes over, well within the usual ACK timeout: " + figures);
            assertQuiet(a);
            assertQuiet(b);
        }
    }

    // -------------------------------------------------------------------------------- (c) completion channels

    @Test
    void completionChannelWaitersGetTheirEventsAndDriveTheEngine() throws Exception {
        int roundTrips = 2_000;
        try (Peer a = peer("127.0.150.5", Threading.ADAPTIVE, 1 << 16);
                Peer b = peer("127.0.150.6", Threading.ADAPTIVE, 1 << 16)) {
            CompletionChannel chA = a.ctx.createCompletionChannel();
            CompletionChannel chB = b.ctx.createCompletionChannel();
            CompletionQueue cqA = a.ctx.createCq(64, chA);
            CompletionQueue cqB = b.ctx.createCq(64, chB);
            QueuePair qa = qp(a, a.cq, cqA);
            QueuePair qb = qp(b, b.cq, cqB);
            try {
                connect(a, qa, b, qb, Peer.Link.tolerant());
                prepost(a, qa);
                prepost(b, qb);
                PassThreads tapA = new PassThreads();
                a.ctx.tap(tapA);
                long[] events = new long[2];
                long takeovers = a.ctx.engine.takeovers() + b.ctx.engine.takeovers();
                long start = System.nanoTime();
                runBoth(() -> events[0] = exchangeByEvents(a, qa, chA, cqA, roundTrips, true),
                        () -> events[1] = exchangeByEvents(b, qb, chB, cqB, roundTrips, false));
                takeovers = a.ctx.engine.takeovers() + b.ctx.engine.takeovers() - takeovers;
                String figures = String.format("%d round trips in %.2f s, events %s, takeovers %d, packets at a by"
                        + " callers %d, by its engine thread %d", roundTrips, (System.nanoTime() - start) / 1e9,
                        Arrays.toString(events), takeovers, tapA.callers.sum(), tapA.engine.sum());
                System.out.println("adaptive, completion channels: " + figures);
                // the waiters sleep on their channels (each wait ended with the CQ's event, or exchangeByEvents threw).
                // How many replies are waited for there depends on the machine: an adaptive poll that finds nothing
                // may itself wait for the next datagram (CallerBackoff), and through the shared-memory rings a reply
                // often arrives before the poll that follows the send: 1,100 - 1,900 of 2,000 on a quiet machine,
                // 197 beside a build
                assertTrue(events[0] > 0 && events[1] > 0, figures);
                assertTrue(tapA.engine.sum() * 20 < tapA.callers.sum(), "the waiters drive the engine: " + figures);
                assertQuiet(a);
                assertQuiet(b);
            } finally {
                qa.close();
                qb.close();
                cqA.close();
                cqB.close();
                chA.close();
                chB.close();
            }
        }
    }

    @Test
    void aPostFromAnotherThreadWhileAWaiterSleepsInTheReceiveIsSentPromptly() throws Exception {
        int trials = 30;
        try (Peer a = peer("127.0.150.7", Threading.ADAPTIVE, 1 << 16);
                Peer b = peer("127.0.150.8", Threading.ADAPTIVE, 1 << 16)) {
            long tick = a.ctx.link.receiveWaitNs();
            assumeTrue(tick > 0, "this link cannot wait in a receive");
            CompletionChannel ch = a.ctx.createCompletionChannel();
            CompletionQueue recvCq = a.ctx.createCq(16, ch);
            QueuePair qa = qp(a, a.cq, recvCq); // sends complete on a.cq (no channel), receives on recvCq
            try {
                connect(a, qa, b, b.qp, Peer.Link.tolerant());
                qa.postRecv(new RecvWr().wrId(0).sg(sge(a, 0, 64)));
                for (int s = 0; s < RECVS; s++) {
                    b.qp.postRecv(new RecvWr().wrId(s).sg(sge(b, s * 64L, 64)));
                }
                recvCq.requestNotify(false);
                AtomicReference<CompletionQueue> event = new AtomicReference<>();
                // nothing arrives for recvCq until the end: this thread sleeps in a's receive all along
                Worker waiter = Worker.start("a-waiter", () -> event.set(ch.awaitEvent(Duration.ofSeconds(60))));
                long[] latency = new long[trials];
                for (int i = 0; i < trials; i++) {
                    awaitInReceive(waiter.thread);
                    a.buf.set(ValueLayout.JAVA_LONG, SEND_AT, i);
                    long t0 = System.nanoTime();
                    qa.postSend(send(a, i, SEND_AT));
                    WorkCompletion got = awaitOne(b, b.cq); // b's poll drives b only
                    latency[i] = System.nanoTime() - t0;
                    assertEquals(WcOpcode.RECV, got.opcode());
                    assertEquals(i, b.buf.get(ValueLayout.JAVA_LONG, got.wrId() * 64));
                    b.qp.postRecv(new RecvWr().wrId(got.wrId()).sg(sge(b, got.wrId() * 64, 64)));
                    expect(a, i, WcOpcode.SEND);
                    assertTrue(waiter.thread.isAlive(), "no event yet");
                }
                long[] sorted = latency.clone();
                Arrays.sort(sorted);
                String figures = String.format("receive wait %.1f ms; post-to-arrival median %.3f ms, max %.3f ms",
                        tick / 1e6, sorted[trials / 2] / 1e6, sorted[trials - 1] / 1e6);
                System.out.println("adaptive, post while a waiter sleeps in the receive: " + figures);
                // the post wakes the sleeping receive at once; without the wake-up it would go out when that wait
                // ends, one to two kernel ticks later
                assertTrue(sorted[trials / 2] < tick / 2, figures);

                b.buf.set(ValueLayout.JAVA_LONG, SEND_AT, 77);
                b.qp.postSend(send(b, 77, SEND_AT));
                waiter.join();
                assertSame(recvCq, event.get(), "the waiter got its event");
                recvCq.ackEvents(1);
                assertEquals(WcOpcode.RECV, awaitOne(a, recvCq).opcode());
                assertEquals(77, a.buf.get(ValueLayout.JAVA_LONG, 0));
                expect(b, 77, WcOpcode.SEND);
                assertQuiet(a);
                assertQuiet(b);
            } finally {
                qa.close();
                recvCq.close();
                ch.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------ (d) posts are not lost

    @ParameterizedTest
    @EnumSource(Threading.class)
    void postsFromManyThreadsOnSeparateQpsEachCompleteExactlyOnce(Threading threading) throws Exception {
        int qps = 4;
        int each = 3_000;
        int len = 64;
        int depth = 48;
        long bytes = (long) qps * each * len;
        try (Peer a = peer("127.0.150.9", threading, bytes);
                Peer b = peer("127.0.150.10", Threading.ADAPTIVE, bytes)) {
            QueuePair[] qa = new QueuePair[qps];
            QueuePair[] qb = new QueuePair[qps];
            qa[0] = a.qp;
            qb[0] = b.qp;
            for (int q = 1; q < qps; q++) {
                qa[q] = qp(a, a.cq, a.cq);
                qb[q] = qp(b, b.cq, b.cq);
            }
            try {
                for (int q = 0; q < qps; q++) {
                    connect(a, qa[q], b, qb[q], Peer.Link.tolerant());
                }
                RcDataPathTest.fill(a.buf, 0, bytes, new java.util.Random(5));
                AtomicLongArray done = new AtomicLongArray(qps);
                Worker[] posters = new Worker[qps];
                for (int q = 0; q < qps; q++) {
                    int qq = q;
                    posters[q] = Worker.start("poster-" + q, () -> {
                        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED);
                        for (int i = 0; i < each; i++) {
                            while (i - done.get(qq) >= depth) {
                                Thread.yield();
                            }
                            long off = ((long) qq * each + i) * len;
                            qa[qq].postSend(wr.wrId((long) qq << 32 | i).sg(sge(a, off, len))
                                    .remote(b.addr(off), b.mr.rkey()));
                        }
                    });
                }
                // one thread polls: every WR completes once, in order on its QP, successfully
                int[] next = new int[qps];
                WorkCompletion[] wcs = wcs(16);
                long deadline = System.nanoTime() + WAIT_NS;
                for (long total = 0; total < (long) qps * each; ) {
                    int n = a.cq.poll(wcs);
                    for (int j = 0; j < n; j++) {
                        WorkCompletion wc = wcs[j];
                        assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + "; completions so far "
                                + Arrays.toString(next) + "\n  a: " + a.ctx.counters() + "\n  b: " + b.ctx.counters()
                                + "\n  b's engine: " + Arrays.toString(engineThread(b).getStackTrace()));
                        int q = (int) (wc.wrId() >>> 32);
                        assertEquals(next[q]++, (int) wc.wrId(), () -> "QP " + q + ": each WR once, in order");
                        done.incrementAndGet(q);
                    }
                    total += n;
                    if (n > 0) {
                        deadline = System.nanoTime() + WAIT_NS;
                    } else {
                        assertTrue(System.nanoTime() < deadline, () -> "completions so far " + Arrays.toString(next)
                                + "\n  a: " + a.ctx.counters() + "\n  b: " + b.ctx.counters());
                        Thread.yield();
                    }
                }
                for (Worker p : posters) {
                    p.join();
                }
                assertEquals(-1, a.buf.asSlice(0, bytes).mismatch(b.buf.asSlice(0, bytes)), "every WRITE landed");
                System.out.println(threading + ", " + qps + " posting threads: " + a.ctx.counters());
                assertQuiet(a);
            } finally {
                for (int q = 1; q < qps; q++) {
                    qa[q].close();
                    qb[q].close();
                }
            }
        }
    }

    /**
     * A post that finds the engine held by a pass on another thread only rings the doorbell; the holder runs another
     * pass when it lets go, which sends it. The holder's pass is stopped (in the packet tap) after it served the QP
     * the post goes to, so only that next pass can send it: in invoker mode nothing else would, since nobody drives
     * the device afterwards. In adaptive mode the engine thread may run the pass instead (then the attempt is
     * repeated) or send the post itself; either way it must arrive.
     */
    @ParameterizedTest
    @EnumSource(value = Threading.class, names = {"INVOKER", "ADAPTIVE"})
    void aPostThatFindsTheEngineHeldIsSentWhenTheHolderLetsGo(Threading threading) throws Exception {
        try (Peer a = peer("127.0.150.11", threading, 1 << 16);
                Peer b = peer("127.0.150.12", Threading.ADAPTIVE, 1 << 16)) {
            QueuePair[] qa = {a.qp, qp(a, a.cq, a.cq)};
            QueuePair[] qb = {b.qp, qp(b, b.cq, b.cq)};
            try {
                HoldingTap tap = new HoldingTap();
                for (int q = 0; q < 2; q++) {
                    connect(a, qa[q], b, qb[q], Peer.Link.tolerant());
                    for (int s = 0; s < 2 * RECVS; s++) {
                        qb[q].postRecv(new RecvWr().wrId(s).sg(sge(b, (q * 2 * RECVS + s) * 64L, 64)));
                    }
                }
                a.ctx.tap(tap);
                int held = 0;
                int attempts = 0;
                long seq = 0;
                while (held < 3 && attempts < 20) {
                    attempts++;
                    tap.reset();
                    CountDownLatch posted = new CountDownLatch(1);
                    long first = seq;
                    seq += 2;
                    Worker holder;
                    a.ctx.lock.lock(); // the test holds the engine: the holder's two posts only ring the doorbell
                    try {
                        holder = Worker.start("holder", () -> {
                            tap.holder = Thread.currentThread();
                            a.qp.postSend(sendAt(a, first));
                            qa[1].postSend(sendAt(a, first + 1));
                            posted.countDown();
                            while (tap.sent.get() < 2) {
                                a.ctx.progress(); // the pass that sends both is stopped in the tap at the second
                            }
                        });
                        assertTrue(posted.await(20, TimeUnit.SECONDS));
                        Thread.sleep(1); // the holder tries the lock meanwhile
                    } finally {
                        a.ctx.lock.unlock();
                    }
                    int expected = 2;
                    if (tap.blocked.await(2, TimeUnit.SECONDS)) {
                        held++;
                        assertTrue(a.ctx.lock.isLocked() && !a.ctx.lock.isHeldByCurrentThread());
                        // the QP the held pass served first: that pass will not visit it again
                        QueuePair served = tap.firstDestQp == qb[0].qpNum() ? qa[0] : qa[1];
                        served.postSend(sendAt(a, seq++)); // finds the engine held: rings the doorbell only
                        expected++;
                        tap.release.countDown();
                    }
                    holder.join();
                    // nobody drives a from here on: b's polls must see every SEND
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    WorkCompletion[] wcs = wcs(1);
                    for (int got = 0; got < expected; ) {
                        if (b.cq.poll(wcs) == 1) {
                            assertEquals(WcStatus.SUCCESS, wcs[0].status());
                            got++;
                        } else {
                            int g = got;
                            int e = expected;
                            assertTrue(System.nanoTime() < deadline, () -> g + " of " + e + " SENDs arrived: the "
                                    + "post made while the engine was held never went out; a: " + a.ctx.counters());
                        }
                    }
                    expectAny(a, expected);
                }
                System.out.println(threading + ", posts while the engine is held: the holder's pass was stopped in "
                        + held + " of " + attempts + " attempts");
                assertEquals(3, held, "the holder ran the pass");
                assertQuiet(a);
            } finally {
                qa[1].close();
                qb[1].close();
            }
        }
    }

    /**
     * As {@link #exchange} on a QP whose receives complete on {@code cq} of channel {@code ch}: an empty CQ is
     * waited for by its event (armed, acknowledged, re-armed). Returns the events taken.
     */
    private static long exchangeByEvents(Peer p, QueuePair qp, CompletionChannel ch, CompletionQueue cq, int n,
            boolean initiator) {
        cq.requestNotify(false);
        WorkCompletion[] wcs = wcs(8);
        long events = 0;
        long received = 0;
        long sent = initiator ? sendNext(p, qp, 0, 0) : 0;
        long sendsDone = 0;
        while (received < n) {
            int k = cq.poll(wcs);
            if (k == 0) {
                CompletionQueue ev = ch.awaitEvent(Duration.ofSeconds(10));
                if (ev != cq) {
                    throw new AssertionError("no event within 10 s after " + received + " messages: " + ev + "; "
                            + p.ctx.counters());
                }
                cq.ackEvents(1);
                events++;
                cq.requestNotify(false);
                continue;
            }
            for (int j = 0; j < k; j++) {
                WorkCompletion wc = wcs[j];
                assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
                long seq = p.buf.get(ValueLayout.JAVA_LONG, wc.wrId() * 64);
                assertEquals(received, seq, "messages in order, each once");
                received++;
                qp.postRecv(new RecvWr().wrId(wc.wrId()).sg(sge(p, wc.wrId() * 64, 64)));
                if (!initiator || received < n) {
                    sent = sendNext(p, qp, initiator ? received : seq, sent);
                }
            }
            sendsDone += reap(p, wcs);
        }
        long deadline = System.nanoTime() + WAIT_NS;
        while (sendsDone < sent) {
            sendsDone += reap(p, wcs);
            assertTrue(System.nanoTime() < deadline, "send completions");
        }
        for (CompletionQueue ev = ch.awaitEvent(Duration.ofMillis(20)); ev != null;
                ev = ch.awaitEvent(Duration.ofMillis(20))) {
            cq.ackEvents(1); // one raised for a completion already polled
        }
        return events;
    }

    private static int reap(Peer p, WorkCompletion[] wcs) {
        int k = p.cq.poll(wcs);
        for (int j = 0; j < k; j++) {
            assertEquals(WcStatus.SUCCESS, wcs[j].status(), wcs[j]::toString);
            assertEquals(WcOpcode.SEND, wcs[j].opcode());
        }
        return k;
    }

    /** Stops the holder's pass at the second packet it sends, until released; remembers the first's QP. */
    private static final class HoldingTap implements PacketTap {
        volatile Thread holder;
        final AtomicInteger sent = new AtomicInteger();
        volatile int firstDestQp;
        volatile CountDownLatch blocked;
        volatile CountDownLatch release;

        void reset() {
            holder = null;
            sent.set(0);
            blocked = new CountDownLatch(1);
            release = new CountDownLatch(1);
        }

        @Override
        public void onPacket(boolean transmit, MemorySegment packet, long offset, int length, int srcIp,
                int srcPort, int dstIp, int dstPort) {
            if (!transmit) {
                return;
            }
            int n = sent.incrementAndGet();
            if (n == 1) {
                firstDestQp = Bth.destQp(packet, offset);
            } else if (n == 2 && Thread.currentThread() == holder) {
                blocked.countDown(); // in a pass on the holder's thread: the engine is held
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
