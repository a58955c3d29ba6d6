package io.jrdma.examples.noncontig;

import io.jrdma.examples.ThreadingSetting;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Mtu;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What {@code jrdma noncontig} measures and where it writes the results.
 *
 * @param layouts    the layouts to measure, in order (one point per layout and method)
 * @param maxSge     the most SGEs per work request, or 0 for the device's max_sge
 * @param iterations measured messages per point, at most
 * @param warmup     messages per point before measuring (verified, not timed)
 * @param duration   time per point, at most (at least one message is measured)
 * @param mtu        the path MTU
 * @param threading  the soft devices' engine threading: adaptive, invoker or dedicated
 * @param addrA      the address of side A (sender, reader)
 * @param addrB      the address of side B (receiver, READ target)
 * @param timeout    the longest wait for any completion
 * @param csv        the CSV file to write, or null
 * @param plots      plot files to write, each ending in .svg or .png
 */
public record NoncontigConfig(List<Layout> layouts, int maxSge, int iterations, int warmup, Duration duration,
        Mtu mtu, Threading threading, String addrA, String addrB, Duration timeout, Path csv, List<Path> plots) {

    /** Blocks per message in a sweep unless told otherwise. */
    public static final int DEFAULT_BLOCK_NUM = 128;
    /** The smallest block size of the default sweep. */
    public static final int DEFAULT_MIN_BLOCK = 8;
    /** The largest block size of the default sweep. */
    public static final int DEFAULT_MAX_BLOCK = 64 << 10;
    /** The most iterations or warm-up messages per point. */
    public static final int MAX_ITERATIONS = 1_000_000;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming the bad value
     */
    public NoncontigConfig {
        layouts = List.copyOf(layouts);
        plots = List.copyOf(plots);
        Objects.requireNonNull(mtu, "mtu");
        Objects.requireNonNull(threading, "threading");
        if (layouts.isEmpty()) {
            throw new IllegalArgumentException("no layout to measure");
        }
        if (maxSge < 0) {
            throw new IllegalArgumentException("--max-sge must be at least 1, not " + maxSge);
        }
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("--iterations must be 1.." + MAX_ITERATIONS + ", not " + iterations);
        }
        if (warmup < 0 || warmup > MAX_ITERATIONS) {
            throw new IllegalArgumentException("--warmup must be 0.." + MAX_ITERATIONS + ", not " + warmup);
        }
        if (duration.isNegative() || duration.isZero() || duration.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("the duration per point must be more than 0 and at most 1 hour");
        }
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("--timeout must be more than 0 and at most 1 hour");
        }
        if (addrA.equals(addrB)) {
            throw new IllegalArgumentException("the two sides need distinct addresses, both are " + addrA);
        }
        for (Path p : plots) {
            plotFormat(p);
        }
    }

    /** "svg" or "png", from the file name's extension. */
    static String plotFormat(Path p) {
        String name = p.getFileName() == null ? "" : p.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".svg")) {
            return "svg";
        }
        if (name.endsWith(".png")) {
            return "png";
        }
        throw new IllegalArgumentException("plot file " + p + " must end in .svg or .png");
    }

    /**
     * A configuration with the defaults: up to 100 iterations, 3 warm-up messages and 500 ms per point, and the
     * threading {@code jrdma.threading} / {@code JRDMA_THREADING} names, else the library's default
     * ({@link ThreadingSetting#orDefault()}).
     */
    public static NoncontigConfig of(List<Layout> layouts, int maxSge, String addrA, String addrB) {
        return new NoncontigConfig(layouts, maxSge, 100, 3, Duration.ofMillis(500), Mtu.MTU_4096,
                ThreadingSetting.orDefault(), addrA, addrB, Duration.ofSeconds(30), null, List.of());
    }

    /**
     * The layouts of a sweep: one per block size, each with {@code blockNum} blocks and {@code stride} bytes between
     * block starts, or twice the block size when {@code stride} is 0.
     *
     * @throws IllegalArgumentException for a bad layout (a stride smaller than a block size, for instance)
     */
    public static List<Layout> sweep(List<Integer> blockSizes, int blockNum, long stride) {
        List<Layout> out = new ArrayList<>(blockSizes.size());
        for (int bs : blockSizes) {
            out.add(stride == 0 ? Layout.withDefaultStride(bs, blockNum) : new Layout(bs, blockNum, stride));
        }
        return out;
    }

    /** Block sizes {@code min, 2 min, 4 min, ...} up to {@code max}. */
    public static List<Integer> doubling(long min, long max) {
        if (min < 1 || max < min || max > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the block sizes need 1 <= --min <= --max <= " + Integer.MAX_VALUE
                    + ", not --min " + min + " --max " + max);
        }
        List<Integer> out = new ArrayList<>();
        for (long s = min; s <= max; s *= 2) {
            out.add((int) s);
        }
        return out;
    }

    /**
     * Parses a byte count: digits with an optional binary suffix K, M or G (KiB, MiB, GiB also read), for example
     * {@code 4096}, {@code 64K} or {@code 1MiB}.
     *
     * @throws IllegalArgumentException naming the text when it is not such a count or is negative
     */
    public static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        if (t.endsWith("IB")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        int shift = 0;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> shift = 10;
                case 'M' -> shift = 20;
                case 'G' -> shift = 30;
                default -> shift = 0;
            }
        }
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        try {
            long v = Long.parseLong(digits);
            if (v < 0 || v > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return v << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size in bytes: '" + text + "' (want e.g. 4096, 64K, 1M)", e);
        }
    }

    /** Parses a comma-separated list of sizes, each as {@link #parseSize}, each 1..2^31-1. */
    public static List<Integer> parseSizes(String list) {
        List<Integer> out = new ArrayList<>();
        for (String part : list.split(",", -1)) {
            long v = parseSize(part);
            if (v < 1 || v > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("block size '" + part.trim() + "' must be 1.." + Integer.MAX_VALUE);
            }
            out.add((int) v);
        }
        return out;
    }
}
