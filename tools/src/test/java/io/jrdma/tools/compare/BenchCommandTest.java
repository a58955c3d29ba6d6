package io.jrdma.tools.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code jrdma bench} end to end: real child JVMs on 127.0.53.1 and 127.0.53.2, real jrdma, TCP, UDP and Aeron
 * traffic, tiny durations. Every scenario must give every row of the table with positive figures, and a sender that
 * corrupts one message must make the run fail with the child's verification message.
 */
class BenchCommandTest {

    private static final String[] ADDRESSES = {"--server-address", "127.0.53.1", "--client-address", "127.0.53.2",
        "--port", "18650", "--aeron-port", "40150", "--timeout", "40"};

    /** Exit status, stdout and stderr of one run of the command. */
    private record Run(int status, String out, String err) {
        String all() {
            return "exit " + status + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    private static Run bench(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(ADDRESSES));
        all.addAll(List.of(args));
        int status;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            CommandLine cl = new CommandLine(new BenchCommand(o, e));
            cl.setErr(new java.io.PrintWriter(e, true));
            cl.setOverwrittenOptionsAllowed(true); // a test's own option overrides the defaults above
            status = cl.execute(all.toArray(String[]::new));
        }
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void quickRunOfEveryScenarioGivesEveryRowWithFigures(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("bench.csv");
        Run r = bench("--quick", "--csv", csv.toString());
        assertEquals(0, r.status(), r.all());
        List<String> lines = Files.readAllLines(csv);
        assertEquals("scenario,metric,jrdma,baseline,baseline_value,ratio,goal,result", lines.get(0));
        List<String> rows = lines.subList(1, lines.size());
        String[] expected = {
            "write-bw 64 KiB,MB/s,NIO TCP", "write-bw 64 KiB,MB/s,Aeron UDP",
            "\"cpu, write-bw 64 KiB\",MB per CPU-s,NIO TCP", "\"cpu, write-bw 64 KiB\",MB per CPU-s,Aeron UDP",
            "send-lat 2 B busy,p50 half RTT us,NIO UDP busy", "send-lat 2 B busy,p99 half RTT us,NIO UDP busy",
            "send-lat 2 B busy,p50 half RTT us,Aeron UDP busy", "send-lat 2 B busy,p99 half RTT us,Aeron UDP busy",
            "send-lat 2 B blocking,p50 half RTT us,NIO UDP blocking",
            "send-lat 2 B blocking,p99 half RTT us,NIO UDP blocking",
            "msg-rate 2 B,msg/s,goal", "msg-rate 2 B,msg/s,NIO TCP write/msg", "msg-rate 2 B,msg/s,NIO TCP buffered",
            "msg-rate 2 B,msg/s,Aeron UDP",
            "read-bw 64 KiB,MB/s,NIO TCP 64 KiB", "read-bw 1 MiB,MB/s,NIO TCP 1 MiB",
            "\"write-bw 64 KiB, 2 QPs\",MB/s,jrdma 1 QP", "\"write-bw 64 KiB, 4 QPs\",MB/s,jrdma 1 QP",
            "\"write-bw 64 KiB, 8 QPs\",MB/s,jrdma 1 QP", "\"read-bw 64 KiB, 2 QPs\",MB/s,jrdma 1 QP",
            "\"read-bw 64 KiB, 4 QPs\",MB/s,jrdma 1 QP", "\"read-bw 64 KiB, 8 QPs\",MB/s,jrdma 1 QP"};
        List<String> all = new ArrayList<>(List.of(expected));
        all.addAll(List.of(IDLE_ROWS));
        assertEquals(all.size(), rows.size(), r.all());
        for (int i = 0; i < all.size(); i++) {
            List<String> f = csvFields(rows.get(i));
            String key = String.join(",", quoteIfComma(f.get(0)), quoteIfComma(f.get(1)), f.get(3));
            assertEquals(all.get(i), key, r.all());
            if (i >= expected.length) {
                checkIdleRow(f, r); // an idle CPU figure may be 0, its ratio then none
                continue;
            }
            for (int col : new int[] {2, 4, 5}) {
                double v = Double.parseDouble(f.get(col));
                assertTrue(v > 0 && Double.isFinite(v), "row " + rows.get(i) + "\n" + r.all());
            }
            assertFalse(f.get(7).equals("ERROR"), rows.get(i));
        }
        // the text table went to stdout, with the machine line first
        assertTrue(r.out().startsWith("jrdma bench: "), r.all());
        assertTrue(r.out().contains("write-bw 64 KiB"), r.all());
    }

    /** The idle scenario's rows, CSV keys (scenario, metric, baseline), in table order. */
    private static final String[] IDLE_ROWS = {
        "\"idle, app sleeping\",\"% of a core, busier side\",NIO UDP blocked receive",
        "\"idle, app on a channel\",\"% of a core, busier side\",NIO UDP blocked receive",
        "\"wake, app on a channel\",p50 RTT us after 2-5 ms idle,NIO UDP blocked receive",
        "\"wake, app on a channel\",p99 RTT us after 2-5 ms idle,NIO UDP blocked receive",
        "\"wake, app sleeping (ACK)\",p50 RTT us after 2-5 ms idle,NIO UDP blocked receive",
        "\"wake, app sleeping (ACK)\",p99 RTT us after 2-5 ms idle,NIO UDP blocked receive"};

    /** An idle row: both figures are numbers (CPU may be 0), its verdict one against its goal, not ERROR. */
    private static void checkIdleRow(List<String> f, Run r) {
        String row = String.join(",", f);
        for (int col : new int[] {2, 4}) {
            double v = Double.parseDouble(f.get(col));
            assertTrue(v >= 0 && Double.isFinite(v), "row " + row + "\n" + r.all());
        }
        boolean cpu = f.get(0).startsWith("idle, ");
        boolean p99 = f.get(1).startsWith("p99 ");
        assertEquals(cpu ? "below 1" : p99 ? "within 50" : "info", f.get(6), row);
        assertTrue(Set.of("PASS", "FAIL", "info").contains(f.get(7)), row);
        if (!cpu) {
            assertTrue(Double.parseDouble(f.get(2)) > 0 && Double.parseDouble(f.get(4)) > 0, row);
        }
    }

    /**
     * {@code --quick --only idle}: the three cases (jrdma with the application on a completion channel, jrdma with it
     * asleep, NIO UDP) run to completion on their own addresses, and the table has the idle CPU and wake-up rows.
     */
    @Test
    void quickIdleRunGivesItsRows(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("idle.csv");
        Run r = bench("--quick", "--only", "idle", "--server-address", "127.0.160.1", "--client-address",
                "127.0.160.2", "--port", "18660", "--csv", csv.toString());
        assertEquals(0, r.status(), r.all());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(IDLE_ROWS.length + 1, lines.size(), r.all());
        for (int i = 0; i < IDLE_ROWS.length; i++) {
            List<String> f = csvFields(lines.get(i + 1));
            String key = String.join(",", quoteIfComma(f.get(0)), quoteIfComma(f.get(1)), f.get(3));
            assertEquals(IDLE_ROWS[i], key, r.all());
            checkIdleRow(f, r);
        }
        assertTrue(r.out().contains("; idle interval 0.2 s"), r.all());
        assertTrue(r.out().contains("idle, app on a channel"), r.all());
        for (String label : new String[] {"jrdma, app on a completion channel", "jrdma, app sleeping",
            "NIO UDP blocked receive"}) {
            Matcher m = Pattern.compile(Pattern.quote("idle " + label + " (run 1/1): idle CPU ")
                    + "[0-9.]+ % \\(server\\), [0-9.]+ % \\(client\\) of a core; RTT busy p50 [0-9.]+ us, after idle "
                    + "gaps p50 [0-9.]+ us, p99 [0-9.]+ us").matcher(r.err());
            assertTrue(m.find(), label + "\n" + r.all());
        }
    }

    @Test
    void corruptedMessagesFailTheRunInEverySystemAndScenario() {
        // one pair of JVMs per case: the jrdma, TCP and Aeron receivers each catch their corrupted message
        Run r = bench("--only", "write-bw", "--warmup", "0.1", "--duration", "0.2", "-r", "1",
                "--test-corrupt", "jrdma,tcp,aeron");
        assertEquals(1, r.status(), r.all());
        for (String system : new String[] {"jrdma", "tcp", "aeron"}) {
            assertTrue(r.err().contains("server exit 3: bench child server (" + system + "): verification failed"),
                    system + "\n" + r.all());
        }
        // jrdma runs three times in write-bw: at the scenario's depth, over UDP only, and 128 deep
        assertTrue(r.err().contains("write-bw jrdma RDMA WRITE over UDP (run 1/1): FAILED: server exit 3"), r.all());
        assertTrue(r.err().contains("write-bw jrdma RDMA WRITE, 128 deep (run 1/1): FAILED: server exit 3"), r.all());
        assertEquals(5, count(r.err(), "FAILED: "), r.all());

        // --quick batches a scenario's cases; jrdma's case comes first in each and fails its check
        Run q = bench("--quick", "--test-corrupt", "jrdma");
        assertEquals(1, q.status(), q.all());
        for (String check : new String[] {"write-bw jrdma RDMA WRITE (run 1/1): FAILED: server exit 3",
            "msg-rate jrdma 2-byte RDMA WRITE (run 1/1): FAILED: server exit 3",
            "read-bw jrdma RDMA READ 64 KiB (run 1/1): FAILED: server exit killed; client exit 3",
            "qp-scaling jrdma RDMA WRITE, 1 QP (run 1/1): FAILED: server exit 3"}) {
            assertTrue(q.err().contains(check), check + "\n" + q.all());
        }
        // the ping-pong client catches the corrupted echo and exits; the server, whose answer is then never
        // acknowledged, either is killed or (its retries spent first) fails on its own with a flushed receive
        Pattern sendLat = Pattern.compile("send-lat jrdma SEND busy \\(run 1/1\\): FAILED: server exit (killed|1: "
                + "bench child server \\(jrdma\\): error: RECV completed with WR_FLUSH_ERR[^;]*); client exit 3");
        assertTrue(sendLat.matcher(q.err()).find(), q.all());
        // so does the idle scenario's echoing client; its server is killed, or fails when its echo is never acked
        Pattern idle = Pattern.compile("idle jrdma, app on a completion channel \\(run 1/1\\): FAILED: server exit "
                + "(killed|1: bench child server \\(jrdma\\): error: RECV completed with WR_FLUSH_ERR[^;]*); client "
                + "exit 3");
        assertTrue(idle.matcher(q.err()).find(), q.all());
        long progressLines = q.err().lines().filter(l -> l.startsWith("[") && l.contains("verification failed"))
                .count();
        assertEquals(6, progressLines, q.all());
    }

    @Test
    void badUsageExitsTwoWithAMessage() {
        Run r = bench("--only", "nope");
        assertEquals(2, r.status(), r.all());
        assertTrue(r.err().contains("unknown scenario 'nope'"), r.all());
        r = bench("--threading", "send-lat=FAST");
        assertEquals(2, r.status(), r.all());
        assertTrue(r.err().contains("--threading: unknown mode 'FAST'"), r.all());
        r = bench("--duration", "0");
        assertEquals(2, r.status(), r.all());
        r = bench("--frobnicate");
        assertEquals(2, r.status(), r.all());
        r = bench("--quick", "--server-address", "10.0.0.1");
        assertEquals(2, r.status(), r.all());
        assertTrue(r.err().contains("--server-address must be an IPv4 loopback address"), r.all());
        r = bench("--quick", "--only", "idle", "-t", "INVOKER");
        assertEquals(2, r.status(), r.all());
        assertTrue(r.err().contains("the idle scenario needs an engine thread"), r.all());
        r = bench("--quick", "--load", "17");
        assertEquals(2, r.status(), r.all());
        assertTrue(r.err().contains("--load must be 0..16"), r.all());
    }

    /** {@code --load N}: the cases run beside N busy processes, which the command starts, reports and stops. */
    @Test
    void loadRunsBusyProcessesBesideTheCasesAndStopsThem() {
        Run r = bench("--quick", "--only", "write-bw", "--load", "1");
        assertEquals(0, r.status(), r.all());
        assertTrue(r.out().contains("; --load 1 (busy-loop processes beside every case)"), r.all());
        Matcher m = Pattern.compile("load: 1 busy-loop process\\(es\\), 1 still running, ([0-9.]+) CPU-s")
                .matcher(r.err());
        assertTrue(m.find(), r.all());
        assertTrue(Double.parseDouble(m.group(1)) > 0.1, "the load process was busy: " + m.group(1) + " CPU-s");
        assertEquals(0, ProcessHandle.current().descendants()
                .filter(p -> p.info().arguments().map(a -> String.join(" ", a).contains(LoadChild.class.getName()))
                        .orElse(false))
                .filter(ProcessHandle::isAlive).count(), "the load processes are gone after the run");
    }

    private static int count(String s, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static String quoteIfComma(String s) {
        return s.contains(",") ? "\"" + s + "\"" : s;
    }

    /** Splits a CSV line with double-quoted fields. */
    private static List<String> csvFields(String line) {
        List<String> f = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == '"') {
                quoted = !quoted;
            } else if (ch == ',' && !quoted) {
                f.add(sb.toString());
                sb.setLength(0);
            } else {
                sb.append(ch);
            }
        }
        f.add(sb.toString());
        return f;
    }
}
