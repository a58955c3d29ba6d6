package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Counter;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.tools.Rehearsal;
import io.jrdma.tools.ToolSession;
import io.jrdma.verbs.Context;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The perftest tools' warm-up: the tool run against itself (a server thread and the caller) on its own soft device,
 * with real packets, in rounds; the generic loop where a rehearsal cannot run; a failed rehearsal dropped without a
 * word (127.0.223.x).
 */
class RehearsalTest {

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.warmup");
    }

    @Test
    void runsTheToolAgainstItselfOnItsOwnDevice() {
        System.setProperty("jrdma.warmup", "1500");
        try (Context ctx = SoftDevice.builder().name("rehearse").address("127.0.223.1").build().open()) {
            Options o = Options.parse(Tool.IB_SEND_LAT, new String[] {"-d", "rehearse", "-s", "2", "-n", "50"});
            AtomicInteger sides = new AtomicInteger();
            long sendsBefore = counter(ctx, Counter.RDMA_SENDS);
            long iters = Rehearsal.run(ctx, 1, -1, 2, true, err, (server, port, n, out) -> {
                sides.incrementAndGet();
                return new Perftest(o.rehearsal(server, port, n, 2), out, out, ctx);
            });
            String said = errBytes.toString(StandardCharsets.UTF_8);
            // a first round of 1,000, then two sized by the cost of an iteration, each at most the setting
            assertTrue(iters >= 1000 + 2 * 100 && iters <= 3 * 1500, iters + " iterations; " + said);
            assertEquals(6, sides.get(), "three rounds of a server and a client");
            // every iteration is a SEND each way, plus the syncs over the exchange
            long sends = counter(ctx, Counter.RDMA_SENDS) - sendsBefore;
            assertTrue(sends >= 2 * iters, sends + " SENDs for " + iters + " iterations");
            assertEquals("", said);
            // the context stays open and usable for the tool's own run
            assertTrue(Rehearsal.run(ctx, 1, -1, 2, true, err,
                    (server, port, n, out) -> new Perftest(o.rehearsal(server, port, n, 2), out, out, ctx)) > 0,
                    "a second rehearsal on the same context; " + errBytes.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void usesTheGenericLoopWhereARehearsalCannotRun() {
        System.setProperty("jrdma.warmup", "120");
        try (Context ctx = SoftDevice.builder().name("loop").address("127.0.223.2").build().open()) {
            long iters = Rehearsal.run(ctx, 1, -1, 64, false, err, (server, port, n, out) -> {
                throw new AssertionError("no rehearsal over UC, UD or the connection manager");
            });
            assertEquals(120, iters, errBytes.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aFailedRehearsalIsDroppedWithoutAWord() {
        System.setProperty("jrdma.warmup", "1000");
        try (Context ctx = SoftDevice.builder().name("fails").address("127.0.223.3").build().open()) {
            long start = System.nanoTime();
            long iters = Rehearsal.run(ctx, 1, -1, 2, true, err, (server, port, n, out) -> new ToolSession() {
                @Override
                public int run() {
                    throw new IllegalArgumentException("bad options");
                }

                @Override
                public void close() {
                }
            });
            assertEquals(0, iters);
            assertEquals("", errBytes.toString(StandardCharsets.UTF_8), "the run itself reports what is wrong");
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "given up at once");
        }
    }

    @Test
    void offWhenSetToZero() {
        System.setProperty("jrdma.warmup", "0");
        try (Context ctx = SoftDevice.builder().name("off").address("127.0.223.4").build().open()) {
            assertEquals(0, Rehearsal.run(ctx, 1, -1, 2, true, err, (server, port, n, out) -> {
                throw new AssertionError("no rehearsal when turned off");
            }));
        }
    }

    private static long counter(Context ctx, Counter c) {
        return ((SoftContext) ctx).counters().get(c);
    }
}
