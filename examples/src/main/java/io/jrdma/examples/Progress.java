package io.jrdma.examples;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress display for long-running tools ({@code jrdma throughput}, the perftest tools): iterations
 * done, of how many, and the rate, redrawn in place at most every 200 ms. It draws only on an interactive
 * terminal — {@link System#console()} exists and is a terminal — so scripts, pipes and tests see nothing; the
 * line is drawn on the console itself, never mixed into the tool's standard output, and erased by
 * {@link #close()}.
 */
public final class Progress implements AutoCloseable {

    private static final long REDRAW_NS = 200_000_000L;

    private final PrintWriter out;
    private final String what;
    private final long total;
    private final LongSupplier clock;
    private final long startNs;
    private long done;
    private long lastDrawNs;
    private int lastWidth;

    private Progress(PrintWriter out, String what, long total, LongSupplier clock) {
        this.out = out;
        this.what = what;
        this.total = total;
        this.clock = clock;
        this.startNs = clock.getAsLong();
        this.lastDrawNs = startNs - REDRAW_NS;
    }

    /** True when progress is shown: the JVM has a console and it is a terminal. */
    public static boolean interactive() {
        Console c = System.console();
        return c != null && c.isTerminal();
    }

    /**
     * Progress of {@code total} iterations (0: unknown) of {@code what}, shown on the terminal when
     * {@link #interactive()}, else a display that shows nothing.
     */
    public static Progress start(String what, long total) {
        return interactive() ? new Progress(System.console().writer(), what, total, System::nanoTime)
                : new Progress(null, what, total, System::nanoTime);
    }

    /** Progress always drawn on {@code out}, with {@code clock} (nanoseconds): for tests. */
    public static Progress to(PrintWriter out, String what, long total, LongSupplier clock) {
        return new Progress(out, what, total, clock);
    }

    /** Whether this display draws anything. */
    public boolean enabled() {
        return out != null;
    }

    /** Counts {@code n} more iterations done. */
    public void add(long n) {
        update(done + n);
    }

    /** Sets the iterations done; redraws when 200 ms passed since the last drawing or all are done. */
    public void update(long iterationsDone) {
        done = iterationsDone;
        if (out == null) {
            return;
        }
        long now = clock.getAsLong();
        if (now - lastDrawNs >= REDRAW_NS || (total > 0 && done >= total)) {
            lastDrawNs = now;
            draw(now);
        }
    }

    private void draw(long now) {
        double seconds = Math.max(1e-9, (now - startNs) / 1e9);
        String line = total > 0
                ? String.format(Locale.ROOT, "%s: %d/%d (%d%%), %.1f/s, %.1f s", what, done, total,
                        done * 100 / total, done / seconds, seconds)
                : String.format(Locale.ROOT, "%s: %d, %.1f/s, %.1f s", what, done, done / seconds, seconds);
        StringBuilder sb = new StringBuilder(line.length() + 16).append('\r').append(line);
        for (int i = line.length(); i < lastWidth; i++) {
            sb.append(' ');
        }
        lastWidth = line.length();
        out.print(sb);
        out.flush();
    }

    /** Erases the line, so that what the tool prints next starts clean. */
    @Override
    public void close() {
        if (out != null && lastWidth > 0) {
            out.print("\r" + " ".repeat(lastWidth) + "\r");
            out.flush();
            lastWidth = 0;
        }
    }
}
