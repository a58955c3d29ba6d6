package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Counter;
import io.jrdma.soft.CountersFile;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code jrdma stat} and {@code jrdma monitor} across processes: counters written by one JVM and read by another,
 * in both directions, stale files of a killed process, and the monitor's report lines.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatCommandTest {

    private static final Pattern STAT_LINE = Pattern.compile("^    (\\w+)\\s+(\\d+)$", Pattern.MULTILINE);

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void useTempDir() {
        System.setProperty("jrdma.counters.dir", dir.toString());
    }

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.counters.dir");
        System.clearProperty("jrdma.devices");
    }

    @Test
    void shouldPrintTheCountersOfADeviceInAnotherProcess() throws Exception {
        Process child = java(CountersChild.class.getName(), "child-a", "127.0.39.1", "child-b", "127.0.39.2");
        try {
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            String ready = from.readLine();
            assertTrue(ready != null && ready.startsWith("ready "), "child said: " + ready);
            Map<String, Long> expected = new LinkedHashMap<>();
            for (String kv : ready.substring(6).split(" ")) {
                String[] p = kv.split("=");
                expected.put(p[0], Long.parseLong(p[1]));
            }

            assertEquals(0, command().execute("stat", "-d", "child-a"), err.toString());
            String text = out.toString();
            assertTrue(text.startsWith("link child-a/1 address 127.0.39.1 pid " + child.pid() + " up "), text);
            Map<String, Long> printed = parse(text);
            assertEquals(expected, sortedLike(printed, expected), text);
            assertEquals(List.of("port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
                    "sent_pkts"), new ArrayList<>(printed.keySet()).subList(0, 5), "port counters first, then rxe's");
            assertTrue(printed.get("port_xmit_data") > 50_000 && printed.get("port_xmit_packets") >= 50, text);
            assertEquals(printed.get("sent_pkts"), printed.get("port_xmit_packets"));

            System.setProperty("jrdma.devices", "child-a=127.0.39.1");
            out.getBuffer().setLength(0);
            assertEquals(0, command().execute("link", "show"), err.toString());
            assertEquals("link child-a/1 state ACTIVE physical_state LINK_UP netdev lo address 127.0.39.1 open_by pid "
                    + child.pid() + "\n", out.toString());

            PrintWriterTo to = new PrintWriterTo(child);
            to.send("halt"); // dies as if killed: its files stay behind, never marked closed
            assertTrue(child.waitFor(10, TimeUnit.SECONDS));
            out.getBuffer().setLength(0);
            err.getBuffer().setLength(0);
            assertEquals(1, command().execute("stat", "-d", "child-a"));
            assertTrue(err.toString().contains("process " + child.pid() + " exited without closing child-a"),
                    err.toString());
            assertTrue(err.toString().contains("child-a is not open in any running process"), err.toString());
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void shouldLetAnotherProcessReadTheCountersOfThisOne() throws Exception {
        try (Traffic t = new Traffic("here-a", "127.0.39.3", "here-b", "127.0.39.4")) {
            t.write(100_000);
            Process stat = java(Jrdma.class.getName(), "stat", "-d", "here-b");
            String text = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String errors = new String(stat.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(stat.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, stat.exitValue(), errors);
            Map<String, Long> printed = parse(text);
            for (Counter c : Counter.values()) {
                assertEquals(t.b.context().counters().get(c), printed.get(c.rxeName()), c.rxeName() + "\n" + text);
            }
            assertEquals(98, printed.get("port_rcv_packets"), "100000 bytes in packets of 1024\n" + text);
        }
        assertEquals(List.of(), CountersFile.list(dir), "closing the devices removed their files");
        assertEquals(0, command().execute("stat"));
        assertTrue(err.toString().contains("no soft device is open"), err.toString());
    }

    @Test
    void shouldPrintRatesEveryIntervalWithTheMonitor() throws Exception {
        try (Traffic t = new Traffic("mon-a", "127.0.39.5", "mon-b", "127.0.39.6")) {
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    while (!stop.get()) {
                        t.write(Traffic.BUFFER);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                assertEquals(0, command().execute("monitor", "-c", "2", "0.3"), err.toString());
            } finally {
                stop.set(true);
                writer.join(10_000);
            }
        }
        List<String> lines = out.toString().lines().toList();
        assertEquals(MonitorCommand.header(), lines.getFirst());
        assertEquals(5, lines.size(), "a header, then two reports of two devices:\n" + out);
        Pattern row = Pattern.compile("(\\d\\d:\\d\\d:\\d\\d)  (mon-[ab])\\s+([0-9.]+) +([0-9.]+) +([0-9.]+) +([0-9.]+)");
        double txA = 0;
        double rxB = 0;
        for (String line : lines.subList(1, lines.size())) {
            Matcher m = row.matcher(line);
            assertTrue(m.matches(), line);
            if (m.group(2).equals("mon-a")) {
                txA += Double.parseDouble(m.group(5));
            } else {
                rxB += Double.parseDouble(m.group(3));
            }
        }
        assertTrue(txA > 0 && rxB > 0, "a sends, b receives:\n" + out);
        assertEquals("mon-a                  1.00       2.00       3.00       0.50",
                MonitorCommand.line("mon-a", 2_000_000, 4000, 6_000_000, 1000, 2.0));
    }

    @Test
    void shouldRejectABadIntervalBadFlow() {
        assertEquals(1, command().execute("monitor", "0"));
        assertTrue(err.toString().contains("INTERVAL must be more than 0"), err.toString());
        assertEquals(2, command().execute("monitor", "fast"));
    }

    private Process java(String main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", ChildClassPath.get(),
                "-Djrdma.counters.dir=" + dir, main));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.PIPE).start();
    }

    private static Map<String, Long> parse(String text) {
        Map<String, Long> m = new LinkedHashMap<>();
        Matcher matcher = STAT_LINE.matcher(text);
        while (matcher.find()) {
            m.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        }
        return m;
    }

    private static Map<String, Long> sortedLike(Map<String, Long> m, Map<String, Long> order) {
        Map<String, Long> out = new LinkedHashMap<>();
        order.keySet().forEach(k -> out.put(k, m.get(k)));
        return out;
    }

    private CommandLine command() {
        return Jrdma.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
    }

    /** Lines to a child's stdin. */
    private record PrintWriterTo(Process child) {
        void send(String line) throws IOException {
            child.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            child.getOutputStream().flush();
        }
    }
}
