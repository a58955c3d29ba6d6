package io.jrdma.soft.link;

import io.jrdma.wire.Opcode;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * What a {@link FaultyLink} does to the packets a soft device sends: seeded, so a run under faults can be repeated
 * exactly. Immutable; {@link #NONE} (the default) injects nothing.
 *
 * <p>The text form, read from the system property {@value #PROPERTY} or the environment variable
 * {@value #ENVIRONMENT} by {@link #fromEnvironment()}, is a comma-separated list of {@code key=value}:
 * <pre>
 *   seed=42            the PRNG seed (decimal or 0x hex; default 1)
 *   drop=0.01          drop a packet with this probability
 *   dup=0.01           send a packet twice with this probability
 *   reorder=0.01:8     hold a packet back behind 1..8 (uniform) later packets with this probability
 *   delay=0.01:200us   hold a packet for 200 us of the device clock with this probability (ns, us, ms, s)
 *   corrupt=0.001      flip one bit of a packet (after its ICRC was computed) with this probability
 *   drop_acks=0.05     drop an ACKNOWLEDGE or ATOMIC ACKNOWLEDGE (the packets carrying only an AETH) with this
 *                      probability
 *   drop_psn=100:0x1f  drop the first {@code times} transmissions of each packet with these PSNs
 *   drop_opcode=RC_ACKNOWLEDGE:0x0a  drop the first {@code times} packets with each of these opcodes
 *   times=1            how often drop_psn and drop_opcode match (a positive count, or all)
 *   rate=2M            a bottleneck: packets leave at most this many bytes a second (k, M, G: 10^3, 10^6, 10^9),
 *                      in order, queued in the hold buffers; a packet that finds them all in use is dropped
 *   hold=128           packets that may be held back at once for reorder, delay and rate (preallocated)
 * </pre>
 * {@code none} or an empty string means no faults.
 */
public final class FaultConfig {

    /** The system property read by {@link #fromEnvironment()}. */
    public static final String PROPERTY = "jrdma.faults";
    /** The environment variable read by {@link #fromEnvironment()} when the property is not set. */
    public static final String ENVIRONMENT = "JRDMA_FAULTS";
    /** {@link #times()} when drop_psn and drop_opcode match every time. */
    public static final int ALL = Integer.MAX_VALUE;

    /** No faults. */
    public static final FaultConfig NONE = builder().build();

    private static final int DEFAULT_WINDOW = 8;
    private static final long DEFAULT_DELAY_NS = 100_000;
    private static final int DEFAULT_HOLD = 128;
    private static final int MAX_HOLD = 4096;

    private final long seed;
    private final double drop;
    private final double duplicate;
    private final double reorder;
    private final int reorderWindow;
    private final double delay;
    private final long delayNs;
    private final double corrupt;
    private final double dropAcks;
    private final int[] dropPsns;
    private final int[] dropOpcodes;
    private final int times;
    private final long rate;
    private final int hold;

    private FaultConfig(Builder b) {
        seed = b.seed;
        drop = b.drop;
        duplicate = b.duplicate;
        reorder = b.reorder;
        reorderWindow = b.reorderWindow;
        delay = b.delay;
        delayNs = b.delayNs;
        corrupt = b.corrupt;
        dropAcks = b.dropAcks;
        dropPsns = b.dropPsns.clone();
        dropOpcodes = b.dropOpcodes.clone();
        times = b.times;
        rate = b.rate;
        hold = b.hold;
    }

    /** A builder with no faults, seed 1. */
    public static Builder builder() {
        return new Builder();
    }

    /** True when any fault is configured (a device then sends through a {@link FaultyLink}). */
    public boolean enabled() {
        return drop > 0 || duplicate > 0 || reorder > 0 || delay > 0 || corrupt > 0 || dropAcks > 0
                || dropPsns.length > 0 || dropOpcodes.length > 0 || rate > 0;
    }

    /** The PRNG seed. */
    public long seed() {
        return seed;
    }

    /** Probability of dropping a packet. */
    public double drop() {
        return drop;
    }

    /** Probability of sending a packet twice. */
    public double duplicate() {
        return duplicate;
    }

    /** Probability of holding a packet back behind later ones. */
    public double reorder() {
        return reorder;
    }

    /** The most later packets a reordered packet is held behind. */
    public int reorderWindow() {
        return reorderWindow;
    }

    /** Probability of delaying a packet by {@link #delayNs()}. */
    public double delay() {
        return delay;
    }

    /** How long a delayed packet is held, in nanoseconds of the device clock. */
    public long delayNs() {
        return delayNs;
    }

    /** Probability of flipping one bit of a packet. */
    public double corrupt() {
        return corrupt;
    }

    /** Probability of dropping an ACKNOWLEDGE or ATOMIC ACKNOWLEDGE packet. */
    public double dropAcks() {
        return dropAcks;
    }

    /** The PSNs whose first {@link #times()} transmissions are dropped. */
    public int[] dropPsns() {
        return dropPsns.clone();
    }

    /** The opcodes whose first {@link #times()} packets are dropped. */
    public int[] dropOpcodes() {
        return dropOpcodes.clone();
    }

    /** How often drop_psn and drop_opcode match ({@link #ALL}: always). */
    public int times() {
        return times;
    }

    /** The bottleneck's bytes per second (0: none): packets leave in order, no faster. */
    public long rate() {
        return rate;
    }

    /** How many packets may be held back at once. */
    public int hold() {
        return hold;
    }

    /**
     * The faults named by the system property {@value #PROPERTY}, else by the environment variable
     * {@value #ENVIRONMENT}, else {@link #NONE}.
     *
     * @throws IllegalArgumentException if the setting does not parse
     */
    public static FaultConfig fromEnvironment() {
        String spec = System.getProperty(PROPERTY);
        String from = PROPERTY;
        if (spec == null || spec.isBlank()) {
            spec = System.getenv(ENVIRONMENT);
            from = ENVIRONMENT;
        }
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        try {
            return parse(spec);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(from + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses the text form (see the class comment).
     *
     * @throws IllegalArgumentException naming the bad item
     */
    public static FaultConfig parse(String spec) {
        Builder b = builder();
        String s = spec.trim();
        if (s.isEmpty() || s.equalsIgnoreCase("none") || s.equalsIgnoreCase("off")) {
            return b.build();
        }
        for (String item : s.split(",")) {
            String t = item.trim();
            if (t.isEmpty()) {
                continue;
            }
            int eq = t.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + t + "' is not key=value");
            }
            String key = t.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = t.substring(eq + 1).trim();
            try {
                apply(b, key, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad fault setting '" + t + "': " + e.getMessage(), e);
            }
        }
        return b.build();
    }

    private static void apply(Builder b, String key, String value) {
        String[] parts = value.split(":");
        switch (key) {
            case "seed" -> b.seed(parseLong(value));
            case "drop" -> b.drop(Double.parseDouble(value));
            case "dup", "duplicate" -> b.duplicate(Double.parseDouble(value));
            case "reorder" -> b.reorder(Double.parseDouble(parts[0]),
                    parts.length > 1 ? Integer.parseInt(parts[1]) : DEFAULT_WINDOW);
            case "delay" -> b.delay(Double.parseDouble(parts[0]),
                    parts.length > 1 ? parseDuration(parts[1]) : DEFAULT_DELAY_NS);
            case "corrupt" -> b.corrupt(Double.parseDouble(value));
            case "drop_acks" -> b.dropAcks(Double.parseDouble(value));
            case "drop_psn" -> b.dropPsns(Arrays.stream(parts).mapToInt(p -> (int) parseLong(p)).toArray());
            case "drop_opcode" -> b.dropOpcodes(Arrays.stream(parts).mapToInt(FaultConfig::parseOpcode).toArray());
            case "times" -> b.times(value.equalsIgnoreCase("all") ? ALL : Integer.parseInt(value));
            case "rate" -> b.rate(parseRate(value));
            case "hold" -> b.hold(Integer.parseInt(value));
            default -> throw new IllegalArgumentException("unknown key (seed, drop, dup, reorder, delay, corrupt, "
                    + "drop_acks, drop_psn, drop_opcode, times, rate, hold)");
        }
    }

    private static long parseLong(String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        return t.startsWith("0x") ? Long.parseLong(t.substring(2), 16) : Long.parseLong(t);
    }

    private static int parseOpcode(String v) {
        String t = v.trim();
        if (!t.isEmpty() && Character.isDigit(t.charAt(0))) {
            return (int) parseLong(t);
        }
        try {
            return Opcode.valueOf(t.toUpperCase(Locale.ROOT)).code();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown opcode " + t + " (a number or a name such as RC_ACKNOWLEDGE)",
                    e);
        }
    }

    /** Bytes a second: a number, with k, M or G for 10^3, 10^6, 10^9, and "B/s" or "/s" after it or not. */
    private static long parseRate(String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        t = t.endsWith("b/s") ? t.substring(0, t.length() - 3) : t.endsWith("/s") ? t.substring(0, t.length() - 2) : t;
        long scale = 1;
        if (t.endsWith("k") || t.endsWith("m") || t.endsWith("g")) {
            scale = switch (t.charAt(t.length() - 1)) {
                case 'k' -> 1_000L;
                case 'm' -> 1_000_000L;
                default -> 1_000_000_000L;
            };
            t = t.substring(0, t.length() - 1);
        }
        double bytes = Double.parseDouble(t.trim()) * scale;
        if (!Double.isFinite(bytes)) {
            throw new IllegalArgumentException("rate " + v + " is not a number of bytes a second");
        }
        return Math.round(bytes);
    }

    /** A duration with a unit (ns, us, ms, s); a bare number is microseconds. */
    private static long parseDuration(String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        long scale = 1_000;
        if (t.endsWith("ns")) {
            scale = 1;
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("us")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("ms")) {
            scale = 1_000_000;
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            scale = 1_000_000_000;
            t = t.substring(0, t.length() - 1);
        }
        return Math.round(Double.parseDouble(t.trim()) * scale);
    }

    /** The text form, which {@link #parse} reads back to an equal configuration. */
    @Override
    public String toString() {
        if (!enabled()) {
            return "none";
        }
        StringBuilder sb = new StringBuilder("seed=").append(seed);
        rate(sb, "drop", drop);
        rate(sb, "dup", duplicate);
        if (reorder > 0) {
            sb.append(",reorder=").append(reorder).append(':').append(reorderWindow);
        }
        if (delay > 0) {
            sb.append(",delay=").append(delay).append(':').append(delayNs).append("ns");
        }
        rate(sb, "corrupt", corrupt);
        rate(sb, "drop_acks", dropAcks);
        list(sb, "drop_psn", dropPsns);
        list(sb, "drop_opcode", dropOpcodes);
        if (dropPsns.length > 0 || dropOpcodes.length > 0) {
            sb.append(",times=").append(times == ALL ? "all" : Integer.toString(times));
        }
        if (rate > 0) {
            sb.append(",rate=").append(rate);
        }
        if (hold != DEFAULT_HOLD) {
            sb.append(",hold=").append(hold);
        }
        return sb.toString();
    }

    private static void rate(StringBuilder sb, String key, double p) {
        if (p > 0) {
            sb.append(',').append(key).append('=').append(p);
        }
    }

    private static void list(StringBuilder sb, String key, int[] values) {
        for (int i = 0; i < values.length; i++) {
            sb.append(i == 0 ? "," + key + "=" : ":").append(values[i]);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FaultConfig f && seed == f.seed && drop == f.drop && duplicate == f.duplicate
                && reorder == f.reorder && reorderWindow == f.reorderWindow && delay == f.delay
                && delayNs == f.delayNs && corrupt == f.corrupt && dropAcks == f.dropAcks
                && Arrays.equals(dropPsns, f.dropPsns) && Arrays.equals(dropOpcodes, f.dropOpcodes)
                && times == f.times && rate == f.rate && hold == f.hold;
    }

    @Override
    public int hashCode() {
        return Objects.hash(seed, drop, duplicate, reorder, reorderWindow, delay, delayNs, corrupt, dropAcks,
                Arrays.hashCode(dropPsns), Arrays.hashCode(dropOpcodes), times, rate, hold);
    }

    /** Builds a {@link FaultConfig}; every setter checks its range. */
    public static final class Builder {
        private long seed = 1;
        private double drop;
        private double duplicate;
        private double reorder;
        private int reorderWindow = DEFAULT_WINDOW;
        private double delay;
        private long delayNs = DEFAULT_DELAY_NS;
        private double corrupt;
        private double dropAcks;
        private int[] dropPsns = new int[0];
        private int[] dropOpcodes = new int[0];
        private int times = 1;
        private long rate;
        private int hold = DEFAULT_HOLD;

        private Builder() {
        }

        /** The PRNG seed (default 1). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Drops each packet with probability {@code p}. */
        public Builder drop(double p) {
            this.drop = probability(p);
            return this;
        }

        /** Sends each packet twice with probability {@code p}. */
        public Builder duplicate(double p) {
            this.duplicate = probability(p);
            return this;
        }

        /** Holds each packet back behind 1..{@code window} (uniform) later packets with probability {@code p}. */
        public Builder reorder(double p, int window) {
            if (window < 1 || window > MAX_HOLD) {
                throw new IllegalArgumentException("reorder window " + window + " is out of range [1, " + MAX_HOLD
                        + "]");
            }
            this.reorder = probability(p);
            this.reorderWindow = window;
            return this;
        }

        /** Holds each packet for {@code ns} nanoseconds of the device clock with probability {@code p}. */
        public Builder delay(double p, long ns) {
            if (ns < 0) {
                throw new IllegalArgumentException("delay " + ns + " ns is negative");
            }
            this.delay = probability(p);
            this.delayNs = ns;
            return this;
        }

        /** Flips one bit of each packet with probability {@code p}. */
        public Builder corrupt(double p) {
            this.corrupt = probability(p);
            return this;
        }

        /** Drops each ACKNOWLEDGE and ATOMIC ACKNOWLEDGE with probability {@code p}. */
        public Builder dropAcks(double p) {
            this.dropAcks = probability(p);
            return this;
        }

        /** Drops the first {@link #times(int)} transmissions of packets with these 24-bit PSNs. */
        public Builder dropPsns(int... psns) {
            for (int p : psns) {
                if ((p & ~0xFFFFFF) != 0) {
                    throw new IllegalArgumentException("PSN " + p + " is not a 24-bit PSN");
                }
            }
            this.dropPsns = psns.clone();
            return this;
        }

        /** Drops the first {@link #times(int)} packets with these BTH opcodes. */
        public Builder dropOpcodes(int... opcodes) {
            for (int o : opcodes) {
                if ((o & ~0xFF) != 0) {
                    throw new IllegalArgumentException("opcode " + o + " is not a byte");
                }
            }
            this.dropOpcodes = opcodes.clone();
            return this;
        }

        /** How many times each drop_psn and drop_opcode entry matches (default 1; {@link FaultConfig#ALL}). */
        public Builder times(int times) {
            if (times < 1) {
                throw new IllegalArgumentException("times " + times + " must be at least 1 (or ALL)");
            }
            this.times = times;
            return this;
        }

        /**
         * A bottleneck of {@code bytesPerSecond} (0: none): every packet leaves after the ones before it, no sooner
         * than its bytes take at this rate, queued meanwhile in the {@link #hold(int)} buffers; a packet that finds
         * them all in use is dropped, as a full router queue drops it.
         */
        public Builder rate(long bytesPerSecond) {
            if (bytesPerSecond < 0) {
                throw new IllegalArgumentException("rate " + bytesPerSecond + " B/s is negative");
            }
            this.rate = bytesPerSecond;
            return this;
        }

        /** How many packets may be held back at once for reorder, delay and rate (default 128). */
        public Builder hold(int packets) {
            if (packets < 1 || packets > MAX_HOLD) {
                throw new IllegalArgumentException("hold " + packets + " is out of range [1, " + MAX_HOLD + "]");
            }
            this.hold = packets;
            return this;
        }

        /** The configuration. */
        public FaultConfig build() {
            return new FaultConfig(this);
        }

        private static double probability(double p) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("probability " + p + " is not in [0, 1]");
            }
            return p;
        }
    }
}
