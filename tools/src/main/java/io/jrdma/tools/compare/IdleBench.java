package io.jrdma.tools.compare;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The idle scenario: what a connected device costs while nothing happens, and how fast it answers the first message
 * after a quiet spell. Its jrdma side is {@link JrdmaIdle}; the baseline here is NIO UDP, a connected
 * {@link DatagramChannel} per process whose application thread is blocked in {@link DatagramChannel#receive}. Every
 * case runs as two processes on loopback, in four phases:
 *
 * <ol>
 *   <li><b>Warm-up</b> ({@code warmup_ms}): back-to-back 2-byte round trips, as in the wake phase but without gaps,
 *       so that both sides' paths are compiled; a client that will idle on a completion channel waits for its
 *       answers there in the first half (its idle wait's code is then as warm as the server's), and the second
 *       half's round trips are reported for reference ({@code busy_*}, the progress line's "RTT busy"). Then as long
 *       again, round trips each after a gap of 200 to 1,500 us, so that the path the wake phase takes (both sides
 *       asleep between messages: the engine thread's sleep and wake-up, the doorbell) is compiled too; after the
 *       back-to-back part alone it ran interpreted for much of the wake phase. Between the two parts, the client
 *       idles for {@link #REHEARSAL_MS} as it will in the idle interval, and the server's channel waits end every
 *       half of that: the interval's long waits end by their timeout, which the warm-up's never did, and at its start
 *       the JIT threw away the engine's compiled wait and receive code (an uncommon trap) and recompiled it during
 *       the wake phase, which ran that code interpreted or in the compiler's profiling tier meanwhile (2026-11-29:
 *       the channel case's p99 beside a busy process went from 0.7 - 0.8 ms to 0.07 - 0.2 ms). The client ends the
 *       warm-up with the message {@link #PHASE}.</li>
 *   <li><b>Idle</b>: both sides idle as the case says (below) for {@code settle_ms}, then for the measured interval
 *       ({@code idle_ms}, {@code --duration}, default 10 s). Each process samples its own CPU time at the interval's
 *       edges, inside the process: {@link Cpu#preciseProcessNs} (every thread of the JVM, the engine's, the
 *       JVM's own and the benchmark's control thread, blocked in a read, included). Setup, warm-up and the settle
 *       time are outside it. The table shows the busier process's CPU time as a percentage of one core; the goal
 *       is below {@value #IDLE_LIMIT_PERCENT} %, whatever the baseline's (an idle JVM's background threads).</li>
 *   <li><b>Wake</b>: once the server says it is {@code awake}, the client sends {@code wakes} 2-byte messages
 *       (200, {@code --quick} 20), each after a gap of 2 to 5 ms (uniform; the same seeded sequence for every case),
 *       long enough for the server to be asleep again, and times each from just before its send to the answer.
 *       The client sleeps through each gap and then spins for the answer (jrdma: polls the CQ, the library's busy
 *       poll, which after 100 us of empty passes waits on the socket in 50 us slices; NIO: a non-blocking read), so
 *       that the server's wake-up is what the figure adds to a busy round trip. The table shows the median and
 *       the 99th percentile of these full round trips (not halves: the wake-up happens once per round trip); the
 *       goal is a p99 at most {@value #WAKE_MARGIN_US} us above the baseline's.</li>
 *   <li><b>Stop</b>: the message {@link #STOP}, the control {@code stop}, the server's {@code fin}.</li>
 * </ol>
 *
 * <p>The cases: NIO UDP, the server's application thread blocked in {@code receive} throughout (it echoes at once;
 * its main thread sleeps through the idle interval), the client's sleeping. jrdma with the library's default
 * threading ({@code ADAPTIVE}), in two variants, both sides alike:
 *
 * <ul>
 *   <li><b>app on a completion channel</b>: the application thread waits in
 *       {@code CompletionChannel.awaitEvent} (receive CQ armed; a long timeout: the interval's end, 1 s slices in the
 *       other phases), as a blocking verbs program does; the server echoes each message from its RECV completion, so
 *       the round trip includes the server application's wake-up: the kernel's receive it sleeps in, the engine
 *       pass, the event, the poll and the echo's post.</li>
 *   <li><b>app sleeping</b>: during the idle interval the application does not touch the device at all (it sleeps),
 *       so the engine's own thread alone keeps the device; in the other phases the server application polls the
 *       receive CQ every millisecond, sleeping between polls, and does not answer. The round trip the client times
 *       is its signalled SEND's completion, which the server <i>device's</i> ACK brings: the engine thread woken
 *       from its sleep on the socket takes the SEND in and acknowledges it. That is the engine-side wake-up, and
 *       the one honest figure here: the time until the RECV completion is in the server's CQ cannot be observed
 *       from the server application without a poll loop that keeps the engine awake (its polls drive the engine),
 *       nor from the client without synchronised clocks, and the time until the sleeping application sees it is
 *       its polling period (0 to 1 ms), not a property of the device. An application that must answer sooner
 *       waits on a completion channel: the other variant.</li>
 * </ul>
 *
 * <p>Values: 0 to 0x7FFF are messages (their number), checked on every echo; {@link #PHASE} and {@link #STOP} end
 * the warm-up and the run.
 */
final class IdleBench {

    /** Ends the warm-up: the server idles once it has it (and echoes it, where it echoes). */
    static final short PHASE = (short) 0xFFFE;
    /** Ends the run. */
    static final short STOP = (short) 0xFFFF;
    /** The goal: an idle process uses less than this percentage of one core. */
    static final double IDLE_LIMIT_PERCENT = 1.0;
    /** The goal: the p99 round trip after an idle gap is at most this much above the baseline's (us). */
    static final double WAKE_MARGIN_US = 50.0;
    static final int WAKES = 200;
    static final int QUICK_WAKES = 20;
    static final long GAP_MIN_US = 2_000;
    static final long GAP_MAX_US = 5_000;
    static final long SETTLE_MS = 200;
    static final long QUICK_SETTLE_MS = 50;
    /** Warm-up round trips at least, however short {@code warmup_ms}. */
    static final int MIN_WARM = 100;
    /** Round trips after short gaps at least, however short {@code warmup_ms}, with {@code --quick}. */
    static final int MIN_WARM_WAKES = 100;
    /**
     * Outside {@code --quick}, at least this many: the wake phase's own path is compiled by the JIT's thresholds
     * (counts of calls, thousands), and the default 1 s of gaps gave about a thousand; the p99 after idle gaps then
     * measured the compiler (0.45 ms on a channel, where 4 s of gaps gave 0.1 ms).
     */
    static final int FULL_WARM_WAKES = 5_000;
    /**
     * The warm-up's short gaps: long enough for both sides to fall asleep (the engine's callers stop after 50 us), and
     * some long enough for a caller to count as away (1 ms: its first spin after them yields).
     */
    static final long WARM_GAP_MIN_US = 200;
    static final long WARM_GAP_MAX_US = 1_500;
    /**
     * The warm-up's idle spell between its two parts: longer than the engine's longest sleep (100 ms), so that waits
     * that end by their timeout run before the idle interval (see the class comment).
     */
    static final long REHEARSAL_MS = 300;
    /** Most warm-up round trips kept for the busy reference figures. */
    private static final int BUSY_SAMPLES = 1 << 18;
    private static final long SEED = 0x1d1e;

    /** One timed exchange: sends {@code v}, waits for the answer, returns {@link System#nanoTime} when it came. */
    interface RoundTrip {
        long run(short v) throws Exception;

        /** The warm-up is half over: from now on the exchange waits as it will in the wake phase. */
        default void halfWarm() {
        }
    }

    /** A way to idle until {@link System#nanoTime} reaches {@code endNs}. */
    interface Idler {
        void idleUntil(long endNs) throws Exception;
    }

    /** The CPU time one process used over the measured idle interval, and the interval's length. */
    record Interval(long cpuNs, long wallNs) {
        String fields() {
            return "idle_cpu_ns=" + cpuNs + " idle_wall_ns=" + wallNs;
        }
    }

    private IdleBench() {
    }

    /** Wake messages of a run: {@value #WAKES}, {@value #QUICK_WAKES} for {@code --quick}. */
    static int wakes(boolean quick) {
        return quick ? QUICK_WAKES : WAKES;
    }

    /** The warm-up's round trips after short gaps at least: {@value #FULL_WARM_WAKES}, {@code --quick} fewer. */
    static int leastWarmWakes(boolean quick) {
        return quick ? MIN_WARM_WAKES : FULL_WARM_WAKES;
    }

    static long settleMs(boolean quick) {
        return quick ? QUICK_SETTLE_MS : SETTLE_MS;
    }

    /**
     * What a run takes besides warm-up, the idle interval and setup: the settle time, the warm-up's idle spell and the
     * wake phase's gaps.
     */
    static long extraMs(boolean quick) {
        return settleMs(quick) + REHEARSAL_MS + leastWarmWakes(quick) * WARM_GAP_MAX_US / 1000
                + wakes(quick) * GAP_MAX_US / 1000;
    }

    /** Sleeps (parks) until {@code endNs}, however often the park returns early. */
    static void sleepUntil(long endNs) {
        for (long left; (left = endNs - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    /** Idles by {@code idler} for {@code settle_ms}, then measures {@code idle_ms} of idling. */
    static Interval idle(Params p, Idler idler) throws Exception {
        idler.idleUntil(System.nanoTime() + p.lng("settle_ms") * 1_000_000L);
        long cpu0 = Cpu.preciseProcessNs();
        long t0 = System.nanoTime();
        idler.idleUntil(t0 + p.lng("idle_ms") * 1_000_000L);
        long cpu1 = Cpu.preciseProcessNs();
        long t1 = System.nanoTime();
        if (cpu0 < 0 || cpu1 < 0) {
            throw new IllegalStateException("this platform does not report the process CPU time");
        }
        return new Interval(cpu1 - cpu0, t1 - t0);
    }

    /**
     * The warm-up: back-to-back round trips for {@code warmup_ms}, at least {@value #MIN_WARM}, then as long again
     * (at least {@code warm_wakes}, {@link #leastWarmWakes}) round trips each after a short gap
     * ({@link #WARM_GAP_MIN_US} to {@link #WARM_GAP_MAX_US} us), so that the wake phase's own path (both sides
     * asleep between messages) is as compiled as the busy one; then PHASE. Returns the fields of the back-to-back
     * round trips of its second half, for reference: the same exchange without idle gaps.
     */
    static String warmUp(Params p, RoundTrip rt, Idler idler, Deadline deadline) throws Exception {
        long start = System.nanoTime();
        long warmNs = p.lng("warmup_ms") * 1_000_000L;
        long half = start + warmNs / 2;
        long end = start + warmNs;
        long[] busy = new long[BUSY_SAMPLES];
        int n = 0;
        boolean second = false;
        for (int i = 0; i < MIN_WARM || System.nanoTime() - end < 0; i++) {
            long t0 = System.nanoTime();
            if (!second && (t0 - half >= 0 || i == MIN_WARM / 2)) {
                second = true;
                rt.halfWarm();
            }
            long t1 = rt.run(value(i));
            if (second && n < busy.length) {
                busy[n++] = t1 - t0;
            }
            deadline.check("warming up");
        }
        idler.idleUntil(System.nanoTime() + REHEARSAL_MS * 1_000_000L); // the idle interval's code, rehearsed
        int wakes = warmWakes(rt, p.integer("warm_wakes"), System.nanoTime() + warmNs, deadline);
        rt.run(PHASE);
        long[] s = Arrays.copyOf(busy, Math.max(1, n));
        Arrays.sort(s);
        return "busy_samples=" + n + " busy_p50_ns=" + Latencies.percentile(s, 50) + " busy_p99_ns="
                + Latencies.percentile(s, 99) + " warm_wakes=" + wakes;
    }

    /** The warm-up's second part: round trips after short gaps until {@code endNs}, at least {@code least}. */
    private static int warmWakes(RoundTrip rt, int least, long endNs, Deadline deadline) throws Exception {
        SplittableRandom random = new SplittableRandom(SEED);
        int i = 0;
        for (; i < least || System.nanoTime() - endNs < 0; i++) {
            sleepUntil(System.nanoTime() + gapNs(random, WARM_GAP_MIN_US, WARM_GAP_MAX_US));
            rt.run(value(i));
            deadline.check("warming up the wake-up path");
        }
        return i;
    }

    /** The wake phase: {@code wakes} round trips, each after its gap; returns their round-trip times (ns). */
    static long[] wakeSeries(Params p, RoundTrip rt, Deadline deadline) throws Exception {
        long[] gaps = gapsNs(p.integer("wakes"));
        long[] rtt = new long[gaps.length];
        for (int i = 0; i < gaps.length; i++) {
            sleepUntil(System.nanoTime() + gaps[i]);
            long t0 = System.nanoTime();
            rtt[i] = rt.run(value(i)) - t0;
            deadline.check("sending the wake-up messages");
        }
        return rtt;
    }

    /** Message {@code i}'s value: never {@link #PHASE} or {@link #STOP}. */
    static short value(long i) {
        return (short) (i & 0x7FFF);
    }

    /** A gap drawn uniformly from {@code minUs} to {@code maxUs}, in ns. */
    private static long gapNs(SplittableRandom random, long minUs, long maxUs) {
        return (minUs + random.nextLong(maxUs - minUs + 1)) * 1_000L;
    }

    /** {@code n} gaps between 2 and 5 ms, the same for every case and run. */
    static long[] gapsNs(int n) {
        SplittableRandom random = new SplittableRandom(SEED);
        long[] g = new long[Math.max(1, n)];
        for (int i = 0; i < g.length; i++) {
            g[i] = gapNs(random, GAP_MIN_US, GAP_MAX_US);
        }
        return g;
    }

    /** The result fields of the wake phase: samples, then the median, p90, p99 and maximum round trip in ns. */
    static String wakeFields(long[] rtt) {
        long[] s = rtt.clone();
        Arrays.sort(s);
        return "wake_samples=" + s.length + " wake_p50_ns=" + Latencies.percentile(s, 50) + " wake_p90_ns="
                + Latencies.percentile(s, 90) + " wake_p99_ns=" + Latencies.percentile(s, 99) + " wake_max_ns="
                + s[s.length - 1];
    }

    // ------------------------------------------------------------------------------------------------- NIO UDP

    private static DatagramChannel udp(Params p, boolean blocking) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            try {
                ch.bind(new InetSocketAddress(p.str("self"), p.integer("dataport")));
            } catch (java.net.BindException e) {
                throw new java.net.BindException("cannot bind UDP " + p.str("self") + ":" + p.integer("dataport")
                        + " (" + e.getMessage() + "; choose another --port)");
            }
            ch.connect(new InetSocketAddress(p.str("peer"), p.integer("dataport")));
            ch.configureBlocking(blocking);
            return ch;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * The UDP server: an application thread blocked in {@code receive} echoes every message until STOP; the main
     * thread measures the idle interval once the warm-up is over.
     */
    static String udpServe(Params p, Control control, Deadline deadline) throws Exception {
        long corrupt = p.lng("corrupt", -1);
        try (DatagramChannel ch = udp(p, true)) {
            control.onStop(() -> closeQuietly(ch)); // unblocks the receive if the stop datagram was lost
            CountDownLatch warm = new CountDownLatch(1);
            AtomicReference<Exception> failure = new AtomicReference<>();
            Thread app = Thread.ofPlatform().name("bench-udp-receive").start(() -> {
                try {
                    echo(ch, warm, corrupt);
                } catch (Exception e) {
                    failure.set(e);
                } finally {
                    warm.countDown();
                }
            });
            control.send("ready");
            if (!warm.await(Math.max(1, deadline.nanos() - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw deadline.timeout("waiting for the end of the warm-up");
            }
            rethrow(failure);
            Interval idle = idle(p, IdleBench::sleepUntil);
            control.send("awake");
            app.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline.nanos() - System.nanoTime())));
            if (app.isAlive()) {
                throw deadline.timeout("echoing the wake-up messages");
            }
            rethrow(failure);
            control.send("fin");
            return idle.fields();
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static void rethrow(AtomicReference<Exception> failure) throws Exception {
        Exception e = failure.get();
        if (e != null) {
            throw e;
        }
    }

    /** Echoes every datagram (PHASE too, which also opens {@code warm}) until STOP or the channel's close. */
    private static void echo(DatagramChannel ch, CountDownLatch warm, long corrupt) throws IOException {
        ByteBuffer buf = ByteBuffer.allocateDirect(2).order(ByteOrder.LITTLE_ENDIAN);
        try {
            for (long i = 0; ; i++) {
                buf.clear();
                ch.receive(buf);
                if (buf.position() != 2) {
                    throw new BenchFailure("a datagram of " + buf.position() + " bytes, not 2");
                }
                short v = buf.getShort(0);
                if (v == STOP) {
                    return;
                }
                if (i == corrupt) {
                    buf.putShort(0, (short) (v + 1));
                }
                buf.flip();
                ch.write(buf);
                if (v == PHASE) {
                    warm.countDown();
                }
            }
        } catch (ClosedChannelException e) {
            // the client's stop closed it
        }
    }

    /** The UDP client: warm-up, its own idle interval (asleep), the wake phase. */
    static String udpClient(Params p, Control control, Deadline deadline) throws Exception {
        control.await("ready", deadline.nanos());
        try (DatagramChannel ch = udp(p, false)) {
            ByteBuffer out = ByteBuffer.allocateDirect(2).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer in = ByteBuffer.allocateDirect(2).order(ByteOrder.LITTLE_ENDIAN);
            RoundTrip rt = v -> {
                out.clear();
                out.putShort(0, v);
                ch.write(out);
                in.clear();
                while (ch.read(in) == 0) {
                    Thread.onSpinWait();
                    deadline.check("waiting for a UDP echo");
                }
                long t1 = System.nanoTime();
                if (in.position() != 2 || in.getShort(0) != v) {
                    throw new BenchFailure("echo of " + in.position() + " bytes, " + in.getShort(0) + ", sent " + v);
                }
                return t1;
            };
            String busy = warmUp(p, rt, IdleBench::sleepUntil, deadline);
            Interval idle = idle(p, IdleBench::sleepUntil);
            control.await("awake", deadline.nanos());
            long[] rtt = wakeSeries(p, rt, deadline);
            out.clear();
            out.putShort(0, STOP);
            ch.write(out);
            control.send(Control.STOP);
            control.await("fin", deadline.nanos());
            return idle.fields() + " " + busy + " " + wakeFields(rtt);
        }
    }
}
