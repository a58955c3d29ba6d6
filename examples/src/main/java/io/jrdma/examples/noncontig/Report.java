package io.jrdma.examples.noncontig;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The console table and the CSV file of a run. */
public final class Report {

    /** The CSV header, one column per field of a row. */
    public static final String CSV_HEADER = "method,operation,zero_copy,block_size,block_num,stride,message_bytes,"
            + "max_sge,wrs_per_message,iterations,median_us,mean_us,min_us,mb_per_s,verified";

    private static final Method.Operation[] OPS = Method.Operation.values();

    private Report() {
    }

    /**
     * Prints one row per layout: for each operation, zero-copy MB/s, pack MB/s and their ratio (above 1: the
     * scatter/gather list wins).
     */
    public static void table(PrintWriter out, List<Layout> layouts, List<Result> results) {
        out.printf(Locale.ROOT, "%9s %7s %9s %4s |", "block", "blocks", "message", "WRs");
        for (Method.Operation op : OPS) {
            Method zc = zeroCopy(op);
            out.printf(Locale.ROOT, " %13s %15s %7s |", zc.label(), zc.counterpart().label(), "zc/pack");
        }
        out.println();
        for (Layout l : layouts) {
            Result first = find(results, Method.GATHER_WRITE, l);
            out.printf(Locale.ROOT, "%9d %7d %9s %4s |", l.blockSize(), l.blockNum(), Plot.bytes(l.messageBytes()),
                    first == null ? "-" : Integer.toString(first.workRequests()));
            for (Method.Operation op : OPS) {
                Result z = find(results, zeroCopy(op), l);
                Result p = find(results, zeroCopy(op).counterpart(), l);
                out.printf(Locale.ROOT, " %13s %15s %7s |", mb(z), mb(p),
                        z == null || p == null ? "-" : String.format(Locale.ROOT, "%.2f",
                                z.mbPerSecond() / p.mbPerSecond()));
            }
            out.println();
        }
    }

    private static Method zeroCopy(Method.Operation op) {
        for (Method m : Method.values()) {
            if (m.operation() == op && m.zeroCopy()) {
                return m;
            }
        }
        throw new IllegalStateException("no zero-copy method for " + op);
    }

    private static String mb(Result r) {
        return r == null ? "-" : String.format(Locale.ROOT, "%.1f", r.mbPerSecond());
    }

    /** The result of {@code m} on {@code l}, or null. */
    static Result find(List<Result> results, Method m, Layout l) {
        for (Result r : results) {
            if (r.method() == m && r.layout().equals(l)) {
                return r;
            }
        }
        return null;
    }

    /** Writes {@link #CSV_HEADER} and one row per result. */
    public static void csv(Path file, List<Result> results) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(CSV_HEADER);
            w.write('\n');
            for (Result r : results) {
                Layout l = r.layout();
                w.write(String.format(Locale.ROOT, "%s,%s,%b,%d,%d,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%b%n",
                        r.method().label(), r.method().operation().name().toLowerCase(Locale.ROOT),
                        r.method().zeroCopy(), l.blockSize(), l.blockNum(), l.stride(), l.messageBytes(), r.maxSge(),
                        r.workRequests(), r.iterations(), r.medianNs() / 1e3, r.meanNs() / 1e3, r.minNs() / 1e3,
                        r.mbPerSecond(), true));
            }
        }
    }
}
