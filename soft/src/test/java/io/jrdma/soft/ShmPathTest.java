package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.soft.link.ShmLink;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shared-memory path between two devices of this process (as between two processes of a host): the packets go
 * through the receivers' rings, every byte arrives, a receiver asleep on its socket is rung awake, and a device
 * that comes back at an address is found again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmPathTest {

    private static final int CHUNK = 64 << 10;
    private static final int CHUNKS = 32;

    @Test
    void devicesOfOneHostMoveEveryByteThroughTheirRingsAndNotOverUdp() {
        moveAndCheck(LinkKind.SHM.assume(), "127.0.21.1", "127.0.21.2");
    }

    @Test
    void withoutTheSharedMemoryPathTheRingsStayUnused() {
        moveAndCheck(LinkKind.NATIVE.assume(), "127.0.21.3", "127.0.21.4");
    }

    private static void moveAndCheck(LinkKind kind, String ipA, String ipB) {
        try (Pair pair = new Pair(ipA, ipB, Threading.INVOKER, kind, CHUNK * CHUNKS)) {
            assertEquals(kind.linkClass(), pair.a.ctx.link.getClass());
            fill(pair.a.buf, 3);
            for (int i = 0; i < CHUNKS; i++) {
                pair.a.qp.postSend(write(pair.a, pair.b, i, (long) i * CHUNK));
                assertEquals(WcStatus.SUCCESS, pair.await(pair.a.cq).status());
            }
            assertEquals(-1, pair.a.buf.mismatch(pair.b.buf), "every byte written arrived");
            Counters a = pair.a.ctx.counters();
            Counters b = pair.b.ctx.counters();
            if (kind == LinkKind.SHM) {
                // every packet a sent went through b's ring, in records of one packet or a run of them
                assertTrue(a.get(Counter.SHM_SENT) >= CHUNKS * 2L, a.toString());
                assertEquals(a.get(Counter.SHM_SENT), b.get(Counter.SHM_RCVD), "records out = records in");
                assertEquals(b.get(Counter.SHM_SENT), a.get(Counter.SHM_RCVD), "the ACKs came back the same way");
                assertTrue(b.get(Counter.SHM_SENT) > 0, b.toString());
            } else {
                assertEquals(0, a.get(Counter.SHM_SENT) + a.get(Counter.SHM_RCVD) + b.get(Counter.SHM_SENT)
                        + b.get(Counter.SHM_RCVD));
            }
            assertEquals(a.get(Counter.SENT_PKTS), b.get(Counter.RCVD_PKTS), "no packet lost or doubled");
            assertEquals(0, a.get(Counter.RETRANSMITTED_PKTS) + a.get(Counter.SEND_ERR) + b.get(Counter.RCVD_DROPPED)
                    + a.get(Counter.SHM_RING_FULL));
        }
    }

    @Test
    void aPeerAsleepOnItsSocketIsRungAwakeByASender() throws InterruptedException {
        LinkKind.SHM.assume();
        try (Pair pair = new Pair("127.0.21.5", "127.0.21.6", Threading.ADAPTIVE, NanoClock.SYSTEM, CHUNK,
                Peer.ALL_ACCESS, Peer.defaultCap(), new Peer.Link())) {
            WorkCompletion[] wcs = {new WorkCompletion()};
            for (int i = 0; i < 5; i++) {
                Thread.sleep(50); // long enough for b's engine thread to go to sleep on its socket
                pair.a.qp.postSend(write(pair.a, pair.b, i, 0));
                // only a's application polls: b's engine thread must wake to take the WRITE in and ACK it
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (pair.a.cq.poll(wcs) == 0) {
                    if (System.nanoTime() > deadline) {
                        fail("no completion for write " + i + "\n a: " + pair.a.ctx.counters() + "\n b: "
                                + pair.b.ctx.counters());
                    }
                }
                assertEquals(WcStatus.SUCCESS, wcs[0].status());
            }
            Counters a = pair.a.ctx.counters();
            assertTrue(a.get(Counter.SHM_DOORBELLS) >= 1, "a rang b awake: " + a);
            assertTrue(a.get(Counter.SHM_DOORBELLS) <= a.get(Counter.SHM_SENT), a.toString());
            assertEquals(0, a.get(Counter.RETRANSMITTED_PKTS), "woken at once, not by a retry: " + a);
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkKind.class, names = {"SHM", "NATIVE"})
    void aStreamReachesAPeerWhoseApplicationOnlyDrivesItNowAndThen(LinkKind kind) throws InterruptedException {
        kind.assume();
        try (Pair pair = new Pair("127.0.21.9", "127.0.21.10", Threading.ADAPTIVE, kind, CHUNK * 8)) {
            Thread side = Thread.ofPlatform().daemon().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    // b's application waits on something else and drives its device now and then
                    pair.b.ctx.progress();
                    LockSupport.parkNanos(1_000_000);
                }
            });
            fill(pair.a.buf, 5);
            WorkCompletion[] wcs = new WorkCompletion[16];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new WorkCompletion();
            }
            int total = 5000;
            int posted = 0;
            int done = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while (done < total && System.nanoTime() < deadline) {
                while (posted < total && posted - done < 32) {
                    pair.a.qp.postSend(write(pair.a, pair.b, posted, (posted % 8) * (long) CHUNK));
                    posted++;
                }
                int n = pair.a.cq.poll(wcs);
                for (int i = 0; i < n; i++) {
                    assertEquals(WcStatus.SUCCESS, wcs[i].status(), wcs[i].toString());
                }
                done += n;
            }
            side.interrupt();
            side.join(TimeUnit.SECONDS.toMillis(10));
            Counters a = pair.a.ctx.counters();
            assertEquals(total, done, "a: " + a + "\nb: " + pair.b.ctx.counters());
            assertEquals(-1, pair.a.buf.mismatch(pair.b.buf), "every byte arrived");
            assertEquals(0, a.get(Counter.SEND_ERR) + pair.b.ctx.counters().get(Counter.RCVD_DROPPED));
        }
    }

    @Test
    void aSenderFindsTheRingOfADeviceThatCameBackAtAnAddress() {
        LinkKind.SHM.assume();
        String ipB = "127.0.21.8";
        try (Peer a = new Peer("127.0.21.7", Threading.INVOKER, NanoClock.SYSTEM, CHUNK, Peer.ALL_ACCESS,
                Peer.defaultCap())) {
            for (int round = 0; round < 2; round++) {
                try (Peer b = new Peer(ipB, Threading.INVOKER, NanoClock.SYSTEM, CHUNK, Peer.ALL_ACCESS,
                        Peer.defaultCap())) {
                    assertInstanceOf(ShmLink.class, b.ctx.link);
                    a.qp.modify(new QpAttr().qpState(QpState.RESET), EnumSet.of(QpAttrMask.STATE));
                    Peer.Link l = new Peer.Link();
                    a.connect(b, l);
                    b.connect(a, l);
                    fill(a.buf, round);
                    a.qp.postSend(write(a, b, round, 0));
                    WorkCompletion wc = await(a, b, a.cq);
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    assertEquals(-1, a.buf.mismatch(b.buf));
                    assertTrue(b.ctx.counters().get(Counter.SHM_RCVD) > 0, "round " + round + ": through the ring "
                            + "of the device now at " + ipB + ": " + b.ctx.counters());
                }
            }
        }
    }

    private static WorkCompletion await(Peer a, Peer b, CompletionQueue cq) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            a.ctx.progress();
            b.ctx.progress();
            if (cq.poll(wcs) == 1) {
                return wcs[0];
            }
        }
        return fail("no completion\n a: " + a.ctx.counters() + "\n b: " + b.ctx.counters());
    }

    private static SendWr write(Peer from, Peer to, long id, long offset) {
        return new SendWr().wrId(id).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(from.addr(offset), CHUNK, from.mr.lkey())).remoteAddr(to.addr(offset))
                .rkey(to.mr.rkey());
    }

    private static void fill(MemorySegment m, int seed) {
        for (long i = 0; i < m.byteSize(); i += 8) {
            m.set(ValueLayout.JAVA_LONG, i, (i + 1) * 0x9E3779B97F4A7C15L + seed);
        }
    }
}
