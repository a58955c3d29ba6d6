package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Threading;
import io.jrdma.tools.ChildJvm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The perftest tools with {@code -R}: exchange and test QPs connected with rdma_cm, server against client over
 * loopback soft devices (127.0.200.1 and 127.0.200.2, the client naming the server's address as perftest's users
 * must), with {@code --check}: both exit 0 with nothing on stderr, the header says rdma_cm, each side's local
 * addresses are the other's remote ones, and the result rows show the sizes and iterations asked for. Covers RC
 * (SEND and RDMA WRITE bandwidth, RDMA READ latency, two QPs) and UD (SIDR; SEND latency and bandwidth), and UC's
 * refusal.
 */
class PerftestCmTest {

    private static final Pattern LOCAL = Pattern.compile("^ local address: (LID \\S+ QPN \\S+ PSN \\S+.*)$",
            Pattern.MULTILINE);
    private static final Pattern REMOTE = Pattern.compile("^ remote address: (LID \\S+ QPN \\S+ PSN \\S+.*)$",
            Pattern.MULTILINE);

    private static int nextPair;

    private static PerftestTest.Run run(Path dir, Tool tool, String... args) throws Exception {
        int pair = nextPair++;
        String server = "127.0.200." + (2 * pair + 1);
        List<String> common = new ArrayList<>(List.of(tool.command));
        common.addAll(List.of(args));
        common.addAll(List.of("-R", "--timeout=10", "--check", "-p", Integer.toString(ChildJvm.freeTcpPort())));
        List<String> serverArgs = new ArrayList<>(common);
        serverArgs.addAll(List.of("-d", "cms"));
        List<String> clientArgs = new ArrayList<>(common);
        clientArgs.addAll(List.of("-d", "cmc", server));
        try (ChildJvm s = ChildJvm.jrdma(dir, "server", Threading.DEDICATED, "cms=" + server,
                serverArgs.toArray(String[]::new))) {
            Thread.sleep(1500); // perftest's client gives up when nobody listens yet (jrdma's retries up to --timeout)
            try (ChildJvm c = ChildJvm.jrdma(dir, "client", Threading.DEDICATED,
                    "cmc=127.0.200." + (2 * pair + 2), clientArgs.toArray(String[]::new))) {
                ChildJvm.awaitAll(s, c);
                return new PerftestTest.Run(s.status(), s.out(), s.err(), c.status(), c.out(), c.err(), 0, 0);
            }
        }
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    private static String text(ByteArrayOutputStream b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    private static void assertRun(PerftestTest.Run r, Tool tool, long size, long iters, int qps) {
        String all = r.all();
        assertEquals(0, r.serverRc(), all);
        assertEquals(0, r.clientRc(), all);
        assertTrue(r.serverErr().isEmpty() && r.clientErr().isEmpty(), all);
        for (String out : List.of(r.server(), r.client())) {
            assertTrue(out.contains("\n rdma_cm QPs\t : ON\n Data ex. method : rdma_cm\n"), all);
        }
        assertTrue(r.server().contains(" Waiting for client rdma_cm QP to connect\n"), all);
        assertEquals(addresses(LOCAL, r.server()), addresses(REMOTE, r.client()), all);
        assertEquals(addresses(LOCAL, r.client()), addresses(REMOTE, r.server()), all);
        assertEquals(qps, addresses(LOCAL, r.client()).size(), all);
        List<String> rows = PerftestTest.rows(r.client());
        assertEquals(1, rows.size(), all);
        String[] f = rows.getFirst().trim().split("\\s+");
        assertEquals(Long.toString(size), f[0], all);
        assertEquals(Long.toString(iters * qps), f[1], all);
        assertEquals(tool.bw ? 5 : 9, f.length, all);
    }

    private static List<String> addresses(Pattern p, String out) {
        List<String> l = new ArrayList<>();
        Matcher m = p.matcher(out);
        while (m.find()) {
            l.add(m.group(1));
        }
        return l;
    }

    @Test
    void sendBwShouldRunOverRdmaCm(@TempDir Path dir) throws Exception {
        assertRun(run(dir, Tool.IB_SEND_BW, "-n", "200", "-s", "4097"), Tool.IB_SEND_BW, 4097, 200, 1);
    }

    @Test
    void writeBwShouldRunOverRdmaCmWithTwoQps(@TempDir Path dir) throws Exception {
        assertRun(run(dir, Tool.IB_WRITE_BW, "-n", "100", "-s", "1000", "-q", "2"), Tool.IB_WRITE_BW, 1000, 100, 2);
    }

    @Test
    void readLatShouldRunOverRdmaCm(@TempDir Path dir) throws Exception {
        assertRun(run(dir, Tool.IB_READ_LAT, "-n", "100", "-s", "64"), Tool.IB_READ_LAT, 64, 100, 1);
    }

    @Test
    void sendLatShouldRunOverUdWithSidr(@TempDir Path dir) throws Exception {
        assertRun(run(dir, Tool.IB_SEND_LAT, "-c", "UD", "-n", "100", "-s", "512"), Tool.IB_SEND_LAT, 512, 100, 1);
    }

    @Test
    void sendBwShouldRunOverUdWithSidrAndTwoQps(@TempDir Path dir) throws Exception {
        assertRun(run(dir, Tool.IB_SEND_BW, "-c", "UD", "-n", "100", "-s", "1024", "-m", "1024", "-q", "2"),
                Tool.IB_SEND_BW, 1024, 100, 2);
    }

    @Test
    void ucShouldBeRefusedAsPerftestDoes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Perftest.run(Tool.IB_SEND_BW, new String[] {"-R", "-c", "UC"}, print(out), print(err));
        assertEquals(1, rc);
        assertTrue(text(err).endsWith(" UC is not supported in librdmacm\n"), text(err));
    }
}
