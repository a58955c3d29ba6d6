package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An invoker-mode thread that waits for an event sleeps in a receive of the native socket (one system call for the
 * wait and the datagram that ends it). What other threads post meanwhile must not wait for that sleep to time out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InvokerWaitTest {

    @Test
    void shouldSendWhatAnotherThreadPostsWhileTheWaiterSleepsInAReceive() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        try (Pair pair = Pair.invoker("127.0.62.1", "127.0.62.2", 1 << 16)) {
            Peer a = pair.a;
            Peer b = pair.b;
            long tick = a.ctx.link.receiveWaitNs();
            assertTrue(tick > 0 && tick <= TimeUnit.MILLISECONDS.toNanos(100), "a kernel tick: " + tick + " ns");
            CompletionChannel ch = a.ctx.createCompletionChannel();
            CompletionQueue quiet = a.ctx.createCq(4, ch); // nothing completes here: the waiter only sleeps
            quiet.requestNotify(false);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Object> waiterSaw = new AtomicReference<>();
            // a's engine is run by this waiter (it holds it through each sleep), so the posts below cannot run it
            Thread waiter = Thread.ofPlatform().name("waiter").start(() -> {
                while (!stop.get()) {
                    CompletionQueue ev = ch.awaitEvent(Duration.ofMillis(200));
                    if (ev != null) {
                        waiterSaw.set(ev);
                    }
                }
            });
            int n = 100;
            long[] took = new long[n];
            try {
                Thread.sleep(20); // the waiter is asleep in a receive
                WorkCompletion[] wcs = {new WorkCompletion()};
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    b.qp.postRecv(new RecvWr().wrId(i).sg(new Sge(b.addr(0), 64, b.mr.lkey())));
                    a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                            .sg(new Sge(a.addr(0), 8, a.mr.lkey())));
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    WorkCompletion got = next(b, b.cq, wcs, deadline, "SEND " + i + " never arrived", a);
                    took[i] = System.nanoTime() - t0;
                    assertEquals(WcStatus.SUCCESS, got.status());
                    assertEquals(i, got.wrId());
                    // and its ACK is in: nothing is on its way to a when the next SEND is posted, so only a
                    // wake-up can end the waiter's sleep (this thread's polls may run a's engine in between)
                    WorkCompletion sent = next(b, a.cq, wcs, deadline, "SEND " + i + " never completed", a);
                    assertEquals(WcOpcode.SEND, sent.opcode());
                    assertEquals(WcStatus.SUCCESS, sent.status());
                    assertEquals(i, sent.wrId());
                }
            } finally {
                stop.set(true);
                waiter.join(TimeUnit.SECONDS.toMillis(5));
            }
            assertTrue(!waiter.isAlive(), "the waiter returned");
            assertNull(waiterSaw.get(), "no event: nothing completed on the quiet CQ");
            // were each post sent only when the waiter's receive timed out, a SEND would take one to two ticks (4 -
            // 8 ms at 250 Hz); with the wake-up, about 0.2 ms here. The median leaves out the odd compiler or
            // collector pause of a busy two-core machine; the bound is at least 2 ms, so a 1000 Hz kernel's short
            // tick does not make the test flaky (it then tells less)
            Arrays.sort(took);
            long median = took[n / 2];
            long bound = Math.max(tick / 2, TimeUnit.MILLISECONDS.toNanos(2));
            assertTrue(median < bound, "a SEND posted beside a sleeping waiter took " + median
                    + " ns (median; a tick is " + tick + " ns)");
            quiet.close();
            ch.close();
        }
    }

    /**
     * Polls {@code cq} until it gives a completion, driving only {@code driven}'s engine (the waiter runs the
     * other), and fails with {@code a}'s counters after {@code deadline}.
     */
    private static WorkCompletion next(Peer driven, CompletionQueue cq, WorkCompletion[] wcs, long deadline,
                                       String what, Peer a) {
        while (true) {
            driven.ctx.progress();
            if (cq.poll(wcs) == 1) {
                return wcs[0];
            }
            if (System.nanoTime() > deadline) {
                fail(what + "\n" + a.ctx.counters);
            }
        }
    }
}
