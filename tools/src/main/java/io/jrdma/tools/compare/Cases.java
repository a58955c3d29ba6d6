package io.jrdma.tools.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The cases each scenario runs (one case: one system in one configuration, run as one pair of child processes) and
 * the table rows made of their results. The jrdma parameters follow perftest's shape: a deep send queue, selective
 * signalling, chains of work requests for small messages.
 */
final class Cases {

    static final int KIB64 = 64 * 1024;
    static final int MIB = 1024 * 1024;
    static final int[] QP_COUNTS = {1, 2, 4, 8};
    /**
     * Work requests outstanding in the write-bw scenario: 32 messages of 64 KiB are 2 MiB in flight, twice the most
     * an RC window holds (256 packets of 4 KiB), so the link never waits for the application. A deeper queue only
     * spreads the same traffic over more memory (each outstanding WR has its own source slot and two receive ring
     * slots, 24 MiB at 128 deep), which the CPU must then fetch from DRAM for the ICRC and the copies, where the
     * TCP baseline moves its stream through one 64 KiB buffer a side. The 128-deep run is reported beside it.
     */
    static final int WRITE_DEPTH = 32;
    /** Work requests outstanding in the other bandwidth scenarios, and in write-bw's deep run. */
    static final int DEEP = 128;

    /** One configuration of one system. */
    record Case(String key, String label, Params params) {
        String system() {
            return params.str("system");
        }
    }

    /** The figures of every run, by case key. */
    record Results(Map<String, List<Figures>> byCase) {
        /** The median of {@code metric} over the case's successful runs; NaN when there were none. */
        double median(String key, ToDoubleFunction<Figures> metric) {
            List<Figures> runs = byCase.getOrDefault(key, List.of());
            double[] v = new double[runs.size()];
            for (int i = 0; i < v.length; i++) {
                v[i] = metric.applyAsDouble(runs.get(i));
            }
            return median(v);
        }

        static double median(double[] v) {
            if (v.length == 0) {
                return Double.NaN;
            }
            double[] s = v.clone();
            java.util.Arrays.sort(s);
            int m = s.length / 2;
            return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
        }
    }

    private Cases() {
    }

    /** The cases of {@code s}, in the order they alternate within one repetition. */
    static List<Case> of(Scenario s, BenchConfig c) {
        Params base = base(s, c);
        List<Case> cases = new ArrayList<>();
        int depth = c.quick() ? 32 : DEEP;
        switch (s) {
            case WRITE_BW -> {
                cases.add(new Case("jrdma", "jrdma RDMA WRITE", jrdmaWrite(base, KIB64, 1, WRITE_DEPTH)));
                if (!c.quick()) {
                    // the same over the kernel's UDP stack, as between two hosts (no shared-memory path)
                    cases.add(new Case("jrdma-udp", "jrdma RDMA WRITE over UDP",
                            jrdmaWrite(base, KIB64, 1, WRITE_DEPTH).with("udp_only", "true")));
                    cases.add(new Case("jrdma-deep", "jrdma RDMA WRITE, " + DEEP + " deep",
                            jrdmaWrite(base, KIB64, 1, DEEP)));
                }
                cases.add(new Case("tcp", "NIO TCP", base.with("system", "tcp").with("workload", "bw")
                        .with("size", KIB64)));
                cases.add(new Case("aeron", "Aeron UDP", base.with("system", "aeron").with("workload", "bw")
                        .with("size", KIB64)));
            }
            case SEND_LAT -> {
                for (String mode : new String[] {"busy", "blocking"}) {
                    Params lat = base.with("workload", "lat").with("size", 2).with("mode", mode);
                    cases.add(new Case("jrdma-" + mode, "jrdma SEND " + mode, lat.with("system", "jrdma")));
                    cases.add(new Case("udp-" + mode, "NIO UDP " + mode, lat.with("system", "udp")));
                    if (mode.equals("busy")) {
                        cases.add(new Case("aeron-busy", "Aeron UDP busy spin", lat.with("system", "aeron")
                                .with("aeron_idle", "busy")));
                    }
                }
            }
            case MSG_RATE -> {
                int rateDepth = c.quick() ? 128 : 512;
                cases.add(new Case("jrdma", "jrdma 2-byte RDMA WRITE", base.with("system", "jrdma")
                        .with("workload", "rate").with("size", 2).with("depth", rateDepth).with("signal", 64)
                        .with("batch", 32).with("ring", 8 * rateDepth)));
                Params tcp = base.with("system", "tcp").with("workload", "rate").with("size", 2);
                cases.add(new Case("tcp-each", "NIO TCP, one write per message", tcp.with("framing", "each")));
                cases.add(new Case("tcp-buffered", "NIO TCP, 64 KiB buffered", tcp.with("framing", "buffered")));
                cases.add(new Case("aeron", "Aeron UDP", base.with("system", "aeron").with("workload", "rate")
                        .with("size", 2)));
            }
            case READ_BW -> {
                for (int size : new int[] {KIB64, MIB}) {
                    String tag = size == MIB ? "1m" : "64k";
                    int d = size == MIB ? Math.max(4, depth / 8) : depth;
                    cases.add(new Case("jrdma-" + tag, "jrdma RDMA READ " + sizeName(size), base.with("system", "jrdma")
                            .with("workload", "read").with("size", size).with("depth", d).with("signal", d / 4)
                            .with("ring", 2 * d)));
                    cases.add(new Case("tcp-" + tag, "NIO TCP " + sizeName(size), base.with("system", "tcp")
                            .with("workload", "bw").with("size", size)));
                }
            }
            case QP_SCALING -> {
                for (int qps : QP_COUNTS) {
                    cases.add(new Case("write-q" + qps, "jrdma RDMA WRITE, " + qps + " QP",
                            jrdmaWrite(base, KIB64, qps, depth)));
                }
                for (int qps : QP_COUNTS) {
                    cases.add(new Case("read-q" + qps, "jrdma RDMA READ, " + qps + " QP", base.with("system", "jrdma")
                            .with("workload", "read").with("size", KIB64).with("qps", qps).with("depth", depth)
                            .with("signal", depth / 8).with("ring", 2 * depth)));
                }
            }
            case IDLE -> {
                Params idle = base.with("workload", "idle").with("idle_ms", c.idleMs())
                        .with("settle_ms", IdleBench.settleMs(c.quick())).with("wakes", IdleBench.wakes(c.quick()))
                        .with("warm_wakes", IdleBench.leastWarmWakes(c.quick()));
                cases.add(new Case("jrdma-channel", "jrdma, app on a completion channel", idle.with("system", "jrdma")
                        .with("mode", "channel")));
                cases.add(new Case("jrdma-sleep", "jrdma, app sleeping", idle.with("system", "jrdma")
                        .with("mode", "sleep")));
                cases.add(new Case("udp", "NIO UDP blocked receive", idle.with("system", "udp")
                        .with("mode", "blocking")));
            }
            default -> throw new IllegalArgumentException("no cases for " + s);
        }
        return cases;
    }

    private static Params jrdmaWrite(Params base, int size, int qps, int depth) {
        return base.with("system", "jrdma").with("workload", "bw").with("size", size).with("qps", qps)
                .with("depth", depth).with("signal", depth / 8).with("batch", 1).with("ring", 2 * depth);
    }

    private static Params base(Scenario s, BenchConfig c) {
        String aeronThreading = c.aeronThreading().get(s);
        return Params.empty()
                .with("port", c.port())
                .with("dataport", c.port() + 1)
                .with("warmup_ms", c.warmupMs())
                .with("duration_ms", c.durationMs())
                .with("iters", c.iterations())
                .with("timeout_ms", c.childTimeoutMs(s))
                .with("threading", c.threading().get(s))
                .with("aeron_port", c.aeronPort())
                .with("aeron_threading", aeronThreading)
                .with("aeron_idle", aeronThreading.equals("INVOKER") ? "busy" : "backoff")
                .with("aeron_mtu", c.aeronMtu())
                .with("aeron_term", 16 * MIB)
                .with("aeron_window", 2 * MIB)
                .with("aeron_sobuf", 2 * MIB);
    }

    /**
     * The idle scenario's rows: each jrdma variant's idle CPU against the goal (the NIO UDP figure beside it), and
     * its round trips after idle gaps against NIO UDP's (see {@link IdleBench}).
     */
    private static void idleRows(Results r, List<Row> rows) {
        String udp = "NIO UDP blocked receive";
        String[][] variants = {{"jrdma-sleep", "app sleeping"}, {"jrdma-channel", "app on a channel"}};
        double udpCpu = r.median("udp", Figures::idleCpuPercent);
        for (String[] v : variants) {
            rows.add(new Row("idle, " + v[1], "% of a core, busier side", r.median(v[0], Figures::idleCpuPercent),
                    udp, udpCpu, Row.Goal.BELOW, IdleBench.IDLE_LIMIT_PERCENT));
        }
        String after = " after " + IdleBench.GAP_MIN_US / 1000 + "-" + IdleBench.GAP_MAX_US / 1000 + " ms idle";
        for (String[] v : new String[][] {{"jrdma-channel", "wake, app on a channel"},
            {"jrdma-sleep", "wake, app sleeping (ACK)"}}) {
            rows.add(new Row(v[1], "p50 RTT us" + after, r.median(v[0], Figures::wakeP50Micros), udp,
                    r.median("udp", Figures::wakeP50Micros), Row.Goal.INFO));
            rows.add(new Row(v[1], "p99 RTT us" + after, r.median(v[0], Figures::wakeP99Micros), udp,
                    r.median("udp", Figures::wakeP99Micros), Row.Goal.WITHIN, IdleBench.WAKE_MARGIN_US));
        }
    }

    static String sizeName(int size) {
        return size >= MIB ? size / MIB + " MiB" : size >= 1024 ? size / 1024 + " KiB" : size + " B";
    }

    /** The table rows of {@code s} from the medians of its cases. */
    static List<Row> rows(Scenario s, Results r) {
        List<Row> rows = new ArrayList<>();
        switch (s) {
            case WRITE_BW -> {
                double j = r.median("jrdma", Figures::mbPerSecond);
                rows.add(new Row("write-bw 64 KiB", "MB/s", j, "NIO TCP", r.median("tcp", Figures::mbPerSecond),
                        Row.Goal.AT_LEAST));
                rows.add(new Row("write-bw 64 KiB", "MB/s", j, "Aeron UDP", r.median("aeron", Figures::mbPerSecond),
                        Row.Goal.AT_LEAST));
                if (r.byCase().containsKey("jrdma-udp")) { // not run by --quick
                    rows.add(new Row("write-bw 64 KiB over UDP", "MB/s", r.median("jrdma-udp",
                            Figures::mbPerSecond), "NIO TCP", r.median("tcp", Figures::mbPerSecond), Row.Goal.INFO));
                }
                if (r.byCase().containsKey("jrdma-deep")) { // not run by --quick
                    rows.add(new Row("write-bw 64 KiB, " + DEEP + " deep", "MB/s",
                            r.median("jrdma-deep", Figures::mbPerSecond), "NIO TCP",
                            r.median("tcp", Figures::mbPerSecond), Row.Goal.INFO));
                }
                double jc = r.median("jrdma", Figures::mbPerCpuSecond);
                rows.add(new Row("cpu, write-bw 64 KiB", "MB per CPU-s", jc, "NIO TCP",
                        r.median("tcp", Figures::mbPerCpuSecond), Row.Goal.INFO));
                rows.add(new Row("cpu, write-bw 64 KiB", "MB per CPU-s", jc, "Aeron UDP",
                        r.median("aeron", Figures::mbPerCpuSecond), Row.Goal.INFO));
            }
            case SEND_LAT -> {
                for (String mode : new String[] {"busy", "blocking"}) {
                    String[][] baselines = mode.equals("busy")
                            ? new String[][] {{"udp-busy", "NIO UDP busy"}, {"aeron-busy", "Aeron UDP busy"}}
                            : new String[][] {{"udp-blocking", "NIO UDP blocking"}};
                    for (String[] b : baselines) {
                        rows.add(new Row("send-lat 2 B " + mode, "p50 half RTT us",
                                r.median("jrdma-" + mode, Figures::p50Micros), b[1], r.median(b[0], Figures::p50Micros),
                                Row.Goal.AT_MOST));
                        rows.add(new Row("send-lat 2 B " + mode, "p99 half RTT us",
                                r.median("jrdma-" + mode, Figures::p99Micros), b[1], r.median(b[0], Figures::p99Micros),
                                Row.Goal.AT_MOST));
                    }
                }
            }
            case MSG_RATE -> {
                double j = r.median("jrdma", Figures::messagesPerSecond);
                rows.add(new Row("msg-rate 2 B", "msg/s", j, "goal", 1e6, Row.Goal.AT_LEAST));
                rows.add(new Row("msg-rate 2 B", "msg/s", j, "NIO TCP write/msg",
                        r.median("tcp-each", Figures::messagesPerSecond), Row.Goal.INFO));
                rows.add(new Row("msg-rate 2 B", "msg/s", j, "NIO TCP buffered",
                        r.median("tcp-buffered", Figures::messagesPerSecond), Row.Goal.INFO));
                rows.add(new Row("msg-rate 2 B", "msg/s", j, "Aeron UDP", r.median("aeron", Figures::messagesPerSecond),
                        Row.Goal.INFO));
            }
            case READ_BW -> {
                for (String tag : new String[] {"64k", "1m"}) {
                    String size = tag.equals("1m") ? "1 MiB" : "64 KiB";
                    rows.add(new Row("read-bw " + size, "MB/s", r.median("jrdma-" + tag, Figures::mbPerSecond),
                            "NIO TCP " + size, r.median("tcp-" + tag, Figures::mbPerSecond), Row.Goal.INFO));
                }
            }
            case QP_SCALING -> {
                for (String op : new String[] {"write", "read"}) {
                    double one = r.median(op + "-q1", Figures::mbPerSecond);
                    for (int qps : QP_COUNTS) {
                        if (qps > 1) {
                            rows.add(new Row(op + "-bw 64 KiB, " + qps + " QPs", "MB/s",
                                    r.median(op + "-q" + qps, Figures::mbPerSecond), "jrdma 1 QP", one, Row.Goal.INFO));
                        }
                    }
                }
            }
            case IDLE -> idleRows(r, rows);
            default -> throw new IllegalArgumentException("no rows for " + s);
        }
        return rows;
    }
}
