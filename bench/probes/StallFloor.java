import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The machine's own latency floor, without jrdma (run by bench/probes/stall-floor.sh; a single-file program).
 *
 * <pre>
 *   java StallFloor.java gaps SECONDS
 *       one thread per CPU reads the clock in a loop; prints how often per second a read came more than 2, 10 and
 *       100 us after the one before: the times the thread lost its CPU (an interrupt, the hypervisor, another thread)
 *   java StallFloor.java server|client FILE WORK_NS ITERATIONS RUNS [steps|deadline]
 *       two processes ping-pong a counter through a shared file (FILE, in /dev/shm); each side works about WORK_NS
 *       before it answers, so a round trip costs about what a jrdma 2-byte SEND round trip costs. The client prints,
 *       per run of ITERATIONS, perftest's latency figures (half round trips, the 2 slowest dropped): t_typical, p99
 *       and p99.9, then in how many runs the p99 was within 3x the t_typical.
 * </pre>
 *
 * <p>The work: {@code steps} (the default) is a fixed number of arithmetic steps, measured once to take WORK_NS,
 * as an engine's pass is a fixed amount of instructions: a stall inside it delays the answer by the whole stall.
 * {@code deadline} spins until WORK_NS after it began, so a stall inside it is partly absorbed (the work "went on"
 * while the thread was away) and the tail comes out shorter than any real pass would see: the floor the probe's
 * first version printed was measured so.
 */
public final class StallFloor {

    private static final long US = 1_000L;
    private static final int WARM_ROUND_TRIPS = 200_000;
    private static final long PING = 0;
    private static final long PONG = 128;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** The steps of one answer's work (0: spin to a deadline instead). */
    private static long stepsPerWork;
    /** Where the steps leave their result, so that the compiler keeps them. */
    private static long sink;

    private StallFloor() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("gaps")) {
            gaps(Long.parseLong(args[1]));
        } else if ((args.length == 5 || args.length == 6 && (args[5].equals("steps") || args[5].equals("deadline")))
                && (args[0].equals("server") || args[0].equals("client"))) {
            long workNs = Long.parseLong(args[2]);
            stepsPerWork = args.length == 6 && args[5].equals("deadline") ? 0 : calibrate(workNs);
            pingPong(args[0].equals("client"), Path.of(args[1]), workNs, Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]));
        } else {
            System.err.println("usage: StallFloor gaps SECONDS"
                    + " | StallFloor server|client FILE WORK_NS ITERATIONS RUNS [steps|deadline]");
            System.exit(2);
        }
    }

    private static void gaps(long seconds) throws InterruptedException {
        int cpus = Runtime.getRuntime().availableProcessors();
        long[][] counts = new long[cpus][3];
        Thread[] threads = new Thread[cpus];
        long durationNs = seconds * 1_000_000_000L;
        for (int c = 0; c < cpus; c++) {
            long[] mine = counts[c];
            threads[c] = Thread.ofPlatform().start(() -> {
                long start = System.nanoTime();
                long prev = start;
                while (prev - start < durationNs) {
                    long now = System.nanoTime();
                    long gap = now - prev;
                    prev = now;
                    if (gap > 2 * US) {
                        mine[0]++;
                        if (gap > 10 * US) {
                            mine[1]++;
                            if (gap > 100 * US) {
                                mine[2]++;
                            }
                        }
                    }
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        for (int c = 0; c < cpus; c++) {
            System.out.printf("spinning thread %d: gaps over 2 us %d/s, over 10 us %d/s, over 100 us %d/s%n", c,
                    counts[c][0] / seconds, counts[c][1] / seconds, counts[c][2] / seconds);
        }
    }

    private static void pingPong(boolean client, Path file, long workNs, int iterations, int runs) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE); Arena arena = Arena.ofShared()) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            long[] posted = new long[iterations];
            long[] delta = new long[iterations - 1];
            long seq = 0;
            int within = 0;
            for (int run = -1; run < runs; run++) {
                int n = run < 0 ? WARM_ROUND_TRIPS : iterations;
                for (int i = 0; i < n; i++) {
                    seq++;
                    if (client) {
                        if (run >= 0) {
                            posted[i] = System.nanoTime();
                        }
                        work(workNs);
                        LONG.setRelease(m, PING, seq);
                        while ((long) LONG.getAcquire(m, PONG) != seq) {
                            Thread.onSpinWait();
                        }
                    } else {
                        while ((long) LONG.getAcquire(m, PING) != seq) {
                            Thread.onSpinWait();
                        }
                        work(workNs);
                        LONG.setRelease(m, PONG, seq);
                    }
                }
                if (client && run >= 0) {
                    for (int i = 0; i + 1 < iterations; i++) {
                        delta[i] = posted[i + 1] - posted[i];
                    }
                    Arrays.sort(delta);
                    int measured = delta.length - 2;
                    double typical = delta[measured / 2] / 2000.0;
                    double p99 = delta[(int) Math.ceil(measured * 0.99)] / 2000.0;
                    double p999 = delta[(int) Math.ceil(measured * 0.999)] / 2000.0;
                    within += p99 <= 3 * typical ? 1 : 0;
                    System.out.printf("run %d: t_typical %.2f us, p99 %.2f, p99.9 %.2f%n", run + 1, typical, p99, p999);
                }
            }
            if (client) {
                System.out.printf("p99 within 3x t_typical: %d of %d runs%n", within, runs);
            }
        }
    }

    /** One answer's work: {@link #stepsPerWork} steps, or a spin until {@code ns} after it began. */
    private static void work(long ns) {
        if (stepsPerWork > 0) {
            steps(stepsPerWork);
            return;
        }
        long end = System.nanoTime() + ns;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /** A dependent chain of {@code k} xorshift steps: a fixed amount of work that no compiler folds away. */
    private static void steps(long k) {
        long x = sink | 1;
        for (long i = 0; i < k; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            x += i;
        }
        sink = x;
    }

    /** The number of steps whose median time is {@code ns}, measured once the compiler has compiled them. */
    private static long calibrate(long ns) {
        long k = 1_000;
        for (int i = 0; i < 20_000; i++) {
            steps(k);
        }
        long[] times = new long[1_001];
        for (int round = 0; round < 6; round++) {
            for (int i = 0; i < times.length; i++) {
                long start = System.nanoTime();
                steps(k);
                times[i] = System.nanoTime() - start;
            }
            Arrays.sort(times);
            k = Math.max(1, k * ns / Math.max(1, times[times.length / 2]));
        }
        return k;
    }
}
