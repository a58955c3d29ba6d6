package io.jrdma.tools.compare;

import io.jrdma.tools.compare.Cases.Case;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrdma bench}: jrdma against the baselines a Java engineer would otherwise use — NIO TCP/UDP and Aeron —
 * each case as two child processes on loopback, alternating systems within each repetition, one table of medians
 * with ratios and verdicts against the performance goals. Exit status: 0 when every run succeeded (whatever the
 * verdicts), 1 when a run failed (a child error, timeout or data verification failure), 2 on bad usage.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs jrdma and its baselines (Java NIO TCP/UDP, Aeron UDP) as pairs of child processes on "
                + "loopback and prints one table: the jrdma figure, the baseline figure, their ratio and the verdict "
                + "against the goal. Scenarios: write-bw, send-lat, msg-rate, read-bw, qp-scaling, idle."})
public final class BenchCommand implements Callable<Integer> {

    /**
     * The engine threading each scenario uses unless told otherwise: the library's default, so the figures are what a
     * program gets that does not choose (docs/benchmarks/contention.md says why it is the default).
     */
    static final Map<Scenario, String> DEFAULT_THREADING = defaults("ADAPTIVE", "ADAPTIVE", "ADAPTIVE", "ADAPTIVE",
            "ADAPTIVE", "ADAPTIVE");
    /**
     * The Aeron media driver's threading mode each scenario uses unless told otherwise: a shared driver thread with a
     * backoff idle strategy for the streams, one busy thread per process (INVOKER) for ping-pong (see
     * docs/benchmarks/nio-aeron.md); read-bw, qp-scaling and idle have no Aeron case.
     */
    static final Map<Scenario, String> DEFAULT_AERON_THREADING = defaults("SHARED", "INVOKER", "SHARED",
            "INVOKER", "INVOKER", "INVOKER");

    @Option(names = "--quick", description = "tiny runs (for tests): 0.1 s warm-up, 0.2 s measured, 1 repetition, "
            + "shallow queues")
    private boolean quick;

    @Option(names = {"-d", "--duration"}, paramLabel = "SECONDS",
            description = "measured interval of each run (default 3, --quick 0.2); the idle scenario's idle "
                    + "interval (default 10, --quick 0.2)")
    private Double duration;

    @Option(names = {"-w", "--warmup"}, paramLabel = "SECONDS",
            description = "warm-up before each measured interval (default 1, --quick 0.1); it goes on while a "
                    + "latency case's client's JIT compiler, or either side's of a stream, still works, at most 5 s "
                    + "more")
    private Double warmup;

    @Option(names = {"-n", "--iterations"}, paramLabel = "N",
            description = "most round trips measured per latency run (default 1000000, --quick 5000)")
    private Integer iterations;

    @Option(names = {"-r", "--repeat"}, paramLabel = "N",
            description = "runs of each case, alternating systems; the table shows the median (default 3, --quick 1)")
    private Integer repeat;

    @Option(names = "--only", split = ",", paramLabel = "SCENARIO",
            description = "run only these scenarios: write-bw, send-lat, msg-rate, read-bw, qp-scaling, idle")
    private List<String> only = new ArrayList<>();

    @Option(names = {"-t", "--threading"}, split = ",", paramLabel = "[SCENARIO=]MODE",
            description = "jrdma engine threading, ADAPTIVE, INVOKER or DEDICATED, for all scenarios or per "
                    + "scenario (default ADAPTIVE everywhere, the library's default; idle needs an engine thread: "
                    + "not INVOKER)")
    private List<String> threading = new ArrayList<>();

    @Option(names = "--aeron-threading", split = ",", paramLabel = "[SCENARIO=]MODE",
            description = "Aeron media driver threading: INVOKER, SHARED, SHARED_NETWORK or DEDICATED "
                    + "(default SHARED for write-bw and msg-rate, INVOKER for send-lat)")
    private List<String> aeronThreading = new ArrayList<>();

    @Option(names = "--aeron-mtu", defaultValue = "8192", paramLabel = "BYTES",
            description = "Aeron MTU (default 8192)")
    private int aeronMtu;

    @Option(names = "--markdown", description = "print the table as Markdown (for BENCHMARKS.md)")
    private boolean markdown;

    @Option(names = "--csv", paramLabel = "FILE", description = "also write the table as CSV to FILE")
    private Path csv;

    @Option(names = "--server-address", defaultValue = "127.0.52.1", paramLabel = "ADDR",
            description = "the server child's loopback address (default 127.0.52.1)")
    private String serverAddress;

    @Option(names = "--client-address", defaultValue = "127.0.52.2", paramLabel = "ADDR",
            description = "the client child's loopback address (default 127.0.52.2)")
    private String clientAddress;

    @Option(names = "--port", defaultValue = "18600", paramLabel = "PORT",
            description = "TCP port of the children's control connection; the TCP/UDP baselines use PORT+1 "
                    + "(default 18600)")
    private int port;

    @Option(names = "--aeron-port", defaultValue = "40100", paramLabel = "PORT",
            description = "UDP port of the Aeron streams, and PORT+1 (default 40100)")
    private int aeronPort;

    @Option(names = "--timeout", defaultValue = "60", paramLabel = "SECONDS",
            description = "time a run may take besides warm-up and measurement before it is killed (default 60)")
    private double timeout;

    @Option(names = "--jvm-arg", paramLabel = "FLAG", description = "an extra flag for the child JVMs (repeatable)")
    private List<String> jvmArgs = new ArrayList<>();

    @Option(names = {"-v", "--verbose"},
            description = "print every run's result lines and what the children printed (jrdma's device counters)")
    private boolean verbose;

    @Option(names = "--load", defaultValue = "0", paramLabel = "N",
            description = "run N busy-loop processes beside every case (CPU contention), stopped after the last "
                    + "(default 0)")
    private int load;

    @Option(names = "--test-corrupt", split = ",", hidden = true,
            description = "test hook: the senders of these systems corrupt one message")
    private Set<String> corrupt = new LinkedHashSet<>();

    private final PrintStream out;
    private final PrintStream err;

    /** Used by picocli: prints to System.out and System.err. */
    public BenchCommand() {
        this(System.out, System.err);
    }

    BenchCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        BenchConfig c;
        try {
            c = config();
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            return 2;
        }
        List<String> failures = new ArrayList<>();
        List<Row> rows = new ArrayList<>();
        int total = 0;
        long budgetMs = 0; // what every run may take, and one more: the bound of the load processes
        for (Scenario s : c.scenarios()) {
            int runs = Cases.of(s, c).size() * c.repeat();
            total += runs;
            budgetMs += (runs + 1) * c.childTimeoutMs(s);
        }
        try (CpuLoad busy = CpuLoad.start(c.load(), budgetMs)) {
            runAll(c, total, failures, rows);
            if (c.load() > 0) {
                err.println(busy.describe());
            }
        }
        out.println(header(c));
        if (markdown) {
            Table.markdown(out, rows);
        } else {
            Table.text(out, rows);
        }
        out.flush();
        if (csv != null) {
            try (PrintStream f = new PrintStream(Files.newOutputStream(csv), true, StandardCharsets.UTF_8)) {
                Table.csv(f, rows);
            } catch (IOException e) {
                err.println("bench: cannot write " + csv + ": " + e.getMessage());
                return 1;
            }
        }
        if (!failures.isEmpty()) {
            err.println("bench: " + failures.size() + " run(s) failed:");
            failures.forEach(f -> err.println("  " + f));
            return 1;
        }
        return 0;
    }

    /** Runs every scenario's cases {@code repeat} times, printing progress; fills {@code failures} and {@code rows}. */
    private void runAll(BenchConfig c, int total, List<String> failures, List<Row> rows) {
        int done = 0;
        for (Scenario s : c.scenarios()) {
            List<Case> cases = Cases.of(s, c);
            Map<String, List<Figures>> results = new LinkedHashMap<>();
            for (int rep = 1; rep <= c.repeat(); rep++) {
                // one pair of JVMs per case; --quick runs all of a scenario's cases in one pair
                int batch = c.quick() ? cases.size() : 1;
                for (int from = 0; from < cases.size(); from += batch) {
                    List<Case> group = cases.subList(from, Math.min(cases.size(), from + batch));
                    List<Params> params = new ArrayList<>();
                    for (Case k : group) {
                        Params p = c.corrupt().contains(k.system())
                                ? k.params().with("corrupt", BenchConfig.CORRUPT_MESSAGE) : k.params();
                        params.add(verbose ? p.with("debug", true).with("trace", true) : p);
                    }
                    List<ChildPair.Outcome> outcomes = ChildPair.run(c, params,
                            c.childTimeoutMs(s) * group.size());
                    for (int i = 0; i < group.size(); i++) {
                        Case k = group.get(i);
                        ChildPair.Outcome o = outcomes.get(i);
                        done++;
                        String where = String.format(Locale.ROOT, "[%d/%d] %s %s (run %d/%d)", done, total, s.id,
                                k.label(), rep, c.repeat());
                        if (o.ok()) {
                            results.computeIfAbsent(k.key(), x -> new ArrayList<>()).add(o.figures());
                            err.println(where + ": " + o.figures().summary(k.params().str("workload")));
                            if (verbose) {
                                err.println("    " + o.figures() + "; " + o.notes());
                            }
                        } else {
                            failures.add(where + ": " + o.error());
                            err.println(where + ": FAILED: " + o.error());
                        }
                    }
                }
            }
            rows.addAll(Cases.rows(s, new Cases.Results(results)));
        }
    }

    private BenchConfig config() {
        List<Scenario> scenarios = new ArrayList<>();
        if (only.isEmpty()) {
            scenarios.addAll(List.of(Scenario.values()));
        } else {
            for (String id : only) {
                Scenario s = Scenario.of(id);
                if (!scenarios.contains(s)) {
                    scenarios.add(s);
                }
            }
            scenarios.sort(null); // table order
        }
        long w = millis(warmup, quick ? 0.1 : 1, "--warmup", 0);
        long d = millis(duration, quick ? 0.2 : 3, "--duration", 1);
        long idle = millis(duration, quick ? 0.2 : 10, "--duration", 1);
        int n = iterations != null ? iterations : quick ? 5_000 : 1_000_000;
        int r = repeat != null ? repeat : quick ? 1 : 3;
        if (n < 1 || n > 50_000_000) {
            throw new IllegalArgumentException("--iterations must be 1..50000000");
        }
        if (r < 1 || r > 100) {
            throw new IllegalArgumentException("--repeat must be 1..100");
        }
        checkLoopback(serverAddress, "--server-address");
        checkLoopback(clientAddress, "--client-address");
        if (serverAddress.equals(clientAddress)) {
            throw new IllegalArgumentException("--server-address and --client-address must differ: each process "
                    + "binds its own soft device (UDP port 4791) on its address");
        }
        checkPort(port, "--port");
        checkPort(aeronPort, "--aeron-port");
        if (aeronMtu < 1024 || aeronMtu > 65504 || aeronMtu % 32 != 0) {
            throw new IllegalArgumentException("--aeron-mtu must be a multiple of 32 in 1024..65504");
        }
        if (!(timeout > 0 && timeout <= 3600)) {
            throw new IllegalArgumentException("--timeout must be in (0, 3600] seconds");
        }
        if (load < 0 || load > 16) {
            throw new IllegalArgumentException("--load must be 0..16 busy processes");
        }
        Map<Scenario, String> modes = perScenario(threading, DEFAULT_THREADING, Set.of("ADAPTIVE", "INVOKER",
                "DEDICATED"), "--threading");
        if (scenarios.contains(Scenario.IDLE) && modes.get(Scenario.IDLE).equals("INVOKER")) {
            throw new IllegalArgumentException("--threading: the idle scenario needs an engine thread (ADAPTIVE or "
                    + "DEDICATED): with INVOKER a sleeping application leaves its peer unanswered (add idle=ADAPTIVE "
                    + "or leave idle out)");
        }
        for (String sys : corrupt) {
            if (!Set.of("jrdma", "tcp", "udp", "aeron").contains(sys)) {
                throw new IllegalArgumentException("--test-corrupt: unknown system " + sys);
            }
        }
        return new BenchConfig(List.copyOf(scenarios), w, d, n, r, serverAddress, clientAddress, port, aeronPort,
                (long) (timeout * 1000), modes, perScenario(aeronThreading, DEFAULT_AERON_THREADING,
                Set.of("INVOKER", "SHARED", "SHARED_NETWORK", "DEDICATED"), "--aeron-threading"), aeronMtu,
                List.copyOf(jvmArgs), Set.copyOf(corrupt), quick, load, idle);
    }

    private static long millis(Double seconds, double dflt, String name, long min) {
        double s = seconds != null ? seconds : dflt;
        if (!(s * 1000 >= min) || s > 3600) {
            throw new IllegalArgumentException(name + " must be between " + min / 1000.0 + " and 3600 seconds");
        }
        return Math.round(s * 1000);
    }

    /** Both children run on this machine: their addresses are IPv4 loopback addresses (127.0.0.0/8). */
    private static void checkLoopback(String address, String name) {
        String[] parts = address.split("\\.", -1);
        boolean ok = parts.length == 4 && parts[0].equals("127");
        for (int i = 0; ok && i < 4; i++) {
            ok = parts[i].matches("[0-9]{1,3}") && Integer.parseInt(parts[i]) <= 255;
        }
        if (!ok) {
            throw new IllegalArgumentException(name + " must be an IPv4 loopback address (127.x.y.z), not '" + address
                    + "'");
        }
    }

    private static void checkPort(int p, String name) {
        if (p < 1 || p > 65534) {
            throw new IllegalArgumentException(name + " must be 1..65534");
        }
    }

    /** Parses {@code MODE} or {@code SCENARIO=MODE} items over the defaults. */
    static Map<Scenario, String> perScenario(List<String> items, Map<Scenario, String> defaults, Set<String> modes,
            String option) {
        Map<Scenario, String> m = new EnumMap<>(defaults);
        for (String item : items) {
            int eq = item.indexOf('=');
            String mode = (eq < 0 ? item : item.substring(eq + 1)).trim().toUpperCase(Locale.ROOT);
            if (!modes.contains(mode)) {
                throw new IllegalArgumentException(option + ": unknown mode '" + mode + "' (known: "
                        + String.join(", ", new java.util.TreeSet<>(modes)) + ")");
            }
            if (eq < 0) {
                m.replaceAll((s, v) -> mode);
            } else {
                m.put(Scenario.of(item.substring(0, eq)), mode);
            }
        }
        return m;
    }

    private static Map<Scenario, String> defaults(String... modes) {
        Map<Scenario, String> m = new EnumMap<>(Scenario.class);
        for (Scenario s : Scenario.values()) {
            m.put(s, modes[s.ordinal()]);
        }
        return m;
    }

    /** One line on what ran where: the machine, the JDK, timing, repetitions, threading. */
    static String header(BenchConfig c) {
        List<Scenario> withAeron = new ArrayList<>(c.scenarios());
        withAeron.retainAll(List.of(Scenario.WRITE_BW, Scenario.SEND_LAT, Scenario.MSG_RATE));
        String aeron = withAeron.isEmpty() ? ""
                : "; Aeron driver " + modes(c.aeronThreading(), withAeron) + ", mtu " + c.aeronMtu();
        return String.format(Locale.ROOT, "jrdma bench: %s; warm-up %.1f s, measured %.1f s, median of %d run(s); "
                + "jrdma threading %s%s%s", Machine.describe(), c.warmupMs() / 1000.0, c.durationMs() / 1000.0,
                c.repeat(), modes(c.threading(), c.scenarios()), aeron,
                c.quick() ? "; --quick (figures meaningless)" : "")
                + (c.scenarios().contains(Scenario.IDLE) ? String.format(Locale.ROOT, "; idle interval %.1f s",
                        c.idleMs() / 1000.0) : "")
                + (c.load() == 0 ? "" : "; --load " + c.load() + " (busy-loop processes beside every case)");
    }

    private static String modes(Map<Scenario, String> m, List<Scenario> scenarios) {
        Set<String> distinct = new LinkedHashSet<>();
        for (Scenario s : scenarios) {
            distinct.add(m.get(s));
        }
        if (distinct.size() == 1) {
            return distinct.iterator().next();
        }
        StringBuilder sb = new StringBuilder();
        for (Scenario s : scenarios) {
            sb.append(sb.isEmpty() ? "" : ",").append(s.id).append('=').append(m.get(s));
        }
        return sb.toString();
    }
}
