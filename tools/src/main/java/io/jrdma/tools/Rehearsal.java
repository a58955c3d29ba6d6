package io.jrdma.tools;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

/**
 * The JIT warm-up of a perftest or pingpong tool: the tool itself, run in this process against itself before it
 * meets its peer. A server thread and the calling thread run the same test with the user's options (verb,
 * connection type, size, depths, events), the client on the tool's own device and the server on a twin of it at
 * another loopback address ({@link RehearsalTwin}; on the tool's device too where there is none), exchanging over
 * loopback TCP, so the code the measured run will execute (the tool's loops, the device's data path, and the waits
 * between them) is compiled, with the branch profile of the real run, before the measurement starts. Each round
 * has a new twin, at another address: the measured run's peer is one the device has never met, and with one twin
 * for every round the steps of meeting a new peer (its ring file, its doorbell) ran only in the first round, before
 * anything was compiled; the compiled link code then left them out, and the real peer's first packet threw that code
 * away (an uncommon trap in {@code ShmLink.peer} at the measured run's start, in the server each time, 3 runs). A
 * generic warm-up loop compiles the device's code with another profile: on the first real packets the compiled code
 * hit branches it had never seen, was thrown away and compiled again, and the compiler threads took the measured
 * threads' cores meanwhile (default {@code ib_send_lat}, 1,000 iterations: t_typical 35 - 55 µs where a warm run
 * takes 5).
 *
 * <p>Then it waits, asleep, until the compiler has nothing left to do (its total compilation time stops growing), at
 * most {@link #QUIET_MS}: compilations still queued would run beside the measured threads. And it rehearses again,
 * up to {@link #EXTRA_ROUNDS} more rounds (for {@link #EXTRA_NS}), until a round compiled nothing. The hot methods of
 * the data path were often still in their profiling tier when the three rounds ended (recompiled after a
 * deoptimisation in the last round, and the compiler raises its thresholds while its queue is long) and reached the
 * last tier inside the measured run, the compiler threads taking a core from one of the two spinning processes for
 * milliseconds: a default {@code ib_send_lat}'s p99 within 3x its t_typical in 1 of 8 runs, 8 of 8 with these
 * rounds (docs/benchmarks/shm.md). They cost the tool 1 - 4 s more at its start. Where those rounds ran fewer than
 * {@link #LAST_TIER_ITERS} iterations because a native device is slow (kernel rxe in an emulated guest, about a
 * millisecond an iteration), not because of the setting or the message size, long rounds first make up the
 * difference, within {@link #LONG_ROUND_NS}, each sized by the pace of the round before (a short round's pace is
 * mostly its setup: sized by it, a single long round had run 1,047 iterations where 20,000 were due). Not on a soft
 * device: there a slow round means cores shared with other work (or the invoker mode on a loaded machine), where a
 * long round would only hold the tool back. On a machine with one CPU the two sides yield it to each other
 * ({@link PollPark}).
 *
 * <p>Each side runs {@link #ROUNDS} rounds of at most {@link WarmUp#iterations()} iterations ({@code jrdma.warmup},
 * 0 turns it off) and {@link #BYTES} of messages, the later ones sized to take about {@link #ROUND_NS}. A native
 * device (the ibverbs provider) rehearses too, both sides on its one context (its QPs reach each other through the
 * NIC's loopback): its data path is the NIC's and the kernel's, but the tool's loops and the provider's calls are
 * Java, and after {@link WarmUp}'s loop they were still compiled inside the measured run (a quarter of a jrdma
 * client's CPU samples in an rxe-lab guest were the compiler's). With the rehearsal, in one lab boot, alternating with
 * C: {@code rc_pingpong} 1.19 - 1.65x C's time per iteration against 1.52 - 1.72x, {@code ib_send_lat}'s p99 1.30 -
 * 1.72x C's against 1.77 - 2.23x (t_typical unchanged). The device's counters see the rehearsal's packets, as they
 * see {@link WarmUp}'s.
 */
public final class Rehearsal {

    /** Makes one side of a rehearsal: a run of the tool with the user's options but these. */
    @FunctionalInterface
    public interface Sides {
        /**
         * The tool's run on {@code ctx} (left open) as the client of {@code server} (null: as the server) on exchange
         * port {@code port}, for {@code iters} iterations of one size, with every wait bounded by {@link #BOUND_MS},
         * printing to {@code quiet} (nowhere).
         */
        ToolSession side(Context ctx, String server, int port, long iters, PrintStream quiet);
    }

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    /** Every wait of a rehearsal side (the exchange, a poll without progress) gives up after this long. */
    public static final long BOUND_MS = 10_000;
    /** The rehearsal's messages, at most, in bytes. */
    static final long BYTES = 256L << 20;
    /** The iterations of the first round: a cold run's cost, from which the next rounds are sized. */
    static final long FIRST_ROUND = 1_000;
    /** How long each later round may take, going by the last round's cost per iteration. */
    static final long ROUND_NS = TimeUnit.SECONDS.toNanos(1);
    /** The longest wait for the compiler to go quiet after the rehearsal. */
    static final long QUIET_MS = 1_000;
    private static final long QUIET_STEP_MS = 20;
    /**
     * Three rounds: a short one to measure the cost of an iteration, one that compiles the run's loops, and one in
     * which the steps a run takes only once (connecting a QP, its first packets) meet compiled code that has not seen
     * them yet and send it back to be compiled with them, before the measured run rather than inside it.
     */
    private static final int ROUNDS = 3;
    /** Rounds after those, at most, until one in which nothing was compiled; none begins after {@link #EXTRA_NS}. */
    public static final int EXTRA_ROUNDS = 5;
    static final long EXTRA_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long MIN_ITERS = 100;
    /**
     * The iterations a rehearsal runs in all, at least (within {@link #LONG_ROUND_NS}): a method reaches the JIT's
     * last tier after about 5,000 calls in its profiling tier (the HotSpot default), which it reaches after 200, or
     * later by the limited profiling tier a busy compiler takes first. Rounds sized by time ran a few thousand
     * iterations on the emulated guests of the native provider's overhead runs (a millisecond an iteration), and the
     * loop's iteration reached the last tier 40 s after it was first compiled, inside the measured run (issue 20).
     * A fast device runs more than this in the first two rounds.
     */
    public static final long LAST_TIER_ITERS = 20_000;
    /** How long the rounds that make up {@link #LAST_TIER_ITERS} may take, going by each round's pace. */
    static final long LONG_ROUND_NS = TimeUnit.SECONDS.toNanos(20);

    private Rehearsal() {
    }

    /**
     * Rehearses a run of {@code size}-byte messages on {@code ctx} with the sides {@code sides} makes, when
     * {@code rehearsable} (a reliable connection the tool makes itself: over UC and UD a rehearsal's receiver could
     * miss a message and wait for it, and the connection manager's listeners are the device's); otherwise
     * {@link WarmUp}'s loop (port {@code port}, {@code gidIndex}: the run's GID index or -1, failures
     * said on {@code err}). A rehearsal that fails is dropped without a word: the run then reports what is wrong.
     *
     * @return the iterations each side ran
     */
    public static long run(Context ctx, int port, int gidIndex, long size, boolean rehearsable, PrintStream err,
            Sides sides) {
        int budget = WarmUp.iterations();
        if (budget == 0) {
            return 0;
        }
        if (!rehearsable) {
            return WarmUp.run(ctx, port, gidIndex, size, err);
        }
        long cap = Math.clamp(BYTES / Math.max(1, size), MIN_ITERS, Math.max(MIN_ITERS, budget));
        long iters = Math.min(FIRST_ROUND, cap);
        long total = 0;
        long perIteration = 1;
        for (int round = 0; round < ROUNDS; round++) {
            long start = System.nanoTime();
            if (!rehearse(sides, ctx, iters)) {
                return total;
            }
            total += iters;
            perIteration = Math.max(1, (System.nanoTime() - start) / iters);
            iters = Math.clamp(ROUND_NS / perIteration, MIN_ITERS, cap);
        }
        untilCompilerQuiet();
        if (total < LAST_TIER_ITERS && iters < cap && !(ctx.device() instanceof SoftDevice)) { // a slow device
            // in rounds, each sized by the pace of the one before: a short round's pace is mostly its setup (the
            // QPs, the exchange), and one round sized by it ran 1,047 iterations in 16 s on a guest
            long end = System.nanoTime() + LONG_ROUND_NS;
            for (long left = LONG_ROUND_NS; total < LAST_TIER_ITERS && left > 0; left = end - System.nanoTime()) {
                long rest = Math.clamp(Math.min(LAST_TIER_ITERS - total, left / perIteration), MIN_ITERS, cap);
                long start = System.nanoTime();
                if (!rehearse(sides, ctx, rest)) {
                    return total;
                }
                total += rest;
                perIteration = Math.max(1, (System.nanoTime() - start) / rest);
            }
            untilCompilerQuiet();
        }
        long extraEnd = System.nanoTime() + EXTRA_NS;
        for (int extra = 0; extra < EXTRA_ROUNDS && System.nanoTime() - extraEnd < 0; extra++) {
            long compiled = CompilerWork.compilationMs();
            if (!rehearse(sides, ctx, iters)) {
                return total;
            }
            total += iters;
            untilCompilerQuiet();
            if (CompilerWork.compilationMs() == compiled) {
                break; // nothing left to compile: the code the run takes is in its last tier
            }
        }
        return total;
    }

    /**
     * One round: both sides of the run, the client's on {@code clientCtx} and the server's on a new twin of it
     * (on {@code clientCtx} itself where there is none), closed after; false when it failed.
     */
    private static boolean rehearse(Sides sides, Context clientCtx, long iters) {
        try (RehearsalTwin twin = RehearsalTwin.of(clientCtx)) {
            return rehearse(sides, twin != null ? twin.context() : clientCtx, clientCtx, iters);
        }
    }

    /** One rehearsal: both sides of the run, the server's on {@code serverCtx}; false when it failed. */
    private static boolean rehearse(Sides sides, Context serverCtx, Context clientCtx, long iters) {
        try {
            int port = freePort();
            Side server = new Side(sides.side(serverCtx, null, port, iters, QUIET));
            Thread t = Thread.ofPlatform().name("jrdma-rehearsal").daemon().start(server);
            Side client = new Side(sides.side(clientCtx, InetAddress.getLoopbackAddress().getHostAddress(), port,
                    iters, QUIET));
            client.run();
            t.join(BOUND_MS + 2_000);
            return client.ok && server.ok && !t.isAlive();
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** One side of the rehearsal: the tool's run, and whether it succeeded (why not is the real run's to say). */
    private static final class Side implements Runnable {
        private final ToolSession session;
        private volatile boolean ok;

        Side(ToolSession session) {
            this.session = session;
        }

        @Override
        public void run() {
            boolean ran = false;
            try {
                ran = session.run() == 0;
            } catch (Exception | AssertionError e) {
                ran = false;
            } finally {
                try {
                    session.close();
                } catch (RuntimeException e) {
                    ran = false;
                }
            }
            ok = ran;
        }
    }

    /** A TCP port nothing listens on now, for the rehearsal's exchange. */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Sleeps while the JIT compiler works, at most {@link #QUIET_MS}: while its threads use CPU (Linux: their
     * schedstat), else while its total compilation time grows (which grows only when a compilation ends: one longer
     * than a step looked quiet).
     */
    private static void untilCompilerQuiet() {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(QUIET_MS);
        long before = CompilerWork.sofar();
        if (before < 0) {
            return;
        }
        try {
            while (System.nanoTime() - end < 0) {
                Thread.sleep(QUIET_STEP_MS);
                long now = CompilerWork.sofar();
                if (now == before) {
                    return;
                }
                before = now;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
