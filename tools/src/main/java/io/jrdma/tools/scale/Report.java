package io.jrdma.tools.scale;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What one idle connected QP costs, from two {@link Memory} snapshots taken before the N QPs were created and
 * after they moved their data: every figure is the difference divided by N. Native memory is NMT's "Other" category
 * when the JVM tracks native memory; otherwise direct buffers plus the inline area the formula computes (arena
 * segments are in no buffer pool). "Beyond queues" is heap + native less {@link QueueBytes}.
 *
 * @param qps           N
 * @param heap          heap bytes per QP: live objects in the class histogram (exact), or, on a JVM without one,
 *                      the used heap after settled collections
 * @param heapUsed      used heap after settled collections per QP (MemoryMXBean), a cross-check of {@code heap}
 *                      that also counts the collector's unfilled space
 * @param nativeBytes   native bytes per QP
 * @param nmt           whether {@code nativeBytes} comes from native memory tracking
 * @param fds           file descriptors per QP
 * @param fdDelta       file descriptors the N QPs added
 * @param sourcePorts   distinct UDP source ports among the QPs that had no socket before (one socket each)
 * @param queues        the queue bytes of one QP
 * @param gcs           collections it took the heap to settle (after)
 * @param classes       the classes whose live bytes grew by at least 4 B per QP, largest first
 */
record Report(int qps, double heap, double heapUsed, double nativeBytes, boolean nmt, double fds, long fdDelta,
        int sourcePorts, QueueBytes queues, int gcs, List<ClassGrowth> classes) {

    private static final int TOP_CLASSES = 24;
    private static final int MIN_BYTES_PER_QP = 4;
    private static final int SMALL_RUN = 100;

    /** The growth of one class per QP. */
    record ClassGrowth(String name, double instances, double bytes) {
    }

    static Report of(Config cfg, Memory.Snapshot before, Memory.Snapshot after,
            Set<Integer> ports) {
        int n = cfg.qps();
        QueueBytes q = QueueBytes.of(cfg.sendWr(), cfg.recvWr(), 1, 1, cfg.inline(),
                after.instanceSize("io.jrdma.soft.SendWqe"), after.instanceSize("io.jrdma.soft.RecvWqe"),
                after.instanceSize("io.jrdma.soft.SgeList"),
                after.instanceSize("jdk.internal.foreign.NativeMemorySegmentImpl"));
        double nativeBytes = after.nmt() && before.nmt() ? (after.nmtOther() - before.nmtOther()) / (double) n
                : (after.direct() - before.direct()) / (double) n + q.nativePart();
        double used = (after.heap() - before.heap()) / (double) n;
        double live = after.liveBytes() >= 0 && before.liveBytes() >= 0
                ? (after.liveBytes() - before.liveBytes()) / (double) n : used;
        return new Report(n, live, used, nativeBytes, after.nmt() && before.nmt(),
                (after.fds() - before.fds()) / (double) n, after.fds() - before.fds(), ports.size(), q, after.gcs(),
                growth(before, after, n));
    }

    private static List<ClassGrowth> growth(Memory.Snapshot before, Memory.Snapshot after, int n) {
        List<ClassGrowth> out = new ArrayList<>();
        for (String name : after.classes().names()) {
            Memory.ClassUse a = after.classes().get(name);
            Memory.ClassUse b = before.classes().get(name);
            double bytes = (a.bytes() - b.bytes()) / (double) n;
            if (bytes >= MIN_BYTES_PER_QP) {
                out.add(new ClassGrowth(name, (a.instances() - b.instances()) / (double) n, bytes));
            }
        }
        out.sort((x, y) -> Double.compare(y.bytes(), x.bytes()));
        return out.size() > TOP_CLASSES ? List.copyOf(out.subList(0, TOP_CLASSES)) : List.copyOf(out);
    }

    double total() {
        return heap + nativeBytes;
    }

    double beyondQueues() {
        return total() - queues.total();
    }

    boolean goalMet() {
        return beyondQueues() <= Config.GOAL_BYTES;
    }

    void print(PrintWriter out, String who) {
        String p = who + ":   ";
        out.println(String.format(Locale.ROOT, "%s: memory of one idle connected QP (difference over %d QPs, heap "
                + "settled after %d collections, native memory tracking %s):", who, qps, gcs, nmt ? "on" : "off"));
        out.println(String.format(Locale.ROOT, "%sheap           %,9.0f B  (live objects, class histogram; used heap "
                + "after GC: %,.0f B)", p, heap, heapUsed));
        out.println(String.format(Locale.ROOT, "%snative         %,9.0f B  (%s)", p, nativeBytes, nmt
                ? "NMT \"Other\": Unsafe memory behind direct buffers, arena segments, socket addresses"
                : "NMT off: direct buffers + the inline area as computed; run the JVM with "
                        + "-XX:NativeMemoryTracking=summary to measure"));
        out.println(String.format(Locale.ROOT, "%stotal          %,9.0f B", p, total()));
        out.println(String.format(Locale.ROOT, "%squeue buffers  %,9d B  (%s)", p, queues.total(),
                queues.describe()));
        out.println(String.format(Locale.ROOT, "%sbeyond queues  %,9.0f B  (goal <= %,d B: %s)", p, beyondQueues(),
                Config.GOAL_BYTES, goalMet() ? "met" : "NOT met"));
        out.println(String.format(Locale.ROOT, "%sdescriptors    %9.3f per QP  (%d more for %d QPs; %d new distinct "
                + "UDP source ports, one socket each)", p, fds, fdDelta, qps, sourcePorts));
        if (fdDelta < sourcePorts) {
            out.println(who + ": warning: only " + fdDelta + " sockets were opened for " + sourcePorts + " source ports: "
                    + "the other QPs send from port 4791 (is the descriptor limit too low?)");
        }
        if (qps < SMALL_RUN) {
            out.println(who + ": note: with fewer than " + SMALL_RUN + " QPs, one-time costs of the run (class loading, "
                    + "method handles, about 40 KB) weigh on these per-QP figures");
        }
        out.println(who + ": heap growth per QP by class (>= " + MIN_BYTES_PER_QP + " B per QP):");
        for (ClassGrowth c : classes) {
            out.println(String.format(Locale.ROOT, "%s%-58s %7.2f objects %,8.0f B", p, c.name(), c.instances(),
                    c.bytes()));
        }
        out.flush();
    }

    /** One line of key=value pairs for scripts and tests. */
    String resultLine(String who, int verifiedQps, boolean ok) {
        return String.format(Locale.ROOT, "scale-result side=%s qps=%d verified=%d ok=%b heap=%.0f native=%.0f "
                + "total=%.0f queues=%d beyond=%.0f fds=%.3f nmt=%b goal=%s", who, qps, verifiedQps, ok, heap,
                nativeBytes, total(), queues.total(), beyondQueues(), fds, nmt, goalMet() ? "met" : "not-met");
    }
}
