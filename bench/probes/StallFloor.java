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
 *   java StallFloor.java server|client FILE WORK_NS ITERATIONS RUNS
 *       two processes ping-pong a counter through a shared file (FILE, in /dev/shm); each side spins WORK_NS before
 *       it answers, so a round trip costs about what a jrdma 2-byte SEND round trip costs. The client prints, per
 *       run of ITERATIONS, perftest's latency figures (half round trips, the 2 slowest dropped): t_typical, p99 and
 *       p99.9, then in how many runs the p99 was within 3x the t_typical.
 * </pre>
 */
public final class StallFloor {

    private static final long US = 1_000L;
    private static final int WARM_ROUND_TRIPS = 200_000;
    private static final long PING = 0;
    private static final long PONG = 128;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private StallFloor() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("gaps")) {
            gaps(Long.parseLong(args[1]));
        } else if (args.length == 5 && (args[0].equals("server") || args[0].equals("client"))) {
            pingPong(args[0].equals("client"), Path.of(args[1]), Long.parseLong(args[2]), Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]));
        } else {
            System.err.println("usage: StallFloor gaps SECONDS"
                    + " | StallFloor server|client FILE WORK_NS ITERATIONS RUNS");
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

    /** Spins {@code ns}: a stall inside it delays the answer as it would delay an engine's pass. */
    private static void work(long ns) {
        long end = System.nanoTime() + ns;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
