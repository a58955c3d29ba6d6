package io.jrdma.examples;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * A first throughput measurement: RDMA WRITE and READ of large messages between two soft devices in one process
 * (by default on 127.0.0.1 and 127.0.0.2), against a baseline measured in the same run — copying the same bytes with
 * {@link MemorySegment#copy} — so the figure is a ratio that survives a noisy machine. Each figure is the best
 * of {@code rounds} rounds.
 */
public final class Throughput {

    private Throughput() {
    }

    /** The first device's address. */
    public static final String ADDRESS_A = "127.0.0.1";
    /** The second device's address. */
    public static final String ADDRESS_B = "127.0.0.2";

    /** Runs the measurement between devices on 127.0.0.1 and 127.0.0.2 and prints one table; returns 0, or 1. */
    public static int run(PrintStream out, long bytes, Mtu mtu, Threading threading, int rounds) {
        return run(out, bytes, mtu, threading, rounds, ADDRESS_A, ADDRESS_B);
    }

    /**
     * Runs the measurement between devices on {@code addressA} and {@code addressB} and prints one table; returns 0,
     * or 1 when a transfer fails.
     */
    public static int run(PrintStream out, long bytes, Mtu mtu, Threading threading, int rounds, String addressA,
            String addressB) {
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
        SoftDevice da = SoftDevice.builder().name("bench-a").address(addressA).threading(threading).build();
        SoftDevice db = SoftDevice.builder().name("bench-b").address(addressB).threading(threading).build();
        try (RcPeer a = RcPeer.open(da, bytes, access, access); RcPeer b = RcPeer.open(db, bytes, access, access)) {
            a.connect(a.endpoint(0), b.endpoint(0), mtu);
            b.connect(b.endpoint(0), a.endpoint(0), mtu);
            a.buffer().fill((byte) 0x5A);
            WorkCompletion[] wc = {new WorkCompletion()};
            double copy;
            double write;
            double read;
            try (Progress progress = Progress.start("throughput rounds", 3L * (rounds + 1))) {
                copy = best(rounds, progress, () -> MemorySegment.copy(a.buffer(), 0, b.buffer(), 0, bytes));
                write = best(rounds, progress, () -> transfer(a, b, WrOpcode.RDMA_WRITE, bytes, wc));
                read = best(rounds, progress, () -> transfer(a, b, WrOpcode.RDMA_READ, bytes, wc));
            }
            out.printf("jrdma throughput: %d MiB messages, path MTU %d, %s engine, best of %d rounds%n",
                    bytes >> 20, mtu.bytes(), threading.name().toLowerCase(java.util.Locale.ROOT), rounds);
            out.printf("%-22s %10s %8s%n", "operation", "MB/s", "vs copy");
            out.printf("%-22s %10.0f %8s%n", "memory copy (baseline)", mb(bytes, copy), "1.000");
            out.printf("%-22s %10.0f %8.3f%n", "RDMA WRITE", mb(bytes, write), copy / write);
            out.printf("%-22s %10.0f %8.3f%n", "RDMA READ", mb(bytes, read), copy / read);
            return 0;
        } catch (RuntimeException e) {
            out.println("throughput: failed: " + e.getMessage());
            return 1;
        }
    }

    private static double mb(long bytes, double seconds) {
        return bytes / seconds / 1e6;
    }

    private static double best(int rounds, Progress progress, Runnable r) {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < rounds + 1; i++) { // round 0 warms up
            long t = System.nanoTime();
            r.run();
            double s = (System.nanoTime() - t) / 1e9;
            progress.add(1);
            if (i > 0) {
                best = Math.min(best, s);
            }
        }
        return best;
    }

    private static void transfer(RcPeer a, RcPeer b, WrOpcode op, long bytes, WorkCompletion[] wc) {
        a.qp().postSend(new SendWr().wrId(1).opcode(op).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.mr().address(), (int) bytes, a.mr().lkey())).remote(b.mr().address(), b.mr().rkey()));
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            b.context().progress(); // a no-op with a dedicated engine; drives the peer in invoker mode
            if (a.cq().poll(wc) == 1) {
                if (!wc[0].isSuccess()) {
                    throw new IllegalStateException(op + " failed: " + wc[0]);
                }
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(op + " did not complete within 120 s");
            }
        }
    }
}
