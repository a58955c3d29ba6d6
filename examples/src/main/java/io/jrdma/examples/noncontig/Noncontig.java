package io.jrdma.examples.noncontig;

import io.jrdma.examples.Progress;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code jrdma noncontig}: for each layout, and each of the six {@link Method}s, moves messages between two soft
 * devices in one process and reports the median time per message as MB/s: a console table, optionally a CSV file
 * and plots. Every message is verified at its destination; a wrong byte stops the run with exit status 1.
 */
public final class Noncontig {

    /** Exit status: success. */
    public static final int OK = 0;
    /** Exit status: a transfer or a verification failed, or a file could not be written. */
    public static final int FAILED = 1;
    /** Exit status: the configuration does not fit the device. */
    public static final int USAGE = 2;

    private Noncontig() {
    }

    /** Runs the benchmark of {@code cfg}, printing the table on {@code out} and failures on {@code err}. */
    public static int run(PrintWriter out, PrintWriter err, NoncontigConfig cfg) {
        try {
            return runAndReport(out, err, cfg);
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static int runAndReport(PrintWriter out, PrintWriter err, NoncontigConfig cfg) {
        List<Result> results = new ArrayList<>();
        String title;
        try (Arena arena = Arena.ofShared()) {
            Tape tape = new Tape(arena);
            NoncontigBench bench;
            try {
                bench = NoncontigBench.open(cfg, tape, arena);
            } catch (IllegalArgumentException e) {
                err.println("noncontig: " + e.getMessage());
                return USAGE;
            }
            try (bench) {
                title = title(cfg, bench);
                header(out, cfg, bench);
                Method[] methods = Method.values();
                bench.warmUp(cfg.layouts().stream().min(Comparator.comparingLong(Layout::messageBytes))
                        .orElseThrow(), cfg.duration().toNanos());
                try (Progress progress = Progress.start("noncontig points", (long) cfg.layouts().size()
                        * methods.length)) {
                    for (Layout l : cfg.layouts()) {
                        results.addAll(bench.measure(l));
                        progress.add(methods.length);
                    }
                }
            }
        } catch (VerificationFailedException e) {
            err.println("noncontig: VERIFICATION FAILED: " + e.getMessage());
            return FAILED;
        } catch (RuntimeException e) {
            err.println("noncontig: failed: " + e.getMessage());
            return FAILED;
        }
        Report.table(out, cfg.layouts(), results);
        out.printf(Locale.ROOT, "all %d points verified: every message's bytes checked at its destination%n",
                results.size());
        return write(out, err, cfg, title, results);
    }

    private static int write(PrintWriter out, PrintWriter err, NoncontigConfig cfg, String title,
            List<Result> results) {
        try {
            if (cfg.csv() != null) {
                Report.csv(cfg.csv(), results);
                out.println("wrote " + cfg.csv());
            }
            Plot plot = Plot.of(title, results);
            for (Path p : cfg.plots()) {
                plot.write(p);
                out.println("wrote " + p);
            }
            return OK;
        } catch (IOException | RuntimeException e) {
            err.println("noncontig: cannot write the results: " + e.getMessage());
            return FAILED;
        }
    }

    private static void header(PrintWriter out, NoncontigConfig cfg, NoncontigBench bench) {
        out.printf(Locale.ROOT, "jrdma noncontig: A %s -> B %s, path MTU %d, %s engine%n", cfg.addrA(), cfg.addrB(),
                cfg.mtu().bytes(), cfg.threading().name().toLowerCase(Locale.ROOT));
        out.printf(Locale.ROOT, "max_sge %d per SEND/WRITE/RECV and %d per READ (device max_sge %d); "
                + "a layout with more blocks is split into several work requests%n", bench.sendSge(),
                bench.readSge(), bench.deviceMaxSge());
        out.printf(Locale.ROOT, "layouts: %s%n", layouts(cfg.layouts()));
        out.printf(Locale.ROOT, "first every method on the smallest layout for %d ms (JIT warm-up); then per point: "
                + "%d warm-up messages, up to %d messages or %d ms, in %d rounds interleaving the methods;%n"
                + "MB/s = message bytes / median time per message%n", cfg.duration().toMillis(), cfg.warmup(),
                cfg.iterations(), cfg.duration().toMillis(), NoncontigBench.ROUNDS);
        for (Method m : Method.values()) {
            out.printf(Locale.ROOT, "  %-15s %s%n", m.label(), m.description());
        }
    }

    private static String title(NoncontigConfig cfg, NoncontigBench bench) {
        return String.format(Locale.ROOT, "jrdma noncontig: %s, max_sge %d, MTU %d", layouts(cfg.layouts()),
                bench.sendSge(), cfg.mtu().bytes());
    }

    /** The layouts in words: one layout in full, or a sweep's common block_num and stride rule. */
    static String layouts(List<Layout> layouts) {
        if (layouts.size() == 1) {
            return layouts.getFirst().toString();
        }
        Layout first = layouts.getFirst();
        boolean sameNum = layouts.stream().allMatch(l -> l.blockNum() == first.blockNum());
        boolean doubled = layouts.stream().allMatch(l -> l.stride() == 2L * l.blockSize());
        boolean sameStride = layouts.stream().allMatch(l -> l.stride() == first.stride());
        String num = sameNum ? "block_num " + first.blockNum() : "block_num varies";
        String stride = doubled ? "stride 2 x block_size" : sameStride ? "stride " + first.stride() : "stride varies";
        return String.format(Locale.ROOT, "block_size %d..%d, %s, %s", layouts.stream().mapToInt(Layout::blockSize)
                .min().orElseThrow(), layouts.stream().mapToInt(Layout::blockSize).max().orElseThrow(), num, stride);
    }
}
