package io.jrdma.tools.pingpong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Threading;
import io.jrdma.tools.ChildJvm;
import io.jrdma.tools.pingpong.Exchange.Dest;
import io.jrdma.tools.pingpong.Options.Kind;
import io.jrdma.verbs.Gid;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * jrdma rc_pingpong / ud_pingpong server against jrdma client over loopback soft devices (127.0.43.1 and
 * 127.0.43.2, in this JVM), both tools in every threading mode with each side in a JVM of its own, plus the
 * exchange's wire format and the option parser.
 */
class PingpongTest {

    private static final String DEVICES = "ppserver=127.0.43.1,ppclient=127.0.43.2";
    private static final Pattern LOCAL_RC = Pattern.compile(
            "^  local address:  LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\\S+)$",
            Pattern.MULTILINE);
    private static final Pattern LOCAL_UD = Pattern.compile(
            "^  local address:  LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}): GID (\\S+)$",
            Pattern.MULTILINE);
    private static final Pattern REMOTE = Pattern.compile(
            "^  remote address: LID 0x([0-9a-f]{4}), QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\\S+)$",
            Pattern.MULTILINE);

    private static String saved;
    private static int nextPort = 18620;

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

    /** The outputs and exit statuses of one server + client run. */
    private record Run(int serverRc, String server, String serverErr, int clientRc, String client, String clientErr) {
    }

    private static Run run(Kind kind, String... args) throws Exception {
        int port = nextPort++;
        List<String> common = new ArrayList<>(List.of(args));
        common.addAll(List.of("-p", Integer.toString(port), "-g", "1", "--timeout=10"));
        List<String> serverArgs = new ArrayList<>(common);
        serverArgs.addAll(List.of("-d", "ppserver"));
        List<String> clientArgs = new ArrayList<>(common);
        clientArgs.addAll(List.of("-d", "ppclient", "127.0.0.1"));
        ByteArrayOutputStream so = new ByteArrayOutputStream();
        ByteArrayOutputStream se = new ByteArrayOutputStream();
        ByteArrayOutputStream co = new ByteArrayOutputStream();
        ByteArrayOutputStream ce = new ByteArrayOutputStream();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> server = pool.submit(() -> Pingpong.run(kind, serverArgs.toArray(String[]::new),
                    print(so), print(se)));
            int clientRc = Pingpong.run(kind, clientArgs.toArray(String[]::new), print(co), print(ce));
            int serverRc = server.get(15, TimeUnit.SECONDS);
            return new Run(serverRc, text(so), text(se), clientRc, text(co), text(ce));
        } finally {
            pool.shutdownNow();
        }
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    private static String text(ByteArrayOutputStream b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    /** Both sides exit 0, print their addresses (each side's remote is the other's local) and the result lines. */
    private static void assertPingpong(Run r, Kind kind, long size, int iters) {
        assertPingpong(r, kind, size, iters, "127.0.43.1", "127.0.43.2");
    }

    /** As above, the server's device on {@code serverAddr} and the client's on {@code clientAddr}. */
    private static void assertPingpong(Run r, Kind kind, long size, int iters, String serverAddr, String clientAddr) {
        String all = "server:\n" + r.server + r.serverErr + "client:\n" + r.client + r.clientErr;
        assertEquals(0, r.serverRc, all);
        assertEquals(0, r.clientRc, all);
        Pattern local = kind == Kind.UD ? LOCAL_UD : LOCAL_RC;
        Matcher sl = local.matcher(r.server);
        Matcher cl = local.matcher(r.client);
        Matcher sr = REMOTE.matcher(r.server);
        Matcher cr = REMOTE.matcher(r.client);
        assertTrue(sl.find() && cl.find() && sr.find() && cr.find(), all);
        assertEquals("::ffff:" + serverAddr, sl.group(4), all);
        assertEquals("::ffff:" + clientAddr, cl.group(4), all);
        for (int g = 1; g <= 4; g++) {
            assertEquals(sl.group(g), cr.group(g), all);
            assertEquals(cl.group(g), sr.group(g), all);
        }
        long bytes = size * iters * 2;
        for (String out : new String[] {r.server, r.client}) {
            assertTrue(Pattern.compile("^" + bytes + " bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec$",
                    Pattern.MULTILINE).matcher(out).find(), all);
            assertTrue(Pattern.compile("^" + iters + " iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter$",
                    Pattern.MULTILINE).matcher(out).find(), all);
        }
        assertTrue(r.serverErr.isEmpty() && r.clientErr.isEmpty(), all);
    }

    @Test
    void aRehearsalsOptionsSayTheyAreARehearsals() {
        // a rehearsal's poll loop yields the CPU on a one-CPU machine (PollPark); the user's run never does
        Options o = Options.parse(Kind.RC, new String[] {"-n", "10"});
        assertTrue(o.rehearsal("127.0.0.1", 1, 5).rehearsing);
        assertTrue(o.rehearsal(null, 1, 5).rehearsing);
        assertFalse(o.rehearsing);
    }

    @Test
    void rcPingpongShouldExchangeSmallMessages() throws Exception {
        assertPingpong(run(Kind.RC, "-s", "1", "-n", "20"), Kind.RC, 1, 20);
    }

    @Test
    void rcPingpongShouldExchangeMultiPacketMessagesAndValidateThem() throws Exception {
        Run r = run(Kind.RC, "-s", "4097", "-n", "10", "-m", "1024", "-c");
        assertPingpong(r, Kind.RC, 4097, 10);
        assertTrue(!r.server.contains("invalid data"), r.server);
    }

    @Test
    void rcPingpongShouldWorkWithCompletionEvents() throws Exception {
        assertPingpong(run(Kind.RC, "-s", "65536", "-n", "5", "-e", "-r", "8"), Kind.RC, 65536, 5);
    }

    @Test
    void udPingpongShouldExchangeDatagrams() throws Exception {
        assertPingpong(run(Kind.UD, "-s", "1", "-n", "20"), Kind.UD, 1, 20);
        assertPingpong(run(Kind.UD, "--size=4096", "--iters=10"), Kind.UD, 4096, 10);
    }

    /**
     * rc_pingpong and ud_pingpong, plain and with completion events, run to completion in every threading mode
     * ({@code -Djrdma.threading}), server and client each in a JVM of its own on devices of the mode's own
     * (127.0.141.M1 and 127.0.141.M2, M the mode's ordinal + 1); a side still running after
     * {@link ChildJvm#BOUND} is killed and fails the case with both sides' output.
     */
    @ParameterizedTest(name = "{0}: {1} {2}")
    @MethodSource("modeCases")
    void shouldRunToCompletionInEveryThreadingMode(Threading mode, Kind kind, String args, @TempDir Path dir)
            throws Exception {
        String net = "127.0.141." + (mode.ordinal() + 1);
        String devices = "ppserver=" + net + "1,ppclient=" + net + "2";
        String port = Integer.toString(ChildJvm.freeTcpPort());
        List<String> common = new ArrayList<>(List.of(kind.tool));
        common.addAll(List.of(args.split(" ")));
        common.addAll(List.of("-p", port, "-g", "1", "--timeout=10"));
        List<String> serverArgs = new ArrayList<>(common);
        serverArgs.addAll(List.of("-d", "ppserver"));
        List<String> clientArgs = new ArrayList<>(common);
        clientArgs.addAll(List.of("-d", "ppclient", "127.0.0.1"));
        try (ChildJvm server = ChildJvm.jrdma(dir, "server", mode, devices, serverArgs.toArray(String[]::new));
                ChildJvm client = ChildJvm.jrdma(dir, "client", mode, devices, clientArgs.toArray(String[]::new))) {
            ChildJvm.awaitAll(server, client);
            Run r = new Run(server.status(), server.out(), server.err(), client.status(), client.out(), client.err());
            assertPingpong(r, kind, kind.defaultSize, 200, net + "1", net + "2");
        }
    }

    static Stream<Arguments> modeCases() {
        return Arrays.stream(Threading.values()).flatMap(m -> Stream.of(
                Arguments.of(m, Kind.RC, "-n 200"), Arguments.of(m, Kind.RC, "-n 200 -e"),
                Arguments.of(m, Kind.UD, "-n 200"), Arguments.of(m, Kind.UD, "-n 200 -e")));
    }

    @Test
    void udPingpongShouldRefuseMessagesLargerThanThePortMtu() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Pingpong.run(Kind.UD, new String[] {"-d", "ppserver", "-s", "4097", "--timeout=1"}, print(out),
                print(err));
        assertEquals(1, rc);
        assertTrue(text(err).contains("Requested size larger than port MTU (4096)"), text(err));
    }

    @Test
    void shouldFailOnBadUsageAndOnDemandPaging() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, Pingpong.run(Kind.RC, new String[] {"-x"}, print(out), print(err)));
        assertTrue(text(err).contains("unrecognized option '-x'"), text(err));
        assertTrue(text(out).startsWith("Usage:"), text(out));
        assertEquals(1, Pingpong.run(Kind.UD, new String[] {"-m", "1024"}, print(out), print(err)));
        assertEquals(1, Pingpong.run(Kind.RC, new String[] {"a", "b"}, print(out), print(err)));
        assertEquals(1, Pingpong.run(Kind.RC, new String[] {"-d", "ppserver", "-o"}, print(out), print(err)));
        assertTrue(text(err).contains("ODP"), text(err));
        assertEquals(0, Pingpong.run(Kind.RC, new String[] {"--help"}, print(out), print(err)));
    }

    @Test
    void shouldParseOptionsAsGetopt() {
        Options o = Options.parse(Kind.RC,
                new String[] {"-p18516", "--ib-dev=rxe1", "-i", "1", "-s", "0x1000", "-m", "4096", "-r", "010",
                    "--iters", "7", "-l", "3", "-ec", "-g", "1", "host"});
        assertEquals(18516, o.port);
        assertEquals("rxe1", o.ibDev);
        assertEquals(4096, o.size);
        assertEquals(4096, o.mtu);
        assertEquals(8, o.rxDepth);
        assertEquals(7, o.iters);
        assertEquals(3, o.sl);
        assertTrue(o.events && o.check);
        assertEquals(1, o.gidIdx);
        assertEquals("host", o.serverName);
        Options ud = Options.parse(Kind.UD, new String[0]);
        assertEquals(2048, ud.size);
        assertEquals(18515, ud.port);
        assertEquals(-1, ud.gidIdx);
        assertThrows(IllegalArgumentException.class, () -> Options.parse(Kind.UD, new String[] {"-c"}));
        assertThrows(IllegalArgumentException.class, () -> Options.parse(Kind.RC, new String[] {"-m", "1000"}));
    }

    @Test
    void addressMessageShouldBeTheRealToolsBytes() {
        Gid gid = Gid.parse("::ffff:10.77.0.11");
        Dest d = new Dest(0, 0x11, 0xabcdef, gid);
        byte[] wire = d.toWire();
        assertEquals(52, wire.length);
        byte[] expected = "0000:000011:abcdef:00000000000000000000ffff0a4d000b\0".getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals(expected, wire);
        assertEquals(d, Dest.fromWire(wire));
        assertTrue(d.needsGrh());
        assertTrue(!new Dest(1, 2, 3, Gid.ZERO).needsGrh());
        assertThrows(IllegalArgumentException.class,
                () -> Dest.fromWire("0000:11:zz\0".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void serverExchangeShouldSpeakTheRealClientsBytes() throws Exception {
        int port = nextPort++;
        Dest local = new Dest(0, 0x12, 0x345678, Gid.parse("::ffff:127.0.43.1"));
        Dest[] connected = new Dest[1];
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Dest> server = pool.submit(() -> Exchange.server(port, local, r -> connected[0] = r, 5000));
            byte[] reply = new byte[52];
            try (java.net.Socket s = connectRetrying(port)) {
                s.setSoTimeout(5000);
                // exactly what ibv_rc_pingpong's client writes: the message with its NUL, then "done" with its NUL
                s.getOutputStream().write("0000:000021:000042:00000000000000000000ffff7f002b02\0"
                        .getBytes(StandardCharsets.US_ASCII));
                int got = 0;
                while (got < 52) {
                    int n = s.getInputStream().read(reply, got, 52 - got);
                    assertTrue(n > 0, "short reply");
                    got += n;
                }
                s.getOutputStream().write("done\0".getBytes(StandardCharsets.US_ASCII));
            }
            Dest remote = server.get(5, TimeUnit.SECONDS);
            assertEquals(new Dest(0, 0x21, 0x42, Gid.parse("::ffff:127.0.43.2")), remote);
            assertEquals(remote, connected[0]);
            assertEquals("0000:000012:345678:00000000000000000000ffff7f002b01\0",
                    new String(reply, StandardCharsets.US_ASCII));
        } finally {
            pool.shutdownNow();
        }
    }

    private static java.net.Socket connectRetrying(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try {
                return new java.net.Socket("127.0.0.1", port);
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }
}
