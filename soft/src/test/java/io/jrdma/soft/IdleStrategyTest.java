package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The dedicated engine's idle strategy is the device's to choose: each named one (and one of the program's own)
 * drives real traffic between two dedicated-mode devices to completion, and the back-off strategy spins, yields
 * and then sleeps in that order.
 */
class IdleStrategyTest {

    @Test
    void backoffSpinsThenYieldsThenSleeps() {
        IdleStrategy s = IdleStrategy.backoff(3, 2);
        AtomicInteger sleeps = new AtomicInteger();
        IdleStrategy.Sleeper sleeper = sleeps::incrementAndGet;
        for (int i = 0; i < 5; i++) {
            s.idle(0, sleeper);
        }
        assertEquals(0, sleeps.get(), "3 spins and 2 yields come before any sleep");
        s.idle(0, sleeper);
        s.idle(0, sleeper);
        assertEquals(2, sleeps.get(), "once backed off, every idle pass sleeps");
        s.idle(1, sleeper); // work: start over
        for (int i = 0; i < 5; i++) {
            s.idle(0, sleeper);
        }
        assertEquals(2, sleeps.get(), "work resets the back-off");
        IdleStrategy.sleeping().idle(0, sleeper);
        assertEquals(3, sleeps.get(), "the sleeping strategy sleeps at once");
    }

    @Test
    void spinAndYieldNeverSleep() {
        IdleStrategy.Sleeper never = () -> {
            throw new AssertionError("slept");
        };
        for (IdleStrategy s : new IdleStrategy[] {IdleStrategy.busySpin(), IdleStrategy.yielding()}) {
            for (int i = 0; i < 10_000; i++) {
                s.idle(0, never);
            }
        }
    }

    @Test
    void namesAreCheckedAndMapped() {
        assertInstanceOf(BusySpinIdle.class, IdleStrategy.named("spin").get());
        assertInstanceOf(YieldingIdle.class, IdleStrategy.named(" Yield ").get());
        assertInstanceOf(BackoffIdle.class, IdleStrategy.named("backoff").get());
        assertInstanceOf(BackoffIdle.class, IdleStrategy.named("sleep").get());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IdleStrategy.named("nap"));
        assertTrue(e.getMessage().contains("spin, yield, backoff or sleep"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> IdleStrategy.backoff(-1, 0));
    }

    /** Unset, the idle strategy follows the threading: an adaptive engine thread sleeps at once, a dedicated one
     * backs off. */
    @Test
    void theDefaultFollowsTheThreading() {
        assertEquals(null, System.getProperty("jrdma.idle"));
        try (SoftContext adaptive = SoftDevice.builder().address("127.0.93.7").build().open();
             SoftContext dedicated = SoftDevice.builder().address("127.0.93.8")
                     .threading(Threading.DEDICATED).build().open()) {
            assertEquals("backoff(0, 0)", adaptive.idleStrategy().toString());
            assertEquals("backoff(200, 100)", dedicated.idleStrategy().toString());
        }
    }

    /** The {@code jrdma.idle} setting chooses the strategy of every device opened while it is set. */
    @ParameterizedTest
    @ValueSource(strings = {"spin", "yield", "backoff", "sleep"})
    void eachNamedStrategyCarriesTraffic(String name) {
        String before = System.getProperty("jrdma.idle");
        System.setProperty("jrdma.idle", name);
        try (Pair p = new Pair("127.0.93.1", "127.0.93.2", Threading.DEDICATED, NanoClock.SYSTEM, 1 << 20,
                Peer.ALL_ACCESS, Peer.defaultCap(), new Peer.Link())) {
            assertEquals(IdleStrategy.named(name).get().getClass(), p.a.ctx.idleStrategy().getClass());
            exchange(p, 50);
        } finally {
            if (before == null) {
                System.clearProperty("jrdma.idle");
            } else {
                System.setProperty("jrdma.idle", before);
            }
        }
    }

    /** A program's own strategy is used: it is called between passes and its sleeps wake on traffic. */
    @Test
    void aProgramsOwnStrategyIsUsed() {
        AtomicInteger idlePasses = new AtomicInteger();
        IdleStrategy counting = new IdleStrategy() {
            private final IdleStrategy inner = IdleStrategy.sleeping();

            @Override
            public void idle(int workCount, Sleeper sleeper) {
                if (workCount == 0) {
                    idlePasses.incrementAndGet();
                }
                inner.idle(workCount, sleeper);
            }
        };
        SoftDevice a = SoftDevice.builder().name("t-idle-a").address("127.0.93.3").threading(Threading.DEDICATED)
                .idle(() -> counting).build();
        try (SoftContext ctx = a.open()) {
            assertEquals(counting, ctx.idleStrategy());
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (idlePasses.get() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(idlePasses.get() > 0, "the engine thread never asked the program's strategy to idle");
        }
    }

    private static Sge sge(Peer p, long offset, int length) {
        return new Sge(p.addr(offset), length, p.mr.lkey());
    }

    /** {@code n} SEND round trips and an RDMA WRITE, checked byte for byte. */
    private static void exchange(Pair p, int n) {
        for (int i = 0; i < n; i++) {
            p.b.qp.postRecv(new RecvWr().wrId(i).sg(sge(p.b, 0, 64)));
            p.a.buf.set(ValueLayout.JAVA_INT, 4096, i);
            p.a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(sge(p.a, 4096, 4)));
            WorkCompletion sent = p.await(p.a.cq);
            WorkCompletion got = p.await(p.b.cq);
            assertEquals(WcStatus.SUCCESS, sent.status());
            assertEquals(WcStatus.SUCCESS, got.status());
            assertEquals(i, p.b.buf.get(ValueLayout.JAVA_INT, 0), "message " + i);
        }
        for (int i = 0; i < 65536; i += 4) {
            p.a.buf.set(ValueLayout.JAVA_INT, 8192 + i, i * 31 + 7);
        }
        p.a.qp.postSend(new SendWr().wrId(99).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(sge(p.a, 8192, 65536)).remote(p.b.addr(8192), p.b.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, p.await(p.a.cq).status());
        for (int i = 0; i < 65536; i += 4) {
            assertEquals(i * 31 + 7, p.b.buf.get(ValueLayout.JAVA_INT, 8192 + i), "WRITE byte " + i);
        }
    }
}
