package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Posting to a shared receive queue from many threads, and from a poster thread while the engine thread
 * consumes: every WQE completes once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SrqConcurrencyTest extends SrqFixture {

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
}
