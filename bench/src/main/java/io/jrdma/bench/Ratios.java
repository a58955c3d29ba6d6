package io.jrdma.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a JMH CSV result file ({@code -rf csv -rff FILE}) into a Markdown table in which every benchmark is also
 * given as a ratio to the baselines measured in the same run: the methods of the same class whose name starts with
 * {@code baseline}, with the same parameter values. Usage:
 * {@code java -cp bench/target/benchmarks.jar io.jrdma.bench.Ratios bench/target/jmh-result.csv}.
 */
public final class Ratios {

    private static final String BENCH_PACKAGE = "io.jrdma.bench.";
    private static final String BASELINE = "baseline";

    private Ratios() {
    }

    /** One result line. */
    record Row(String className, String method, String params, double score, double error, String unit) {
        boolean isBaseline() {
            return method.startsWith(BASELINE);
        }
    }

    /** Prints the table of the CSV file named by the only argument; exits 2 on bad usage, 1 on a bad file. */
    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: java -cp benchmarks.jar io.jrdma.bench.Ratios JMH_RESULT.csv");
            System.exit(2);
        }
        try {
            print(parse(Files.readAllLines(Path.of(args[0]))), System.out);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("ratios: " + args[0] + ": " + e.getMessage());
            System.exit(1);
        }
    }

    /** Parses JMH's CSV: a header naming the columns, then one quoted, comma-separated line per result. */
    static List<Row> parse(List<String> lines) {
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("empty file");
        }
        String[] header = split(lines.getFirst());
        int benchmark = column(header, "Benchmark");
        int score = column(header, "Score");
        int error = column(header, "Score Error (99.9%)");
        int unit = column(header, "Unit");
        List<Row> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = split(line);
            if (f.length < header.length) {
                throw new IllegalArgumentException("short line: " + line);
            }
            StringBuilder params = new StringBuilder();
            for (int i = 0; i < header.length; i++) {
                if (header[i].startsWith("Param: ") && !f[i].isEmpty()) {
                    params.append(params.isEmpty() ? "" : ", ").append(header[i].substring(7)).append('=').append(f[i]);
                }
            }
            String name = f[benchmark].startsWith(BENCH_PACKAGE) ? f[benchmark].substring(BENCH_PACKAGE.length())
                    : f[benchmark];
            int dot = name.lastIndexOf('.');
            if (dot < 0) {
                throw new IllegalArgumentException("benchmark name without a class: " + f[benchmark]);
            }
            rows.add(new Row(name.substring(0, dot), name.substring(dot + 1), params.toString(),
                    number(f[score]), number(f[error]), f[unit]));
        }
        return rows;
    }

    /** Prints one Markdown table row per result, with its ratios to the matching baselines. */
    static void print(List<Row> rows, PrintStream out) {
        out.println("| benchmark | params | score | error | unit | vs baseline (same run) |");
        out.println("|---|---|---:|---:|---|---|");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "| %s.%s | %s | %s | %s | %s | %s |%n", r.className(), r.method(), r.params(),
                    format(r.score()), Double.isNaN(r.error()) ? "" : "± " + format(r.error()), r.unit(), ratios(r, rows));
        }
    }

    /** The row's ratios to every baseline of its class with the same parameters, e.g. "2.75 × baselineCrc32". */
    static String ratios(Row r, List<Row> rows) {
        if (r.isBaseline()) {
            return "(baseline)";
        }
        StringBuilder s = new StringBuilder();
        for (Row b : rows) {
            if (b.isBaseline() && b.className().equals(r.className()) && b.params().equals(r.params())
                    && b.unit().equals(r.unit()) && b.score() > 0) {
                s.append(s.isEmpty() ? "" : "; ").append(format(r.score() / b.score())).append(" × ")
                        .append(b.method());
            }
        }
        return s.toString();
    }

    private static String format(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%.0f" : a >= 1 ? "%.2f" : a >= 0.01 ? "%.3f" : "%.4f", v);
    }

    private static int column(String[] header, String name) {
        for (int i = 0; i < header.length; i++) {
            if (header[i].equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column \"" + name + "\" (not a JMH CSV result?)");
    }

    private static double number(String s) {
        try {
            return s.isEmpty() ? Double.NaN : Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: " + s, e);
        }
    }

    /** Splits a CSV line on commas outside quotes and drops the quotes (JMH's names and values hold no quotes). */
    private static String[] split(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder f = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                fields.add(f.toString());
                f.setLength(0);
            } else {
                f.append(c);
            }
        }
        fields.add(f.toString());
        return fields.toArray(String[]::new);
    }
}
