package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Dedicated threading on contended cores: an application that spins on its CQ while the engine threads do the work
 * must not keep the cores from them. Twice as many busy threads as the host has cores run beside a ping-pong of two
 * dedicated devices whose pollers spin on their CQs; the pollers must then have slept in their polls (the
 * {@code caller_moderated_waits} counter, which only those sleeps move in dedicated mode), and every message must
 * arrive once, intact, with no retransmission. Before the fix a dedicated poll never slept: the counter stayed 0 (and
 * beside one busy process a 64 KiB WRITE stream fell to a tenth of its speed, the engine threads starved). Bounded:
 * the busy threads stop after {@link #HOG_NS} whatever happens, the exchange after {@link #BOUND_NS}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DedicatedPollerTest {

    private static final int MESSAGES = 300;
    private static final int SIZE = 64;
    private static final long HOG_NS = TimeUnit.SECONDS.toNanos(20);
    private static final long BOUND_NS = TimeUnit.SECONDS.toNanos(15);

    private volatile boolean stop;

    @Test
    void aDedicatedPollerOnContendedCoresSleepsUntilTheEngineWorksAndLosesNothing() {
        List<Thread> hogs = new ArrayList<>();
        try (Peer a = new Peer("127.0.153.1", Threading.DEDICATED, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS,
                Peer.defaultCap());
                Peer b = new Peer("127.0.153.2", Threading.DEDICATED, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS,
                        Peer.defaultCap())) {
            a.connect(b, Peer.Link.tolerant());
            b.connect(a, Peer.Link.tolerant());
            long hogEnd = System.nanoTime() + HOG_NS;
            for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
                hogs.add(Thread.ofPlatform().daemon().name("hog-" + i).start(() -> {
                    while (!stop && System.nanoTime() - hogEnd < 0) {
                        Thread.onSpinWait();
                    }
                }));
            }
            // the echo's first receive is posted before the first message can arrive (an RNR NAK would be a
            // retransmission that has nothing to do with the cores)
            b.qp.postRecv(new RecvWr().wrId(0).sg(new Sge(b.addr(0), SIZE, b.mr.lkey())));
            Thread echo = Thread.ofPlatform().daemon().name("echo").start(() -> echo(b));
            long deadline = System.nanoTime() + BOUND_NS;
            WorkCompletion wc = new WorkCompletion();
            for (int i = 0; i < MESSAGES; i++) {
                a.qp.postRecv(new RecvWr().wrId(i).sg(new Sge(a.addr(SIZE), SIZE, a.mr.lkey())));
                a.buf.set(ValueLayout.JAVA_INT, 0, i);
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(a.addr(0), SIZE, a.mr.lkey())));
                boolean sent = false;
                boolean answered = false;
                while (!sent || !answered) {
                    await(a, wc, deadline, "message " + i);
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
                    sent |= wc.opcode() == WcOpcode.SEND;
                    answered |= wc.opcode() == WcOpcode.RECV;
                }
                assertEquals(i + 1, a.buf.get(ValueLayout.JAVA_INT, SIZE), "the echo of message " + i);
            }
            stop = true;
            join(echo);
            long slept = a.ctx.counters().get(Counter.CALLER_MODERATED_WAITS)
                    + b.ctx.counters().get(Counter.CALLER_MODERATED_WAITS);
            String counters = "client " + a.ctx.counters() + " / server " + b.ctx.counters();
            assertTrue(slept > 0, "the spinning pollers never slept on contended cores: " + counters);
            for (Peer p : new Peer[] {a, b}) {
                assertEquals(0, p.ctx.counters().get(Counter.RETRANSMITTED_PKTS), counters);
                assertEquals(0, p.ctx.counters().get(Counter.RCVD_DROPPED), counters);
            }
        } finally {
            stop = true;
            hogs.forEach(DedicatedPollerTest::join);
        }
    }

    /** The other side: answers each message with its number plus one, {@value #MESSAGES} times. */
    private void echo(Peer b) {
        long deadline = System.nanoTime() + BOUND_NS;
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < MESSAGES; i++) {
            do {
                await(b, wc, deadline, "the echo of " + i);
            } while (wc.opcode() != WcOpcode.RECV);
            int n = b.buf.get(ValueLayout.JAVA_INT, 0);
            if (n != i) {
                throw new AssertionError("message " + i + " carried " + n);
            }
            b.qp.postRecv(new RecvWr().wrId(i + 1).sg(new Sge(b.addr(0), SIZE, b.mr.lkey())));
            b.buf.set(ValueLayout.JAVA_INT, SIZE, n + 1);
            b.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND)
                    .sg(new Sge(b.addr(SIZE), SIZE, b.mr.lkey())));
        }
    }

    /** Spins on the peer's CQ for one completion, as a dedicated-mode application does. */
    private static void await(Peer p, WorkCompletion wc, long deadline, String what) {
        WorkCompletion[] one = {wc};
        while (p.cq.poll(one) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion for " + what + " within the bound: " + p.ctx.counters());
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
