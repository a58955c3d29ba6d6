package io.jrdma.tools.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Threading;
import io.jrdma.soft.link.FaultConfig;
import io.jrdma.tools.ChildJvm;
import io.jrdma.tools.Jrdma;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * jrdma rping server against jrdma rping client, each in a JVM of its own with its own soft device (127.0.206.x),
 * connected by the connection manager over QP1: the pings' data as rping prints it, in every threading mode; a
 * reject; the option errors.
 */
class RpingTest {

    /** rping's ping text for ping {@code i} of {@code size} bytes, as its client builds it (without the NUL). */
    static String pingText(int i, int size) {
        StringBuilder sb = new StringBuilder("rdma-ping-" + i + ": ");
        int c = 65 + i % 58;
        while (sb.length() < size - 1) {
            sb.append((char) c);
            if (++c > 122) {
                c = 65;
            }
        }
        return sb.substring(0, size - 1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void pingsTenTimesAndBothSidesPrintTheData(Threading mode, @TempDir Path dir) throws Exception {
        String server = "127.0.206." + (mode.ordinal() + 1) + "1";
        String client = "127.0.206." + (mode.ordinal() + 1) + "2";
        String port = Integer.toString(7200 + mode.ordinal());
        run(dir, mode, server, client, port, 64, 10, List.of());
    }

    @Test
    void pingsPageSizedBuffers(@TempDir Path dir) throws Exception {
        run(dir, Threading.ADAPTIVE, "127.0.206.51", "127.0.206.52", "7210", 4096, 3, List.of());
    }

    /**
     * The client's DREQ is lost once (its third MAD: QP 1's PSNs are REQ 0, RTU 1, DREQ 2). The CM sends it again
     * after its response timeout, about 6 s with the default settings, and the client waits for that: had it
     * exited first, nothing would resend the DREQ and the server would wait for a disconnect forever.
     */
    @Test
    void aLostDreqIsSentAgainBeforeTheClientExits(@TempDir Path dir) throws Exception {
        run(dir, Threading.ADAPTIVE, "127.0.206.71", "127.0.206.72", "7211", 64, 2,
                List.of(FaultConfig.PROPERTY + "=drop_psn=2,times=1"));
    }

    private static void run(Path dir, Threading mode, String server, String client, String port, int size,
            int count, List<String> clientProperties) throws Exception {
        String s = Integer.toString(size);
        try (ChildJvm srv = ChildJvm.jrdma(dir, "server", mode, "rxe0=" + server, "rping", "-s", "-v", "-S", s,
                "-a", server, "-p", port, "--timeout=30")) {
            ChildJvm cli = null;
            for (int attempt = 0; attempt < 10; attempt++) { // until the server's JVM is up and listening
                List<String> props = new ArrayList<>(clientProperties);
                props.add("jrdma.devices=rxe0=" + client);
                cli = ChildJvm.start(dir, "client" + attempt, mode, props, Jrdma.class.getName(), List.of("rping",
                        "-c", "-v", "-V", "-S", s, "-C", Integer.toString(count), "-a", server, "-p", port,
                        "--timeout=30"));
                ChildJvm.awaitAll(cli);
                if (!(cli.status() == Rping.CM_ERROR_STATUS && cli.err().contains("REJECTED, error 8"))) {
                    break;
                }
                cli.close();
                Thread.sleep(500);
            }
            try (ChildJvm c = cli) {
                ChildJvm.awaitAll(srv);
                assertEquals(0, c.status(), c.describe());
                assertEquals(0, srv.status(), srv.describe());
                StringBuilder want = new StringBuilder();
                StringBuilder wantServer = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    want.append("ping data: ").append(pingText(i, size)).append('\n');
                    wantServer.append("server ping data: ").append(pingText(i, size)).append('\n');
                }
                assertEquals(want.toString(), c.out(), c.describe());
                assertEquals(wantServer.toString(), srv.out(), srv.describe());
                assertTrue(srv.err().contains("server DISCONNECT EVENT..."), srv.describe());
                assertTrue(c.err().contains("client DISCONNECT EVENT..."), c.describe());
                for (String line : (srv.err() + c.err()).lines().toList()) {
                    assertTrue(line.endsWith("DISCONNECT EVENT..."), "unexpected stderr line: " + line);
                }
            }
        }
    }

    @Test
    void aClientNobodyListensForIsRejectedWithReasonEight(@TempDir Path dir) throws Exception {
        // a process listening on another port: the device's CM answers, and a REQ for port 7221 finds no listener
        try (ChildJvm listener = ChildJvm.jrdma(dir, "other", Threading.ADAPTIVE, "rxe0=127.0.206.61", "rping",
                "-s", "-d", "-a", "127.0.206.61", "-p", "7220", "--timeout=30")) {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!listener.out().contains("rdma_listen") && System.nanoTime() < deadline && listener.alive()) {
                Thread.sleep(100);
            }
            assertTrue(listener.out().contains("rdma_listen"), listener.describe());
            Thread.sleep(200); // "rdma_listen" is printed just before the call, as rping does
            try (ChildJvm cli = ChildJvm.jrdma(dir, "client", Threading.ADAPTIVE, "rxe0=127.0.206.62", "rping", "-c",
                    "-a", "127.0.206.61", "-p", "7221", "-C", "1", "--timeout=20")) {
                ChildJvm.awaitAll(cli);
                assertEquals(Rping.CM_ERROR_STATUS, cli.status(), cli.describe());
                assertEquals("cma event RDMA_CM_EVENT_REJECTED, error 8\n", cli.err(), cli.describe());
            }
        }
    }

    @Test
    void badOptionsPrintRpingsMessages() {
        assertEquals(List.of(22, "rping: Invalid size 10 (valid range is 26 to 65536)"), runInJvm("-s", "-S", "10"));
        assertEquals(List.of(22, "rping: one of -s (server) or -c (client) is required"), runInJvm("-v"));
        assertEquals(List.of(22, "rping: -P (persistent server) is not implemented by jrdma's rping"),
                runInJvm("-s", "-P"));
        assertEquals(List.of(22, "rping: Invalid count -1"), runInJvm("-c", "-C", "-1"));
    }

    private static List<Object> runInJvm(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Rping.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("rping -s [-vVd]"), "usage printed");
        return List.of(rc, err.toString(StandardCharsets.UTF_8).strip());
    }
}
