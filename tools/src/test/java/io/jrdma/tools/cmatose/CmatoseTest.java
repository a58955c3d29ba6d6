package io.jrdma.tools.cmatose;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * jrdma ucmatose and udaddy, server and client each in a JVM of its own with its own soft device (127.0.207.x):
 * several connections made by the connection manager, messages both ways, the real tools' output line for line.
 */
class CmatoseTest {

    private static final String UCMATOSE_SERVER = """
            cmatose: starting server
            initiating data transfers
            completing sends
            receiving data transfers
            data transfers complete
            cmatose: disconnecting
            disconnected
            test complete
            return status 0
            """;
    private static final String UCMATOSE_CLIENT = """
            cmatose: starting client
            cmatose: connecting
            receiving data transfers
            sending replies
            data transfers complete
            test complete
            return status 0
            """;
    private static final String UDADDY_SERVER = """
            udaddy: starting server
            receiving data transfers
            sending replies
            data transfers complete
            test complete
            return status 0
            """;
    private static final String UDADDY_CLIENT = """
            udaddy: starting client
            udaddy: connecting
            initiating data transfers
            receiving data transfers
            data transfers complete
            test complete
            return status 0
            """;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void ucmatoseRunsThreeConnections(Threading mode, @TempDir Path dir) throws Exception {
        String base = "127.0.207." + (mode.ordinal() + 1);
        run(dir, mode, "ucmatose", base + "1", base + "2", List.of("-c", "3", "-C", "10", "-S", "100", "-p",
                Integer.toString(7480 + mode.ordinal())), UCMATOSE_SERVER, UCMATOSE_CLIENT, "cmatose: event");
    }

    /** A hundred connections at once between two processes, each with one message each way, all torn down. */
    @Test
    void ucmatoseRunsAHundredConnectionsBetweenProcesses(@TempDir Path dir) throws Exception {
        run(dir, Threading.ADAPTIVE, "ucmatose", "127.0.207.81", "127.0.207.82", List.of("-c", "100", "-C", "1",
                "-p", "7490"), UCMATOSE_SERVER, UCMATOSE_CLIENT, "cmatose: event");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void udaddyRunsTwoUdQpsOverSidr(Threading mode, @TempDir Path dir) throws Exception {
        String base = "127.0.207." + (mode.ordinal() + 5);
        run(dir, mode, "udaddy", base + "1", base + "2", List.of("-c", "2", "-C", "10", "-S", "512"),
                UDADDY_SERVER, UDADDY_CLIENT, "udaddy: event");
    }

    private static void run(Path dir, Threading mode, String tool, String server, String client, List<String> args,
            String wantServer, String wantClient, String rejectPrefix) throws Exception {
        List<String> srvArgs = new ArrayList<>(List.of(tool, "-b", server, "--timeout=30"));
        srvArgs.addAll(args);
        List<String> cliArgs = new ArrayList<>(List.of(tool, "-s", server, "--timeout=30"));
        cliArgs.addAll(args);
        for (int attempt = 0; ; attempt++) { // until the server's JVM listened before the client's first request
            try (ChildJvm srv = ChildJvm.jrdma(dir, "server" + attempt, mode, "rxe0=" + server,
                    srvArgs.toArray(String[]::new));
                    ChildJvm cli = ChildJvm.jrdma(dir, "client" + attempt, mode, "rxe0=" + client,
                            cliArgs.toArray(String[]::new))) {
                ChildJvm.awaitAll(cli);
                // a server not listening yet: a REQ is rejected (8, invalid service ID), a SIDR REQ answered
                // "unsupported" (1), as the kernel's CM does. The server may have begun listening halfway through
                // the client's requests and taken some of its connections, so both start again.
                boolean early = cli.out().contains(rejectPrefix + ": RDMA_CM_EVENT_REJECTED, error: 8")
                        || cli.out().contains(rejectPrefix + ": RDMA_CM_EVENT_UNREACHABLE, error: 1");
                if (!early || attempt == 9) {
                    ChildJvm.awaitAll(srv);
                    assertEquals(0, cli.status(), cli.describe() + srv.describe());
                    assertEquals(0, srv.status(), srv.describe());
                    assertEquals(wantClient, cli.out(), cli.describe());
                    assertEquals(wantServer, srv.out(), srv.describe());
                    assertTrue(cli.err().isEmpty() && srv.err().isEmpty(), cli.describe() + srv.describe());
                    return;
                }
            }
            Thread.sleep(500);
        }
    }

    @Test
    void udaddyRefusesMessagesLargerThanTheMtu(@TempDir Path dir) throws Exception {
        // the check runs once the route is resolved, before anything is sent: no server is needed
        try (ChildJvm cli = ChildJvm.jrdma(dir, "client", Threading.ADAPTIVE, "rxe0=127.0.207.91", "udaddy", "-s",
                "127.0.207.92", "-S", "8192", "-C", "1", "--timeout=20")) {
            ChildJvm.awaitAll(cli);
            assertEquals(-22 & 0xFF, cli.status(), cli.describe());
            assertEquals("udaddy: starting client\nudaddy: connecting\n"
                    + "udaddy: message_size 8192 is larger than active mtu 4096\ntest complete\nreturn status -22\n",
                    cli.out(), cli.describe());
        }
    }

    @Test
    void badOptionsAreRefusedWithTheUsage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(1, Cmatose.run(CmatoseOptions.Tool.UCMATOSE, new String[] {"-m"}, o, e));
        assertEquals(1, Cmatose.run(CmatoseOptions.Tool.UDADDY, new String[] {"-P", "ipoib"}, o, e));
        String errors = err.toString(StandardCharsets.UTF_8);
        assertTrue(errors.contains("cmatose: -m (migrate) is not implemented by jrdma's ucmatose"), errors);
        assertTrue(errors.contains("udaddy: port space ipoib is not implemented by jrdma"), errors);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: ucmatose\n\t[-s server_address]"));
    }
}
