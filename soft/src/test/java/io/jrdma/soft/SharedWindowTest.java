package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Many RC QPs of one device sending at once share half the peer's socket buffer. When a QP's share shrinks under
 * packets it sent while it was alone, none of which asked for an ACK, it must not sit until its ACK timer runs out.
 */
class SharedWindowTest {

    private static final int OTHERS = 150;
    private static final int BIG = 64 * 1024;

    @Test
    void shouldFinishAMessageWithoutATimeoutWhenItsShareShrinksUnderIt() {
        Peer.Link link = Peer.Link.tolerant(); // an ACK timeout of 1.07 s: a wait for the timer cannot go unseen
        try (Pair p = new Pair("127.0.60.1", "127.0.60.2", Threading.INVOKER, NanoClock.SYSTEM, 2L * BIG,
                Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            List<QueuePair> mine = new ArrayList<>();
            List<QueuePair> theirs = new ArrayList<>();
            try {
                for (int i = 0; i < OTHERS; i++) {
                    mine.add(p.a.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(p.a.cq).recvCq(p.a.cq)
                            .cap(Peer.defaultCap())));
                    theirs.add(p.b.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(p.b.cq).recvCq(p.b.cq)
                            .cap(Peer.defaultCap())));
                    Peer.connect(mine.get(i), theirs.get(i).qpNum(), p.b.ctx.queryGid(1, 1), link);
                    Peer.connect(theirs.get(i), mine.get(i).qpNum(), p.a.ctx.queryGid(1, 1), link);
                }
                for (int i = 0; i < BIG; i++) {
                    p.a.buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
                }
                // alone: the post's doorbell sends the first packets of the 64 KiB WRITE, asking for no ACK yet
                p.a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(p.a.addr(0), BIG, p.a.mr.lkey())).remote(p.b.addr(0), p.b.mr.rkey()));
                long sent = p.a.ctx.counters().get(Counter.SENT_PKTS);
                assertTrue(sent > 0 && sent < BIG / 1024, "part of the message went out alone: " + sent);
                // then 150 more QPs have work, posted while another thread holds the engine (so no pass runs in
                // between): at the next pass the first QP's share falls below what it has in flight. Their SENDs
                // find no receive (RNR, retried forever), so they stay senders and the share stays small.
                postHeld(p.a.ctx, () -> {
                    for (int i = 0; i < OTHERS; i++) {
                        mine.get(i).postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.SEND)
                                .sendFlags(SendFlags.SIGNALED).sg(new Sge(p.a.addr(BIG + 8L * i), 8, p.a.mr.lkey())));
                    }
                });
                assertEquals(sent, p.a.ctx.counters().get(Counter.SENT_PKTS), "nothing sent while held");
                long start = System.nanoTime();
                WorkCompletion big = p.await(p.a.cq);
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(big.isSuccess() && big.wrId() == 1, big.toString());
                assertEquals(0, p.a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR),
                        "no ACK timeout (took " + ms + " ms)");
                for (int i = 0; i < OTHERS; i++) {
                    theirs.get(i).postRecv(new RecvWr().wrId(i).sg(new Sge(p.b.addr(BIG + 8L * i), 8, p.b.mr.lkey())));
                }
                for (WorkCompletion wc : p.awaitN(p.a.cq, OTHERS)) {
                    assertTrue(wc.isSuccess(), wc.toString());
                }
                assertEquals(OTHERS, p.awaitN(p.b.cq, OTHERS).size());
                for (int i = 0; i < BIG; i++) {
                    if (p.b.buf.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * 7 + 3)) {
                        fail("byte " + i + " of the big WRITE");
                    }
                }
            } finally {
                for (int i = mine.size() - 1; i >= 0; i--) {
                    mine.get(i).close();
                }
                for (int i = theirs.size() - 1; i >= 0; i--) {
                    theirs.get(i).close();
                }
            }
        }
    }

    /** Runs {@code posts} on this thread while another holds the device lock, so no doorbell runs a pass. */
    private static void postHeld(SoftContext ctx, Runnable posts) {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            ctx.lock.lock();
            try {
                held.countDown();
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                ctx.lock.unlock();
            }
        });
        try {
            assertTrue(held.await(10, TimeUnit.SECONDS), "the holder took the engine");
            posts.run();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            release.countDown();
            try {
                holder.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
