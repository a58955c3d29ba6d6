package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.tools.Jrdma;
import io.jrdma.tools.perftest.Exchange.BwReport;
import io.jrdma.tools.perftest.Exchange.Dest;
import io.jrdma.tools.perftest.Options.AtomicType;
import io.jrdma.tools.perftest.Tool.Verb;
import io.jrdma.verbs.Gid;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * jrdma's perftest tools, server against client over loopback soft devices (127.0.45.1 and 127.0.45.2, each with
 * its own engine thread), with {@code --check} so that every byte that arrives (and every atomic result) is verified;
 * the TCP exchange counted byte for byte through a relay against what perftest 4.5 sends (captured between two real
 * perftest binaries against kernel rxe); the handshake message against a captured one; the report arithmetic; the
 * option parser. {@link PerftestModesTest} runs every tool in every threading mode, each side in a JVM of its own,
 * with this class's relay and assertions.
 */
class PerftestTest {

    private static final String DEVICES = "pfserver=127.0.45.1,pfclient=127.0.45.2";
    private static final Pattern LOCAL = Pattern.compile("^ local address: (LID \\S+ QPN \\S+ PSN \\S+.*)$",
            Pattern.MULTILINE);
    private static final Pattern REMOTE = Pattern.compile("^ remote address: (LID \\S+ QPN \\S+ PSN \\S+.*)$",
            Pattern.MULTILINE);
    /** Version (16), page and cache line sizes (4 + 4) and MTU (2): what every tool exchanges first. */
    static final int PRELUDE = 26;
    static final int HS = 108;

    private static String saved;
    private static int nextPort = 18720;

    @BeforeAll
    static void devices() {
        saved = System.getProperty("jrdma.devices");
        System.setProperty("jrdma.devices", DEVICES);
    }

    @AfterAll
    static void restore() {
        if (saved == null) {
            System.clearProperty("jrdma.devices");
        } else {
            System.setProperty("jrdma.devices", saved);
        }
    }

    /** The outputs and exit statuses of one server + client run, and the bytes each sent over TCP. */
    record Run(int serverRc, String server, String serverErr, int clientRc, String client, String clientErr,
            long clientBytes, long serverBytes) {
        String all() {
            return "server:\n" + server + serverErr + "client:\n" + client + clientErr;
        }
    }

    /** Runs server and client of {@code tool} with {@code args} (plus --check), the client through a TCP relay. */
    private static Run run(Tool tool, String... args) throws Exception {
        return run("pfserver", "pfclient", tool, args);
    }

    /** {@link #run(Tool, String...)} between the devices {@code serverDev} and {@code clientDev}. */
    static Run run(String serverDev, String clientDev, Tool tool, String... args) throws Exception {
        int port = nextPort++;
        List<String> common = new ArrayList<>(List.of(args));
        common.addAll(List.of("--timeout=10", "--check"));
        List<String> serverArgs = new ArrayList<>(common);
        serverArgs.addAll(List.of("-d", serverDev, "-p", Integer.toString(port)));
        ByteArrayOutputStream so = new ByteArrayOutputStream();
        ByteArrayOutputStream se = new ByteArrayOutputStream();
        ByteArrayOutputStream co = new ByteArrayOutputStream();
        ByteArrayOutputStream ce = new ByteArrayOutputStream();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (Relay relay = new Relay(port, pool)) {
            List<String> clientArgs = new ArrayList<>(common);
            clientArgs.addAll(List.of("-d", clientDev, "-p", Integer.toString(relay.port()), "127.0.0.1"));
            Future<Integer> server = pool.submit(() -> Perftest.run(tool, serverArgs.toArray(String[]::new),
                    print(so), print(se)));
            int clientRc = Perftest.run(tool, clientArgs.toArray(String[]::new), print(co), print(ce));
            int serverRc = server.get(20, TimeUnit.SECONDS);
            relay.awaitDone();
            return new Run(serverRc, text(so), text(se), clientRc, text(co), text(ce), relay.toServer.get(),
                    relay.toClient.get());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A TCP relay between the client and the server's port that counts the bytes each way. It connects to the server
     * only when the client connects, retrying while the server is not listening yet.
     */
    static final class Relay implements AutoCloseable {
        final AtomicLong toServer = new AtomicLong();
        final AtomicLong toClient = new AtomicLong();
        private final ServerSocket listener = new ServerSocket();
        private final Future<?> task;
        private final List<Future<?>> pumps = new ArrayList<>();

        Relay(int serverPort, ExecutorService pool) throws IOException {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            listener.setSoTimeout(15_000);
            task = pool.submit(() -> {
                try (Socket c = listener.accept(); Socket s = connect(serverPort)) {
                    c.setTcpNoDelay(true);
                    s.setTcpNoDelay(true);
                    Future<?> up = pool.submit(() -> pump(c, s, toServer));
                    pump(s, c, toClient);
                    up.get(20, TimeUnit.SECONDS);
                }
                return null;
            });
        }

        private static Socket connect(int port) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try {
                    return new Socket("127.0.0.1", port);
                } catch (IOException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(20);
                }
            }
        }

        private static Void pump(Socket from, Socket to, AtomicLong count) {
            byte[] b = new byte[4096];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(b)) > 0; ) {
                    count.addAndGet(n);
                    out.write(b, 0, n);
                    out.flush();
                }
                to.shutdownOutput();
            } catch (IOException e) {
                // the far side closed: the relay ends with it
            }
            return null;
        }

        int port() {
            return listener.getLocalPort();
        }

        void awaitDone() throws Exception {
            task.get(20, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws IOException {
            listener.close();
            pumps.clear();
        }
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    private static String text(ByteArrayOutputStream b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    /**
     * Both sides exit 0 with nothing on stderr, each side's remote addresses are the other's local ones, the result
     * rows show {@code rows} sizes with {@code iters} iterations, and each side sent {@code tcpBytes} over TCP.
     */
    static void assertRun(Run r, Tool tool, long[] sizes, long iters, int qps, long tcpBytes) {
        String all = r.all();
        assertEquals(0, r.serverRc(), all);
        assertEquals(0, r.clientRc(), all);
        assertTrue(r.serverErr().isEmpty() && r.clientErr().isEmpty(), all);
        assertEquals(addresses(LOCAL, r.server()), addresses(REMOTE, r.client()), all);
        assertEquals(addresses(LOCAL, r.client()), addresses(REMOTE, r.server()), all);
        assertEquals(qps, addresses(LOCAL, r.client()).size(), all);
        boolean serverRows = tool.bw || tool.verb == Verb.SEND || tool.verb == Verb.WRITE;
        for (String out : serverRows ? new String[] {r.client(), r.server()} : new String[] {r.client()}) {
            List<String> rows = rows(out);
            long[] expected = tool.bw && tool.verb != Verb.SEND && out.equals(r.server())
                    ? new long[] {sizes[sizes.length - 1]} : sizes; // the server prints the client's last report
            assertEquals(expected.length, rows.size(), all);
            for (int i = 0; i < expected.length; i++) {
                String[] f = rows.get(i).trim().split("\\s+");
                assertEquals(Long.toString(expected[i]), f[0], all);
                assertEquals(Long.toString(iters * qps), f[1], all);
                assertEquals(tool.bw ? 5 : 9, f.length, rows.get(i));
            }
        }
        if (!serverRows) {
            assertTrue(rows(r.server()).isEmpty(), all);
        }
        assertEquals(tcpBytes, r.clientBytes(), "bytes the client sent over TCP\n" + all);
        assertEquals(tcpBytes, r.serverBytes(), "bytes the server sent over TCP\n" + all);
    }

    private static List<String> addresses(Pattern p, String out) {
        List<String> l = new ArrayList<>();
        Matcher m = p.matcher(out);
        while (m.find()) {
            l.add(m.group(1));
        }
        return l;
    }

    static List<String> rows(String out) {
        List<String> l = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.matches(" \\d+\\s+\\d+\\s+.*")) {
                l.add(line);
            }
        }
        return l;
    }

    /** RDMA WRITE/READ/atomic bandwidth: per QP twice, after RTR, after the run, reports, close and "done". */
    static long rdmaBwBytes(int qps) {
        return PRELUDE + 2L * qps * HS + HS + HS + 5 * 8 + HS + 5;
    }

    @Test
    void aClientWhosePeerStopsAnsweringGivesUpAfterItsTimeout() throws Exception {
        // the server runs 100 iterations, the client 400: after the 100th the client's receive never comes, and its
        // poll loop (which reads the clock only every DataPath.CLOCK_POLLS empty polls) must still give up in time
        int port = nextPort++;
        ByteArrayOutputStream ce = new ByteArrayOutputStream();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> server = pool.submit(() -> Perftest.run(Tool.IB_SEND_LAT, new String[] {"-n", "100",
                "-s", "2", "--timeout=1", "-d", "pfserver", "-p", Integer.toString(port)},
                    print(new ByteArrayOutputStream()), print(new ByteArrayOutputStream())));
            long start = System.nanoTime();
            int clientRc = -1;
            for (int attempt = 0; attempt < 50; attempt++) {
                ce.reset(); // the server may not listen yet: the client then fails at once, and tries again
                Future<Integer> client = pool.submit(() -> Perftest.run(Tool.IB_SEND_LAT, new String[] {"-n", "400",
                    "-s", "2", "--timeout=1", "-d", "pfclient", "-p", Integer.toString(port), "127.0.0.1"},
                        print(new ByteArrayOutputStream()), print(ce)));
                clientRc = client.get(30, TimeUnit.SECONDS); // a loop that never looked at the clock would hang
                if (text(ce).contains("no progress within")) {
                    break;
                }
                Thread.sleep(100);
            }
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertEquals(1, clientRc, text(ce));
            assertTrue(text(ce).contains("no progress within 1000 ms while waiting for"), text(ce));
            assertTrue(tookMs < 15_000, "the client gave up after " + tookMs + " ms");
            server.get(20, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void writeBwShouldWriteEveryByteAndReportBothSides() throws Exception {
        assertRun(run(Tool.IB_WRITE_BW, "-n", "200", "-s", "4095"), Tool.IB_WRITE_BW,
                new long[] {4095}, 200, 1, rdmaBwBytes(1));
        assertRun(run(Tool.IB_WRITE_BW, "-n", "100", "-s", "1", "-l", "4", "--report_gbits"),
                Tool.IB_WRITE_BW, new long[] {1}, 100, 1, rdmaBwBytes(1));
    }

    @Test
    void writeBwShouldRunFourQpsOfLargeMessages() throws Exception {
        assertRun(run(Tool.IB_WRITE_BW, "-n", "5", "-s", "1048576", "-q", "4"), Tool.IB_WRITE_BW,
                new long[] {1048576}, 5, 4, rdmaBwBytes(4));
    }

    @Test
    void writeBwShouldRunEverySizeWithAll() throws Exception {
        long[] sizes = new long[Options.ALL_SIZES_LOG_MAX];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 2L << i;
        }
        assertRun(run(Tool.IB_WRITE_BW, "-a", "-n", "5"), Tool.IB_WRITE_BW, sizes, 5, 1,
                rdmaBwBytes(1));
    }

    @Test
    void writeBwShouldRunForADuration() throws Exception {
        Run r = run(Tool.IB_WRITE_BW, "-D", "1", "-s", "65536");
        assertEquals(0, r.clientRc(), r.all());
        assertEquals(0, r.serverRc(), r.all());
        String[] f = rows(r.client()).getFirst().trim().split("\\s+");
        assertTrue(Long.parseLong(f[1]) > 0, r.all());
        assertEquals(rows(r.client()), rows(r.server()), r.all()); // the server prints the client's report
    }

    /**
     * With invoker threading the device runs only inside calls into it: the server of a WRITE or READ test, blocked
     * on the TCP exchange while the client works, must still answer the client (the exchange drives the device while
     * it waits), or the client's retries run out.
     */
    @Test
    void rdmaBwShouldCompleteWithInvokerThreading() throws Exception {
        String before = System.getProperty("jrdma.threading");
        System.setProperty("jrdma.threading", "invoker");
        try {
            Run w = run(Tool.IB_WRITE_BW, "-D", "1", "-s", "65536");
            assertEquals(0, w.clientRc(), w.all());
            assertEquals(0, w.serverRc(), w.all());
            assertTrue(Long.parseLong(rows(w.client()).getFirst().trim().split("\\s+")[1]) > 0, w.all());
            assertRun(run(Tool.IB_READ_BW, "-n", "100", "-s", "65536"), Tool.IB_READ_BW, new long[] {65536}, 100, 1,
                    rdmaBwBytes(1));
        } finally {
            if (before == null) {
                System.clearProperty("jrdma.threading");
            } else {
                System.setProperty("jrdma.threading", before);
            }
        }
    }

    /** SEND bandwidth, one QP: per QP twice, after RTR, before the run, close and "done". */
    static final long SEND_BW_BYTES = PRELUDE + 2L * HS + HS + HS + HS + 5;

    @Test
    void sendBwShouldReceiveEveryMessage() throws Exception {
        long bytes = SEND_BW_BYTES;
        assertRun(run(Tool.IB_SEND_BW, "-n", "300", "-s", "4097"), Tool.IB_SEND_BW,
                new long[] {4097}, 300, 1, bytes);
        assertRun(run(Tool.IB_SEND_BW, "-n", "40", "-s", "1", "-q", "4", "-e", "-r", "16"),
                Tool.IB_SEND_BW, new long[] {1}, 40, 4, bytes + 6L * HS);
    }

    @Test
    void sendBwShouldSyncAroundEverySizeWithAll() throws Exception {
        long[] sizes = new long[Options.ALL_SIZES_LOG_MAX];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 2L << i;
        }
        long bytes = PRELUDE + 3L * HS + sizes.length * 2L * HS + HS + 5;
        assertRun(run(Tool.IB_SEND_BW, "-a", "-n", "5"), Tool.IB_SEND_BW, sizes, 5, 1, bytes);
    }

    @Test
    void readBwShouldReadEveryByte() throws Exception {
        assertRun(run(Tool.IB_READ_BW, "-n", "200", "-s", "1"), Tool.IB_READ_BW, new long[] {1},
                200, 1, rdmaBwBytes(1));
        assertRun(run(Tool.IB_READ_BW, "-n", "10", "-s", "1048576", "-q", "2", "-o", "4", "-e"),
                Tool.IB_READ_BW, new long[] {1048576}, 10, 2, rdmaBwBytes(2));
    }

    @Test
    void atomicBwShouldAddAndCompareAndSwapAsPerftest() throws Exception {
        assertRun(run(Tool.IB_ATOMIC_BW, "-n", "1000"), Tool.IB_ATOMIC_BW, new long[] {8}, 1000, 1,
                rdmaBwBytes(1));
        assertRun(run(Tool.IB_ATOMIC_BW, "-n", "100", "-A", "CMP_AND_SWAP", "-q", "4"),
                Tool.IB_ATOMIC_BW, new long[] {8}, 100, 4, rdmaBwBytes(4));
    }

    /** Latency tests: per QP twice, after RTR, one sync, and (but for RDMA WRITE) close and "done". */
    static final long LAT_BYTES = PRELUDE + 4L * HS + HS + 5;
    /** RDMA WRITE latency: per QP twice and after RTR. */
    static final long WRITE_LAT_BYTES = PRELUDE + 4L * HS;

    @Test
    void sendLatShouldPingPong() throws Exception {
        assertRun(run(Tool.IB_SEND_LAT, "-n", "100", "-s", "1"), Tool.IB_SEND_LAT, new long[] {1},
                100, 1, LAT_BYTES);
        assertRun(run(Tool.IB_SEND_LAT, "-n", "20", "-s", "4097", "-e", "-I", "0"),
                Tool.IB_SEND_LAT, new long[] {4097}, 20, 1, LAT_BYTES);
    }

    @Test
    void writeLatShouldPingPongThroughTheLastByte() throws Exception {
        assertRun(run(Tool.IB_WRITE_LAT, "-n", "100", "-s", "4095"), Tool.IB_WRITE_LAT,
                new long[] {4095}, 100, 1, WRITE_LAT_BYTES);
        assertRun(run(Tool.IB_WRITE_LAT, "-n", "50", "-s", "1", "-I", "64"), Tool.IB_WRITE_LAT,
                new long[] {1}, 50, 1, WRITE_LAT_BYTES);
    }

    @Test
    void readAndAtomicLatShouldRunOnTheClientOnly() throws Exception {
        assertRun(run(Tool.IB_READ_LAT, "-n", "50", "-s", "1048576"), Tool.IB_READ_LAT,
                new long[] {1048576}, 50, 1, LAT_BYTES);
        assertRun(run(Tool.IB_ATOMIC_LAT, "-n", "100", "-A", "CMP_AND_SWAP"), Tool.IB_ATOMIC_LAT,
                new long[] {8}, 100, 1, LAT_BYTES);
        assertRun(run(Tool.IB_ATOMIC_LAT, "-n", "100"), Tool.IB_ATOMIC_LAT, new long[] {8}, 100, 1,
                LAT_BYTES);
    }

    @Test
    void handshakeShouldBeTheBytesPerftestSends() {
        // frame 15 of ../shared/vectors/rxe/ib_write_bw.pcap: ib_write_bw's client (vm2) to the server
        byte[] captured = ("0000:0001:000015:4736dd:000006d3:000055e12ae2b000:00:00:00:00:00:00:00:00:00:00:ff:ff:"
                + "0a:4d:00:0c:00000000:\0").getBytes(StandardCharsets.US_ASCII);
        assertEquals(Exchange.KEY_MSG_SIZE_GID, captured.length);
        Dest d = Dest.fromWire(captured, true);
        assertEquals(new Dest(0, 1, 0x15, 0x4736dd, 0x6d3, 0x55e12ae2b000L, Gid.parse("::ffff:10.77.0.12"), 0), d);
        assertArrayEquals(captured, d.toWire(true));
        Dest noGid = new Dest(1, 128, 0x11, 0xabcdef, 0x1234, 0x7f0000001000L, Gid.ZERO, 0);
        byte[] wire = noGid.toWire(false);
        assertEquals(Exchange.KEY_MSG_SIZE, wire.length);
        assertEquals("0001:0080:000011:abcdef:00001234:00007f0000001000:00000000\0",
                new String(wire, StandardCharsets.US_ASCII));
        assertEquals(noGid, Dest.fromWire(wire, false));
        assertThrows(IllegalArgumentException.class, () -> Dest.fromWire("0000:0001\0".getBytes(
                StandardCharsets.US_ASCII), true));
        assertEquals(5.7, Exchange.atof("5.70"));
        assertEquals(6.06, Exchange.atof("6.06\0\0"));
        assertEquals(0, Exchange.atof(""));
    }

    @Test
    void reportsShouldUsePerftestsArithmeticAndFormats() {
        // 4 messages of 1 MiB, posted at 0/1/2/3 ms, completions signaled at the 2nd and 4th: 4 MiB in 4 ms
        long ms = 1_000_000;
        long[] posted = {1, ms, 2 * ms, 3 * ms};
        long[] completed = {0, 2 * ms, 0, 4 * ms + 1};
        BwReport r = Report.bw(1 << 20, 4, posted, completed, false, false);
        assertEquals(1000.0, r.bwAvg(), 1e-6);
        assertEquals(0.001, r.msgRateAvg(), 1e-9);
        assertEquals(1000.001, r.bwPeak(), 1e-3); // best: (2 ms - 1 ns) / 2 per message
        assertEquals(" 1048576    4                1000.00            1000.00\t\t   0.001000",
                Report.bwRow(r, false));
        BwReport g = Report.bw(8, 5, new long[] {0}, new long[] {1_000_000_000}, true, true);
        assertEquals(0, g.bwPeak());
        assertEquals(" 8          5           0.000000            0.000000            0.000005",
                Report.bwRow(g, true));
        // latency: gaps 10, 20, 30, 40, 1000 usec (round trips for SEND: halved); the two largest are dropped from
        // the statistics, and t_max is the largest kept gap's successor, as perftest's delta[measure_cnt]
        long us = 1000;
        long[] stamps = {0, 10 * us, 30 * us, 60 * us, 100 * us, 1100 * us};
        String row = Report.latRow(2, 6, stamps, Verb.SEND);
        String[] f = row.trim().split("\\s+");
        assertEquals(List.of("2", "6", "5.00", "20.00", "10.00", "10.00", "4.08", "20.00", "20.00"), List.of(f),
                row);
        String read = Report.latRow(8, 6, stamps, Verb.READ);
        assertEquals(" 8       6          10.00          40.00        20.00    \t       20.00       \t8.16   \t\t40.00   "
                + "\t\t40.00  ", read);
        assertEquals("0000", Report.alt(0, 4));
        assertEquals("0x0011", Report.alt(0x11, 6));
        assertEquals("0x0055a79eb9a000", Report.alt(0x55a79eb9a000L, 16));
        assertEquals(" local address: LID 0000 QPN 0x0011 PSN 0x82484f OUT 0x80 RKey 0x000287 VAddr 0x0055a79eb9a000\n"
                + " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:77:00:11",
                Report.address(true, new Dest(0, 128, 0x11, 0x82484f, 0x287, 0x55a79eb9a000L,
                        Gid.parse("::ffff:10.77.0.11"), 0), Verb.READ, true));
    }

    @Test
    void shouldParseOptionsAsPerftest() {
        Options o = Options.parse(Tool.IB_WRITE_BW, new String[] {"-d", "rxe0", "-x1",
            "--size=4096", "-n", "0x100", "-q", "4", "-aF", "--report_gbits", "-l", "4", "--timeout", "2", "host"});
        assertEquals("rxe0", o.ibDev);
        assertEquals(1, o.gidIndex);
        assertEquals(256, o.iters);
        assertEquals(4, o.numQps);
        assertTrue(o.all && o.reportGbits);
        assertEquals(1L << 23, o.size); // -a allocates for the largest size
        assertEquals(4, o.postList);
        assertEquals(4, o.cqMod); // as perftest: the post list size
        assertEquals(2000, o.timeoutMs);
        assertEquals("host", o.serverName);
        Options a = Options.parse(Tool.IB_ATOMIC_LAT, new String[] {"-A", "CMP_AND_SWAP"});
        assertEquals(AtomicType.CMP_AND_SWAP, a.atomicType);
        assertEquals(8, a.size);
        assertEquals(1000, a.iters);
        assertFalse(a.client());
        assertEquals(65536, Options.parse(Tool.IB_SEND_BW, new String[0]).size);
        assertEquals(2, Options.parse(Tool.IB_SEND_LAT, new String[0]).size);
        assertEquals(5000, Options.parse(Tool.IB_READ_BW, new String[0]).iters);
        String[][] bad = {
            {"-n", "4"}, {"-q", "2"}, {"-l", "2"}, {"-A", "FETCH_AND_ADD"}, {"-c", "XRC"}, {"-c", "XX"}, {"-m", "1000"},
            {"-D", "3"}, {"-t", "4"}, {"-z"}, {"--bidirectional"}, {"-s"}, {"a", "b"}};
        for (String[] args : bad) {
            assertThrows(IllegalArgumentException.class, () -> Options.parse(Tool.IB_SEND_LAT, args),
                    String.join(" ", args));
        }
        assertThrows(IllegalArgumentException.class,
                () -> Options.parse(Tool.IB_WRITE_BW, new String[] {"-e"}));
        assertThrows(IllegalArgumentException.class,
                () -> Options.parse(Tool.IB_ATOMIC_BW, new String[] {"-s", "16"}));
        assertThrows(IllegalArgumentException.class,
                () -> Options.parse(Tool.IB_WRITE_BW, new String[] {"-n", "10", "-l", "3"}));
        assertThrows(IllegalArgumentException.class,
                () -> Options.parse(Tool.IB_WRITE_BW, new String[] {"-t", "0"}));
    }

    @Test
    void shouldPrintUsageAndVersionAndFailOnBadUsage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, Perftest.run(Tool.IB_ATOMIC_BW, new String[] {"--help"}, print(out), print(err)));
        assertTrue(text(out).startsWith("Usage:\n  jrdma ib_atomic_bw "), text(out));
        assertTrue(text(out).contains("--atomic_type"), text(out));
        assertEquals(0, Perftest.run(Tool.IB_WRITE_BW, new String[] {"-V"}, print(out), print(err)));
        assertTrue(text(out).contains("Version: 6.06"), text(out));
        assertEquals(1, Perftest.run(Tool.IB_READ_BW, new String[] {"-A", "CMP_AND_SWAP"}, print(out),
                print(err)));
        assertTrue(text(err).contains("You are not running the atomic_lat/bw test!"), text(err));
        assertEquals(1, Perftest.run(Tool.IB_WRITE_BW, new String[] {"-d", "nosuchdev", "--timeout=1"},
                print(out), print(err)));
        assertTrue(text(err).contains("nosuchdev"), text(err));
    }

    @Test
    void jrdmaShouldRegisterTheEightTools() {
        for (Tool t : Tool.values()) {
            assertTrue(Jrdma.commandLine().getSubcommands().containsKey(t.command), t.command);
        }
    }
}
