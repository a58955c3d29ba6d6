package io.jrdma.tools.compare;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** Prints the rows as an aligned text table, as a Markdown table, or as CSV. */
final class Table {

    private static final String[] HEADER = {"scenario", "metric", "jrdma", "baseline", "baseline value", "ratio",
        "goal", "result"};

    private Table() {
    }

    /** A figure with as many decimals as its size needs: 812, 81.2, 8.12, 0.081; "n/a" when missing. */
    static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        String f = a >= 1000 ? "%,.0f" : a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 0.1 || a == 0 ? "%.2f"
                : "%.3f";
        return String.format(Locale.ROOT, f, v);
    }

    static String ratio(double r) {
        return Double.isNaN(r) || Double.isInfinite(r) ? "n/a" : String.format(Locale.ROOT, "%.2f", r);
    }

    private static String[] cells(Row r) {
        return new String[] {r.scenario(), r.metric(), number(r.jrdma()), r.baseline(), number(r.base()),
            ratio(r.ratio()), r.goalText(), r.verdict()};
    }

    /** The aligned text table. */
    static void text(PrintStream out, List<Row> rows) {
        int[] w = new int[HEADER.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = HEADER[i].length();
        }
        for (Row r : rows) {
            String[] c = cells(r);
            for (int i = 0; i < w.length; i++) {
                w[i] = Math.max(w[i], c[i].length());
            }
        }
        line(out, HEADER, w);
        for (Row r : rows) {
            line(out, cells(r), w);
        }
    }

    private static void line(PrintStream out, String[] c, int[] w) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < c.length; i++) {
            boolean numeric = i == 2 || i == 4 || i == 5;
            String pad = " ".repeat(w[i] - c[i].length());
            sb.append(i == 0 ? "" : "  ").append(numeric ? pad + c[i] : c[i] + (i == c.length - 1 ? "" : pad));
        }
        out.println(sb);
    }

    /** The Markdown table, for BENCHMARKS.md. */
    static void markdown(PrintStream out, List<Row> rows) {
        out.println("| " + String.join(" | ", HEADER) + " |");
        out.println("|---|---|---:|---|---:|---:|---|---|");
        for (Row r : rows) {
            out.println("| " + String.join(" | ", cells(r)) + " |");
        }
    }

    /** CSV with a header line; figures unrounded. */
    static void csv(PrintStream out, List<Row> rows) {
        out.println("scenario,metric,jrdma,baseline,baseline_value,ratio,goal,result");
        for (Row r : rows) {
            out.println(String.join(",", quote(r.scenario()), quote(r.metric()), raw(r.jrdma()), quote(r.baseline()),
                    raw(r.base()), raw(r.ratio()), quote(goal(r)), r.verdict()));
        }
    }

    /** The goal's name, and its limit where it has one ({@code below 1}, {@code within 50}). */
    private static String goal(Row r) {
        String name = r.goal().name().toLowerCase(Locale.ROOT);
        return Double.isNaN(r.limit()) ? name : name + " " + Row.plain(r.limit());
    }

    private static String raw(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%.6g", v);
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
