package io.jrdma.tools.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The runner's arithmetic and formatting: percentiles, medians, derived figures, verdicts, tables, options. */
class BenchPartsTest {

    @Test
    void latenciesAreHalfRoundTripsAtNearestRank() {
        Latencies l = new Latencies(100);
        for (int i = 1; i <= 100; i++) {
            l.add(i * 2_000L); // round trips of 2..200 us
        }
        assertTrue(l.full());
        assertEquals("samples=100 p50_ns=50000.0 p90_ns=90000.0 p99_ns=99000.0 p999_ns=100000.0", l.fields());
        assertEquals(7, Latencies.percentile(new long[] {7}, 99));
        assertEquals(3, Latencies.percentile(new long[] {1, 2, 3, 4}, 75));
        assertThrows(IllegalStateException.class, () -> new Latencies(4).fields());
    }

    @Test
    void medianOfOddAndEvenCountsAndNoneIsNaN() {
        assertEquals(3.0, Cases.Results.median(new double[] {5, 1, 3}));
        assertEquals(2.5, Cases.Results.median(new double[] {4, 1, 3, 2}));
        assertTrue(Double.isNaN(Cases.Results.median(new double[0])));
    }

    @Test
    void figuresDeriveRatesFromTheMeasuringSide() {
        Params server = Params.parse("msgs=1000 bytes=65536000 ns=500000000 cpu_ns=250000000 wall_ns=500000000"
                .split(" "), 0);
        Params client = Params.parse("cpu_ns=500000000 wall_ns=500000000 msgs_sent=1100".split(" "), 0);
        Figures f = new Figures(server, client);
        assertEquals(131.072, f.mbPerSecond(), 1e-9);
        assertEquals(2000.0, f.messagesPerSecond(), 1e-9);
        assertEquals(1.5, f.cpus(), 1e-12);
        assertEquals(131.072 / 1.5, f.mbPerCpuSecond(), 1e-9);
        Figures lat = new Figures(Params.parse(new String[] {"echoed=1"}, 0),
                Params.parse("samples=10 p50_ns=2500.0 p99_ns=9000.0".split(" "), 0));
        assertEquals(2.5, lat.p50Micros(), 1e-12);
        assertEquals(9.0, lat.p99Micros(), 1e-12);
    }

    @Test
    void verdictsFollowTheGoalDirection() {
        assertEquals("PASS", new Row("s", "m", 2, "b", 1, Row.Goal.AT_LEAST).verdict());
        assertEquals("FAIL", new Row("s", "m", 0.5, "b", 1, Row.Goal.AT_LEAST).verdict());
        assertEquals("PASS", new Row("s", "m", 0.5, "b", 1, Row.Goal.AT_MOST).verdict());
        assertEquals("FAIL", new Row("s", "m", 2, "b", 1, Row.Goal.AT_MOST).verdict());
        assertEquals("info", new Row("s", "m", 2, "b", 1, Row.Goal.INFO).verdict());
        assertEquals("ERROR", new Row("s", "m", Double.NaN, "b", 1, Row.Goal.AT_LEAST).verdict());
        assertEquals("ERROR", new Row("s", "m", 1, "b", 0, Row.Goal.AT_LEAST).verdict());
    }

    @Test
    void absoluteAndMarginGoals() {
        Row cpu = new Row("idle", "% of a core", 0.4, "NIO UDP", 0.0, Row.Goal.BELOW, 1.0);
        assertEquals("PASS", cpu.verdict()); // a baseline of 0 leaves no ratio, but the goal is jrdma's alone
        assertEquals("< 1", cpu.goalText());
        assertEquals("FAIL", new Row("idle", "%", 1.0, "b", 0.1, Row.Goal.BELOW, 1.0).verdict());
        assertEquals("ERROR", new Row("idle", "%", Double.NaN, "b", 0.1, Row.Goal.BELOW, 1.0).verdict());
        Row wake = new Row("wake", "p99 us", 120, "NIO UDP", 70, Row.Goal.WITHIN, 50);
        assertEquals("PASS", wake.verdict());
        assertEquals("\u2264 base + 50", wake.goalText());
        assertEquals("FAIL", new Row("wake", "p99 us", 120.5, "b", 70, Row.Goal.WITHIN, 50).verdict());
        assertEquals("ERROR", new Row("wake", "p99 us", 120, "b", Double.NaN, Row.Goal.WITHIN, 50).verdict());
        assertEquals("\u2265 1.0", new Row("s", "m", 2, "b", 1, Row.Goal.AT_LEAST).goalText());
        String csv = print(out -> Table.csv(out, List.of(cpu, wake)));
        assertTrue(csv.contains("\nidle,% of a core,0.400000,NIO UDP,0.00000,,below 1,PASS\n"), csv);
        assertTrue(csv.contains("\nwake,p99 us,120.000,NIO UDP,70.0000,1.71429,within 50,PASS\n"), csv);
        String text = print(out -> Table.text(out, List.of(cpu)));
        assertTrue(text.contains("0.40  NIO UDP             0.00    n/a  < 1   PASS"), text);
        assertEquals("0.081", Table.number(0.0812));
    }

    @Test
    void idleFiguresAndWakeUpGaps() {
        Params server = Params.parse("idle_cpu_ns=20000000 idle_wall_ns=10000000000".split(" "), 0);
        Params client = Params.parse(("idle_cpu_ns=50000000 idle_wall_ns=10000000000 busy_samples=9 busy_p50_ns=20000 "
                + "busy_p99_ns=30000 wake_samples=200 wake_p50_ns=41000 wake_p90_ns=50000 wake_p99_ns=95000 "
                + "wake_max_ns=99000").split(" "), 0);
        Figures f = new Figures(server, client);
        assertEquals(0.5, f.idleCpuPercent(), 1e-12); // the busier process: the client's 50 ms over 10 s
        assertEquals(0.2, Figures.idlePercent(server), 1e-12);
        assertEquals(41.0, f.wakeP50Micros(), 1e-12);
        assertEquals(95.0, f.wakeP99Micros(), 1e-12);
        assertEquals("idle CPU 0.200 % (server), 0.500 % (client) of a core; RTT busy p50 20.0 us, after idle gaps "
                + "p50 41.0 us, p99 95.0 us", f.summary("idle"));

        long[] gaps = IdleBench.gapsNs(500);
        assertEquals(500, gaps.length);
        for (long g : gaps) {
            assertTrue(g >= 2_000_000 && g <= 5_000_000, "gap " + g);
        }
        assertTrue(java.util.Arrays.equals(gaps, IdleBench.gapsNs(500)), "the same gaps for every case");
        for (long i : new long[] {0, 0x7FFF, 0xFFFE, 0xFFFF, 1L << 20}) {
            short v = IdleBench.value(i);
            assertTrue(v != IdleBench.PHASE && v != IdleBench.STOP, "value of " + i);
        }
        assertEquals("wake_samples=4 wake_p50_ns=20 wake_p90_ns=40 wake_p99_ns=40 wake_max_ns=40",
                IdleBench.wakeFields(new long[] {40, 10, 30, 20}));
        // settle, idle spell, the warm-up's gaps at most, the wake phase's
        assertEquals(50 + IdleBench.REHEARSAL_MS + 100 * 1_500 / 1_000 + 20 * 5, IdleBench.extraMs(true));
        assertEquals(5_000, IdleBench.leastWarmWakes(false));
    }

    @Test
    void tablesInTextMarkdownAndCsv() {
        List<Row> rows = List.of(new Row("write-bw 64 KiB", "MB/s", 812.34, "NIO TCP", 2301.5, Row.Goal.AT_LEAST),
                new Row("cpu, write", "MB per CPU-s", Double.NaN, "Aeron", 5.5, Row.Goal.INFO));
        String text = print(out -> Table.text(out, rows));
        assertTrue(text.contains("write-bw 64 KiB  MB/s"), text);
        assertTrue(text.contains("812  NIO TCP"), text);
        assertTrue(text.contains("2,302   0.35  \u2265 1.0  FAIL"), text);
        assertTrue(text.contains("n/a  Aeron"), text);
        String md = print(out -> Table.markdown(out, rows));
        assertTrue(md.startsWith("| scenario | metric | jrdma | baseline | baseline value | ratio | goal | result |\n"
                + "|---|---|---:|---|---:|---:|---|---|\n| write-bw 64 KiB | MB/s | 812 | NIO TCP | 2,302 | 0.35 |"),
                md);
        String csv = print(out -> Table.csv(out, rows));
        assertTrue(csv.contains("\nwrite-bw 64 KiB,MB/s,812.340,NIO TCP,2301.50,0.352961,at_least,FAIL\n"), csv);
        assertTrue(csv.contains("\n\"cpu, write\",MB per CPU-s,,Aeron,5.50000,,info,ERROR\n"), csv);
        assertEquals("8.12", Table.number(8.123));
        assertEquals("81.2", Table.number(81.23));
    }

    @Test
    void threadingPerScenarioOverTheDefaults() {
        Map<Scenario, String> d = BenchCommand.DEFAULT_THREADING;
        Set<String> modes = Set.of("INVOKER", "DEDICATED");
        Map<Scenario, String> all = BenchCommand.perScenario(List.of("dedicated"), d, modes, "-t");
        for (Scenario s : Scenario.values()) {
            assertEquals("DEDICATED", all.get(s));
        }
        Map<Scenario, String> one = BenchCommand.perScenario(List.of("send-lat=DEDICATED"), d, modes, "-t");
        assertEquals("DEDICATED", one.get(Scenario.SEND_LAT));
        assertEquals(d.get(Scenario.WRITE_BW), one.get(Scenario.WRITE_BW));
        assertThrows(IllegalArgumentException.class,
                () -> BenchCommand.perScenario(List.of("nope=INVOKER"), d, modes, "-t"));
    }

    @Test
    void paramsRefuseWordsWithoutValues() {
        assertThrows(IllegalArgumentException.class, () -> Params.parse(new String[] {"size"}, 0));
        Params p = Params.parse(new String[] {"size=65536", "mode=busy"}, 0).with("qps", 2);
        assertEquals(65536, p.integer("size"));
        assertEquals(2, p.integer("qps"));
        assertEquals(List.of("size=65536", "mode=busy", "qps=2"), p.words());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.lng("depth"));
        assertEquals("missing parameter depth", e.getMessage());
    }

    private interface Printer {
        void print(PrintStream out);
    }

    private static String print(Printer p) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8)) {
            p.print(out);
        }
        return b.toString(StandardCharsets.UTF_8);
    }
}
