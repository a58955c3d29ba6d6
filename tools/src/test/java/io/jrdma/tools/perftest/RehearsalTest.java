package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Counter;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.tools.FakeNic;
import io.jrdma.tools.Rehearsal;
import io.jrdma.tools.ToolSession;
import io.jrdma.verbs.Context;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
    void runsTheToolAgainstItselfOnItsOwnDeviceAndATwin() {
        System.setProperty("jrdma.warmup", "1500");
        try (Context ctx = SoftDevice.builder().name("rehearse").address("127.0.223.1").build().open()) {
            Options o = Options.parse(Tool.IB_SEND_LAT, new String[] {"-d", "rehearse", "-s", "2", "-n", "50"});
            List<Context> servers = new ArrayList<>();
            List<Context> clients = new ArrayList<>();
            long sendsBefore = counter(ctx, Counter.RDMA_SENDS);
            long recvsBefore = counter(ctx, Counter.RDMA_RECVS);
            long iters = Rehearsal.run(ctx, 1, -1, 2, true, err, (c, server, port, n, out) -> {
                (server == null ? servers : clients).add(c);
                return new Perftest(o.rehearsal(server, port, n, 2, c), out, out, c);
            });
            String said = errBytes.toString(StandardCharsets.UTF_8);
            // a first round of 1,000, then two sized by the cost of an iteration, each at most the setting, then
            // one more at least, and more while the last one still compiled something
            int rounds = servers.size();
            assertTrue(rounds >= 4 && rounds <= 3 + Rehearsal.EXTRA_ROUNDS, rounds + " rounds");
            assertTrue(iters >= 1000 + (rounds - 1) * 100L && iters <= rounds * 1500L, iters + " iterations; " + said);
            assertEquals(Collections.nCopies(rounds, ctx), clients, "a server and a client each round, the client on"
                    + " the tool's device");
            // the server on a twin: another device, of the same kind, on another loopback address, closed after; a
            // new one each round, so that every round meets a peer the tool's device has not met before
            Set<InetAddress> addresses = new HashSet<>();
            addresses.add(((SoftDevice) ctx.device()).address());
            for (Context twin : servers) {
                assertNotSame(ctx, twin);
                SoftDevice twinDevice = (SoftDevice) twin.device();
                assertTrue(twinDevice.address().isLoopbackAddress(), twinDevice.address().toString());
                assertTrue(addresses.add(twinDevice.address()), "a new address each round: " + addresses + " and "
                        + twinDevice.address());
                assertEquals(((SoftDevice) ctx.device()).threading(), twinDevice.threading());
                assertNull(twinDevice.openedContext(), "each twin is closed after its round");
            }
            // every iteration is a SEND each way between the two devices, plus the syncs over the exchange
            assertTrue(counter(ctx, Counter.RDMA_SENDS) - sendsBefore >= iters, "SENDs for " + iters);
            assertTrue(counter(ctx, Counter.RDMA_RECVS) - recvsBefore >= iters, "receives for " + iters);
            assertEquals("", said);
            // the context stays open and usable for the tool's own run
            assertTrue(Rehearsal.run(ctx, 1, -1, 2, true, err,
                    (c, server, port, n, out) -> new Perftest(o.rehearsal(server, port, n, 2, c), out, out, c)) > 0,
                    "a second rehearsal on the same context; " + errBytes.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aRehearsalsOptionsSayTheyAreARehearsals() {
        // a rehearsal's poll loop yields the CPU on a one-CPU machine (PollPark), the user's run never does; on a
        // native device its bandwidth client holds its posts after each completion, on a soft device it does not
        Options o = Options.parse(Tool.IB_SEND_LAT, new String[] {"-s", "2", "-n", "50"});
        Context nic = FakeNic.context("rxe0");
        assertTrue(o.rehearsal("127.0.0.1", 1, 5, 2, nic).rehearsing);
        assertTrue(o.rehearsal(null, 1, 5, 2, nic).rehearsing);
        assertEquals(Bandwidth.REHEARSAL_HOLD_POLLS, o.rehearsal("127.0.0.1", 1, 5, 2, nic).holdPolls);
        try (Context soft = SoftDevice.builder().name("opts").address("127.0.223.6").build().open()) {
            assertEquals(0, o.rehearsal("127.0.0.1", 1, 5, 2, soft).holdPolls);
        }
        assertFalse(o.rehearsing);
        assertEquals(0, o.holdPolls);
        // a bandwidth rehearsal times its messages for the peak where the run will, and only there
        Options many = Options.parse(Tool.IB_WRITE_BW, new String[] {"-n", "100000"});
        assertTrue(many.rehearsal(null, 1, 500, 2, nic).noPeak);
        Options few = Options.parse(Tool.IB_WRITE_BW, new String[] {"-n", "2000"});
        assertFalse(few.rehearsal(null, 1, 500, 2, nic).noPeak);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"ib_write_bw, ''", "ib_send_bw, -e", "ib_read_bw, -e"})
    void aBandwidthRehearsalThatHoldsItsPostsCompletes(String tool, String events) {
        // the hold of a native device's rehearsal, here on a soft one: after each completion the client polls
        // without posting for a while, and with -e it must not sleep on the channel then, since the next signaled
        // request is not posted yet (it slept until the exchange's bound ended the round)
        System.setProperty("jrdma.warmup", "300");
        try (Context ctx = SoftDevice.builder().name("hold").address("127.0.223.7").build().open()) {
            List<String> args = new ArrayList<>(List.of("-d", "hold", "-s", "4096", "-n", "300"));
            if (!events.isEmpty()) {
                args.add(events);
            }
            Options o = Options.parse(Tool.valueOf(tool.toUpperCase(Locale.ROOT)), args.toArray(String[]::new));
            long start = System.nanoTime();
            long iters = Rehearsal.run(ctx, 1, -1, 4096, true, err, (c, server, port, n, out) -> {
                Options r = o.rehearsal(server, port, n, 4096, c);
                r.holdPolls = Bandwidth.REHEARSAL_HOLD_POLLS;
                return new Perftest(r, out, out, c);
            });
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(iters >= 3 * 300, "the three rounds of 300 ran: " + iters + " iterations in " + ms + " ms");
            assertTrue(ms < Rehearsal.BOUND_MS, "no round waited out its bound: " + ms + " ms");
        }
    }

    @Test
    void aSlowNativeDeviceGetsALongRoundForTheLastTier() {
        // a tool whose iteration takes 300 µs on a device that is not a soft one (kernel rxe in an emulated guest):
        // the rounds sized by time run about 7,700 iterations, then one long round makes up the difference to the
        // iterations a method needs for the JIT's last tier
        Context nic = FakeNic.context("rxe0");
        List<Long> rounds = slowRehearsal(nic);
        long iters = rounds.stream().mapToLong(Long::longValue).sum();
        assertTrue(iters >= Rehearsal.LAST_TIER_ITERS, iters + " iterations in rounds " + rounds);
        long timeSized = rounds.get(0) + rounds.get(1) + rounds.get(2);
        assertTrue(timeSized < Rehearsal.LAST_TIER_ITERS / 2, "rounds " + rounds);
        assertEquals(Rehearsal.LAST_TIER_ITERS - timeSized, rounds.get(3), "the long round, of rounds " + rounds);
    }

    @Test
    void theLongRoundsAreEachSizedByThePaceOfTheOneBefore() {
        // each round costs 1.2 s of setup (on the guests: the QPs, the exchange) and 5 µs an iteration: the short
        // rounds' pace is mostly setup, and one long round sized by it (20 s at about 1.8 ms) ran about 11,000
        // iterations, under 15,000 in all (rounds [1000, 827, 681, 11234, 561, 561]); the next long round, sized by
        // the first's pace, makes up the rest
        Context nic = FakeNic.context("rxe0");
        List<Long> rounds = rehearsal(nic, 1_200, 5);
        long iters = rounds.stream().mapToLong(Long::longValue).sum();
        assertTrue(iters >= Rehearsal.LAST_TIER_ITERS, iters + " iterations in rounds " + rounds);
        long timeSized = rounds.get(0) + rounds.get(1) + rounds.get(2);
        assertTrue(rounds.get(3) < Rehearsal.LAST_TIER_ITERS - timeSized, "rounds " + rounds);
        assertTrue(rounds.get(3) + rounds.get(4) >= Rehearsal.LAST_TIER_ITERS - timeSized, "rounds " + rounds);
    }

    @Test
    void aSlowSoftDeviceGetsNoLongRound() {
        // on a soft device a slow round means shared cores: no long round there
        try (Context ctx = SoftDevice.builder().name("slow").address("127.0.223.5").build().open()) {
            List<Long> rounds = slowRehearsal(ctx);
            long timeSized = rounds.get(0) + rounds.get(1) + rounds.get(2);
            assertTrue(rounds.stream().skip(3).allMatch(n -> n < Rehearsal.LAST_TIER_ITERS - timeSized),
                    "rounds " + rounds);
        }
    }

    /** A rehearsal on {@code ctx} of a tool whose iteration takes 300 µs; the iterations of each round. */
    private List<Long> slowRehearsal(Context ctx) {
        return rehearsal(ctx, 0, 300);
    }

    /**
     * A rehearsal on {@code ctx} of a tool whose round takes {@code setupMs} and then {@code iterationUs} an
     * iteration; the iterations of each round.
     */
    private List<Long> rehearsal(Context ctx, long setupMs, long iterationUs) {
        System.setProperty("jrdma.warmup", "100000");
        List<Long> rounds = new ArrayList<>();
        Rehearsal.run(ctx, 1, -1, 2, true, err, (c, server, port, n, out) -> new ToolSession() {
            @Override
            public int run() throws InterruptedException {
                if (server != null) { // the client's side takes the time of the round
                    rounds.add(n);
                    Thread.sleep(setupMs + n * iterationUs / 1000);
                }
                return 0;
            }

            @Override
            public void close() {
            }
        });
        return rounds;
    }

    @Test
    void usesTheGenericLoopWhereARehearsalCannotRun() {
        System.setProperty("jrdma.warmup", "120");
        try (Context ctx = SoftDevice.builder().name("loop").address("127.0.223.2").build().open()) {
            long iters = Rehearsal.run(ctx, 1, -1, 64, false, err, (c, server, port, n, out) -> {
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
            long iters = Rehearsal.run(ctx, 1, -1, 2, true, err, (c, server, port, n, out) -> new ToolSession() {
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
            assertEquals(0, Rehearsal.run(ctx, 1, -1, 2, true, err, (c, server, port, n, out) -> {
                throw new AssertionError("no rehearsal when turned off");
            }));
        }
    }

    private static long counter(Context ctx, Counter c) {
        return ((SoftContext) ctx).counters().get(c);
    }
}
