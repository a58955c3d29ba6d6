package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.tools.perftest.PerftestTest.Run;
import io.jrdma.verbs.QpType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The perftest tools over UC and UD QPs ({@code -c UC}, {@code -c UD}), server against client over loopback soft
 * devices (127.0.170.1 and 127.0.170.2) with {@code --check}, asserted as {@link PerftestTest#assertRun} does (exit
 * statuses, empty stderr, address lines, result rows, TCP bytes) plus the connection type in the header and figures
 * above zero; and the combinations perftest 4.5 refuses, with its messages: UC in RDMA READ and atomic tests, UD in
 * anything but SEND tests, a UD message size above the path MTU.
 */
class PerftestConnectionTest {

    private static final String DEVICES = "ucserver=127.0.170.1,ucclient=127.0.170.2";

    private static String saved;

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

    private static Run run(Tool tool, String... args) throws Exception {
        return PerftestTest.run("ucserver", "ucclient", tool, args);
    }

    /** {@link PerftestTest#assertRun}, the connection type in both headers, and every figure of every row above 0. */
    private static void assertRun(Run r, QpType type, Tool tool, long[] sizes, long iters, int qps, long tcpBytes) {
        PerftestTest.assertRun(r, tool, sizes, iters, qps, tcpBytes);
        for (String out : List.of(r.server(), r.client())) {
            assertTrue(out.contains("\n Connection type : " + type + "\t\tUsing SRQ      : OFF\n"), r.all());
        }
        List<String> rows = PerftestTest.rows(r.client());
        assertEquals(sizes.length, rows.size(), r.all());
        for (String row : rows) {
            String[] f = row.trim().split("\\s+");
            int from = tool.bw ? 3 : 2; // bw: BW average and MsgRate (the peak may be 0 without -N); lat: the times
            for (int i = from; i < f.length; i++) {
                assertTrue(Double.parseDouble(f[i]) > 0, "figure " + i + " of '" + row + "'\n" + r.all());
            }
        }
    }

    @Test
    void sendBwShouldRunOverUc() throws Exception {
        assertRun(run(Tool.IB_SEND_BW, "-c", "UC", "-n", "200", "-s", "4097"), QpType.UC, Tool.IB_SEND_BW,
                new long[] {4097}, 200, 1, PerftestTest.SEND_BW_BYTES);
        assertRun(run(Tool.IB_SEND_BW, "-c", "UC", "-n", "40", "-s", "100", "-q", "2"), QpType.UC,
                Tool.IB_SEND_BW, new long[] {100}, 40, 2, PerftestTest.SEND_BW_BYTES + 2L * PerftestTest.HS);
    }

    @Test
    void writeTestsShouldRunOverUc() throws Exception {
        // UC retransmits nothing and a write completes once sent: the server's --check waits for the last write to
        // land (it failed 2 runs in 6 without that), and 40 x 4 KiB stays within a default 208 KiB socket receive
        // buffer, so a receiver descheduled by a loaded machine loses nothing
        assertRun(run(Tool.IB_WRITE_BW, "-c", "UC", "-n", "40", "-s", "4095"), QpType.UC, Tool.IB_WRITE_BW,
                new long[] {4095}, 40, 1, PerftestTest.rdmaBwBytes(1));
        assertRun(run(Tool.IB_WRITE_LAT, "-c", "UC", "-n", "100", "-s", "64"), QpType.UC, Tool.IB_WRITE_LAT,
                new long[] {64}, 100, 1, PerftestTest.WRITE_LAT_BYTES);
    }

    @Test
    void sendLatShouldRunOverUd() throws Exception {
        Run r = run(Tool.IB_SEND_LAT, "-c", "UD", "-n", "200", "-s", "1024", "-m", "1024");
        assertRun(r, QpType.UD, Tool.IB_SEND_LAT, new long[] {1024}, 200, 1, PerftestTest.LAT_BYTES);
        assertTrue(r.client().contains("\n Mtu             : 1024[B]\n"), r.all());
        assertRun(run(Tool.IB_SEND_LAT, "-c", "UD", "-n", "100", "-s", "1"), QpType.UD, Tool.IB_SEND_LAT,
                new long[] {1}, 100, 1, PerftestTest.LAT_BYTES);
    }

    @Test
    void sendBwShouldRunOverUd() throws Exception {
        // 1024 bytes rotate through the page: each GRH lands on the tail of the message before, as in perftest
        assertRun(run(Tool.IB_SEND_BW, "-c", "UD", "-n", "200", "-s", "1024", "-m", "1024"), QpType.UD,
                Tool.IB_SEND_BW, new long[] {1024}, 200, 1, PerftestTest.SEND_BW_BYTES);
        assertRun(run(Tool.IB_SEND_BW, "-c", "UD", "-n", "40", "-s", "4096", "-q", "2", "-e"), QpType.UD,
                Tool.IB_SEND_BW, new long[] {4096}, 40, 2, PerftestTest.SEND_BW_BYTES + 2L * PerftestTest.HS);
    }

    @Test
    void udShouldRunAtTheMtuWhenNoSizeIsGiven() throws Exception {
        Run r = run(Tool.IB_SEND_BW, "-c", "UD", "-n", "20", "-m", "2048");
        assertEquals(0, r.serverRc(), r.all());
        assertEquals(0, r.clientRc(), r.all());
        String warning = " Max msg size in UD is MTU 2048\n Changing to this MTU\n";
        assertEquals(warning, r.serverErr(), r.all());
        assertEquals(warning, r.clientErr(), r.all());
        assertEquals("2048", PerftestTest.rows(r.client()).getFirst().trim().split("\\s+")[0], r.all());
        Run all = run(Tool.IB_SEND_BW, "-c", "UD", "-a", "-n", "5", "-m", "1024");
        assertEquals(0, all.clientRc(), all.all());
        assertEquals(10, PerftestTest.rows(all.client()).size(), all.all()); // 2 .. 1024
        assertEquals("1024", PerftestTest.rows(all.server()).getLast().trim().split("\\s+")[0], all.all());
    }

    @Test
    void udShouldRefuseAMessageAboveTheMtu() throws Exception {
        Run r = run(Tool.IB_SEND_BW, "-c", "UD", "-n", "20", "-s", "2048", "-m", "1024");
        String message = " Max message size in UD cannot be greater than MTU \n Couldn't get context for the device\n";
        assertEquals(1, r.serverRc(), r.all());
        assertEquals(1, r.clientRc(), r.all());
        assertEquals(message, r.serverErr(), r.all());
        assertEquals(message, r.clientErr(), r.all());
        assertTrue(PerftestTest.rows(r.client()).isEmpty(), r.all());
    }

    @Test
    void shouldRefuseWhatPerftestRefuses() {
        String uc = " UC connection not possible in READ/ATOMIC verbs\n";
        String ud = " UD connection only possible in SEND verb\n";
        assertRefused(uc, Tool.IB_READ_BW, "-c", "UC");
        assertRefused(uc, Tool.IB_READ_LAT, "-c", "UC");
        assertRefused(uc, Tool.IB_ATOMIC_BW, "-c", "UC");
        assertRefused(ud, Tool.IB_WRITE_BW, "-c", "UD");
        assertRefused(ud, Tool.IB_WRITE_LAT, "-c", "UD");
        assertRefused(ud, Tool.IB_READ_BW, "-n", "10", "--connection=UD");
        assertRefused(ud, Tool.IB_ATOMIC_LAT, "-c", "UD");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, Perftest.run(Tool.IB_SEND_BW, new String[] {"-c", "XRC"}, print(new ByteArrayOutputStream()),
                print(err)));
        assertTrue(text(err).contains("XRC is not implemented"), text(err));
        assertEquals(QpType.UD, Options.parse(Tool.IB_SEND_LAT, new String[] {"-c", "UD"}).connection);
        assertEquals(QpType.UC, Options.parse(Tool.IB_WRITE_BW, new String[] {"-c", "UC"}).connection);
        assertEquals(QpType.RC, Options.parse(Tool.IB_READ_BW, new String[] {"-c", "RC"}).connection);
    }

    /** The tool exits 1 before opening anything, printing perftest's message alone. */
    private static void assertRefused(String message, Tool tool, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, Perftest.run(tool, args, print(out), print(err)), tool.command);
        assertEquals(message, text(err), tool.command);
        assertEquals("", text(out), tool.command);
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    private static String text(ByteArrayOutputStream b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
