package io.jrdma.tools.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.Threading;
import io.jrdma.tools.ChildJvm;
import io.jrdma.tools.Jrdma;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/**
 * {@code jrdma scale} end to end with 50 QPs (both sides in JVMs of their own, every QP's data checked), a run in
 * which one QP's data is damaged (exit 1, the QP named), bad command lines (exit 2), and the pieces: the data
 * pattern, the queue-buffer formula and the TCP exchange. The run with 1000 QPs is {@link ScaleSlowTest}.
 */
class ScaleTest {

    private static final Pattern RESULT = Pattern.compile("^scale-result side=(\\w+) (.*)$", Pattern.MULTILINE);

    /** Exit status, standard output and standard error of one {@code jrdma} command line. */
    record Run(int status, String out, String err) {
        String all() {
            return out + err;
        }

        /** The result line of {@code side} as key=value pairs (empty when the side printed none). */
        Map<String, String> result(String side) {
            Map<String, String> kv = new HashMap<>();
            Matcher m = RESULT.matcher(out);
            while (m.find()) {
                if (m.group(1).equals(side)) {
                    for (String pair : m.group(2).split(" ")) {
                        int eq = pair.indexOf('=');
                        kv.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
            }
            return kv;
        }
    }

    static Run jrdma(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Jrdma.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int status = cl.execute(args);
        return new Run(status, out.toString(), err.toString());
    }

    /** Both sides moved and verified every QP's data, and report a memory figure below the goal. */
    static void assertVerified(Run r, int qps) {
        assertEquals(0, r.status(), r.all());
        for (String side : new String[] {"server", "client"}) {
            Map<String, String> kv = r.result(side);
            assertEquals(Integer.toString(qps), kv.get("verified"), side + " verified QPs\n" + r.all());
            assertEquals("true", kv.get("ok"), r.all());
            assertTrue(r.out().contains(side + ": verified: " + qps + " of " + qps + " QPs received all"), r.all());
            // the QPs exist: their heap covers at least their queues, and they hold sockets
            assertTrue(Double.parseDouble(kv.get("heap")) >= Double.parseDouble(kv.get("queues")), r.all());
            assertTrue(Double.parseDouble(kv.get("fds")) > 0.5, r.all());
            assertTrue(Double.parseDouble(kv.get("beyond")) <= Config.GOAL_BYTES, r.all());
            assertEquals("met", kv.get("goal"), r.all());
        }
        assertTrue(r.out().contains("scale: OK: " + qps + " RC QPs a side"), r.all());
    }

    @Test
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void shouldMoveAndVerifyDataOnEveryQpBetweenTwoProcesses() {
        Run r = jrdma("scale", "-q", "50", "-t", "16", "-r", "16", "--server-addr", "127.0.54.21", "--client-addr",
                "127.0.54.22", "--timeout", "30", "--ack-timeout", "15");
        assertVerified(r, 50);
        // the sides' JVMs may use the native UDP link without the JDK's warning
        assertFalse(r.err().contains("restricted method"), r.all());
        assertTrue(r.out().contains("server: memory of one idle connected QP (difference over 50 QPs"), r.all());
        assertTrue(r.out().contains("queue buffers      6,432 B") || !defaultLayout(), r.all());
    }

    /**
     * {@code jrdma scale} without {@code --threading} runs both sides in the threading {@code -Djrdma.threading}
     * names, to completion and with every QP verified, in every mode: the command in a JVM of its own, which starts
     * the two sides' JVMs, devices on 127.0.146.M1 and 127.0.146.M2 (M the mode's ordinal + 1).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void shouldRunToCompletionInEveryThreadingMode(Threading mode, @TempDir Path dir) throws Exception {
        String server = "127.0.146." + (mode.ordinal() + 1) + "1";
        String client = "127.0.146." + (mode.ordinal() + 1) + "2";
        try (ChildJvm scale = ChildJvm.jrdma(dir, "scale", mode, null, "scale", "-q", "20", "-t", "16", "-r", "16",
                "--server-addr", server, "--client-addr", client, "--timeout", "30", "-p", "0")) {
            ChildJvm.awaitAll(scale);
            Run r = new Run(scale.status(), scale.out(), scale.err());
            assertVerified(r, 20);
            String engine = "path MTU 1024, " + mode.name().toLowerCase(Locale.ROOT) + " engine\n";
            assertTrue(r.out().contains("\nserver: 20 RC QPs on " + server + ", ") && r.out().contains(
                    "\nclient: 20 RC QPs on " + client + ", "), r.all());
            assertEquals(2, r.out().split(Pattern.quote(engine), -1).length - 1, "both sides in " + mode + "\n"
                    + r.all());
        }
    }

    @Test
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void shouldFailAndNameTheQpWhenOneQpReceivesWrongData() {
        Run r = jrdma("scale", "-q", "20", "-n", "2", "-t", "4", "-r", "2", "--server-addr", "127.0.54.31",
                "--client-addr", "127.0.54.32", "--timeout", "30", "--corrupt-qp", "7");
        assertEquals(1, r.status(), r.all());
        assertTrue(r.out().contains("server: problem: QP 7 message 0 (RDMA WRITE): wrong data at byte 0"), r.all());
        assertTrue(r.out().contains("server: verified: 19 of 20 QPs"), r.all());
        assertTrue(r.out().contains("the peer found 1 QPs with wrong or missing data"), r.all());
        assertEquals("false", r.result("server").get("ok"), r.all());
        assertEquals("false", r.result("client").get("ok"), r.all());
        assertTrue(r.err().contains("scale: FAILED"), r.all());
    }

    @Test
    void shouldRefuseBadCommandLinesWithStatus2() {
        String[][] bad = {
            {"scale", "-q", "0"},
            {"scale", "-q", "5000"},
            {"scale", "-n", "100"},
            {"scale", "-s", "1001"},
            {"scale", "-m", "1000"},
            {"scale", "--ack-timeout", "0"},
            {"scale", "client"},
            {"scale", "server", "somehost"},
            {"scale", "peer"},
            {"scale", "--server-addr", "127.0.54.1", "--client-addr", "127.0.54.1"},
        };
        for (String[] args : bad) {
            Run r = jrdma(args);
            assertEquals(2, r.status(), String.join(" ", args) + "\n" + r.all());
            assertTrue(r.err().startsWith("scale: "), r.all());
        }
        assertTrue(jrdma("scale", "-n", "100").err().contains("--tx-depth (max_send_wr) must be 2 x --messages"));
        assertTrue(jrdma("scale", "--ack-timeout", "32").err().contains("--ack-timeout must be 1..31"));
    }

    @Test
    void shouldCatchAnyWrongWordOfAMessage() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4096);
            Payload.fill(seg, 0, 4096, 42, 3, 1, Side.SEND);
            assertEquals(-1, Payload.mismatch(seg, 0, 4096, 42, 3, 1, Side.SEND));
            assertEquals(0, Payload.mismatch(seg, 0, 4096, 43, 3, 1, Side.SEND), "another seed");
            assertEquals(0, Payload.mismatch(seg, 0, 4096, 42, 4, 1, Side.SEND), "another QP");
            assertEquals(0, Payload.mismatch(seg, 0, 4096, 42, 3, 2, Side.SEND), "another message");
            assertEquals(0, Payload.mismatch(seg, 0, 4096, 42, 3, 1, Side.WRITE), "another operation");
            seg.set(ValueLayout.JAVA_BYTE, 4000, (byte) (seg.get(ValueLayout.JAVA_BYTE, 4000) ^ 1));
            assertEquals(4000 / 8 * 8, Payload.mismatch(seg, 0, 4096, 42, 3, 1, Side.SEND));
        }
    }

    @Test
    void shouldComputeQueueBytesAsSoftQpSizesItsRings() {
        assertEquals(1, QueueBytes.slots(0));
        assertEquals(1, QueueBytes.slots(1));
        assertEquals(16, QueueBytes.slots(16));
        assertEquals(32, QueueBytes.slots(17));
        assertEquals(512, QueueBytes.slots(500));
        assumeTrue(defaultLayout(), "the figures below are for compressed oops without compact headers");
        // SendWqe 160 B, RecvWqe 48 B, SgeList 32 B; long[1] and int[1] 24 B each; a ref array of 16 is 16 + 64
        QueueBytes q = QueueBytes.of(16, 16, 1, 1, 0, 160, 48, 32, 40);
        assertEquals(80 + 16 * (160 + 32 + 72), q.sendQueue());
        assertEquals(80 + 16 * (48 + 32 + 72), q.recvQueue());
        assertEquals(6816, q.total());
        QueueBytes inline = QueueBytes.of(16, 16, 2, 1, 64, 160, 48, 32, 40);
        // 2 SGEs: long[2] 32 B, int[2] 24 B; each slot a 40-byte slice and 64 native bytes
        assertEquals(80 + 16 * (160 + 32 + 32 + 48 + 40) + 16 * 64, inline.sendQueue());
        assertEquals(16 * 64, inline.nativePart());
    }

    private static boolean defaultLayout() {
        return !Boolean.parseBoolean(Memory.vmOption("UseCompactObjectHeaders", "false"))
                && Boolean.parseBoolean(Memory.vmOption("UseCompressedOops", "true"))
                && Memory.vmOption("ObjectAlignmentInBytes", "8").equals("8");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldRefuseAPeerThatRunsAnotherShape() throws Exception {
        Exchange.Hello mine = new Exchange.Hello(10, 4, 4096, 1024, 1, 2, 3, 4, 5);
        Exchange.Hello other = new Exchange.Hello(10, 4, 2048, 1024, 1, 2, 3, 4, 5);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ServerSocket listener = Exchange.listen(0)) {
            Future<Exchange> accepted = pool.submit(() -> Exchange.accept(listener, 5_000));
            try (Exchange client = Exchange.connect("127.0.0.1", listener.getLocalPort(), 5_000);
                    Exchange server = accepted.get(5, TimeUnit.SECONDS)) {
                client.sendHello(other);
                IOException e = assertThrows(IOException.class, () -> server.receiveHello(mine));
                assertTrue(e.getMessage().contains("give both sides the same -q, -n, -s and -m"), e.getMessage());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldBoundEveryBarrierWaitAndNoticeAPeerThatLeft() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ServerSocket listener = Exchange.listen(0)) {
            Future<Exchange> accepted = pool.submit(() -> Exchange.accept(listener, 5_000));
            try (Exchange client = Exchange.connect("127.0.0.1", listener.getLocalPort(), 300)) {
                Exchange server = accepted.get(5, TimeUnit.SECONDS);
                try {
                    int[] driven = {0};
                    long t0 = System.nanoTime();
                    IOException timeout = assertThrows(IOException.class,
                            () -> client.await(Exchange.READY, () -> driven[0]++));
                    assertTrue(timeout.getMessage().contains("within 300 ms"), timeout.getMessage());
                    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
                    assertTrue(driven[0] > 0, "the device is driven while waiting");

                    server.signal(Exchange.SENT, 7);
                    assertEquals(7, client.await(Exchange.SENT, () -> { }));
                    server.signal(Exchange.READY, 0);
                    IOException wrongTag = assertThrows(IOException.class,
                            () -> client.await(Exchange.VERIFIED, () -> { }));
                    assertTrue(wrongTag.getMessage().contains("expected barrier 3"), wrongTag.getMessage());

                    server.close();
                    IOException gone = assertThrows(IOException.class,
                            () -> client.await(Exchange.MEASURED, () -> { }));
                    assertTrue(gone.getMessage().contains("closed the connection"), gone.getMessage());
                } finally {
                    server.close();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
