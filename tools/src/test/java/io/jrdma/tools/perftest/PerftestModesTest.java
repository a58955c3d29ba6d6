package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Threading;
import io.jrdma.tools.ChildJvm;
import io.jrdma.tools.perftest.PerftestTest.Relay;
import io.jrdma.tools.perftest.PerftestTest.Run;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every perftest tool runs to completion in every threading mode ({@code -Djrdma.threading=adaptive|invoker|
 * dedicated}): server and client each in a JVM of its own, as the tools are meant to run (a side blocked on the TCP
 * exchange while its peer works is what hung in invoker mode), the client's TCP through {@link PerftestTest}'s
 * counting relay, {@code --check} verifying every byte and atomic result. Each case asserts both exit statuses,
 * empty stderr, the address lines, the result rows and the TCP bytes, as {@link PerftestTest#assertRun}; a side
 * that has not finished within {@link ChildJvm#BOUND} is killed and fails the case with both sides' output.
 * Each mode has devices of its own: 127.0.140.M1 (server) and 127.0.140.M2 (client), M the mode's ordinal + 1.
 */
class PerftestModesTest {

    @TempDir
    Path dir;

    /** One command line of one tool and what its run must show: message size, iterations, TCP bytes each way. */
    record Case(Tool tool, String args, long size, long iters, long tcpBytes) {
        @Override
        public String toString() {
            return tool.command + " " + args;
        }
    }

    private static final List<Case> CASES = List.of(
            new Case(Tool.IB_SEND_BW, "-n 200 -s 4097", 4097, 200, PerftestTest.SEND_BW_BYTES),
            new Case(Tool.IB_SEND_BW, "-n 200 -s 4097 -e", 4097, 200, PerftestTest.SEND_BW_BYTES),
            new Case(Tool.IB_SEND_LAT, "-n 200 -s 1", 1, 200, PerftestTest.LAT_BYTES),
            new Case(Tool.IB_SEND_LAT, "-n 200 -s 1 -e", 1, 200, PerftestTest.LAT_BYTES),
            new Case(Tool.IB_WRITE_BW, "-n 200 -s 4095", 4095, 200, PerftestTest.rdmaBwBytes(1)), // no -e
            new Case(Tool.IB_WRITE_LAT, "-n 200 -s 4095", 4095, 200, PerftestTest.WRITE_LAT_BYTES), // no -e
            new Case(Tool.IB_READ_BW, "-n 200 -s 65536", 65536, 200, PerftestTest.rdmaBwBytes(1)),
            new Case(Tool.IB_READ_BW, "-n 200 -s 65536 -e", 65536, 200, PerftestTest.rdmaBwBytes(1)),
            new Case(Tool.IB_READ_LAT, "-n 200 -s 65536", 65536, 200, PerftestTest.LAT_BYTES),
            new Case(Tool.IB_READ_LAT, "-n 200 -s 65536 -e", 65536, 200, PerftestTest.LAT_BYTES),
            new Case(Tool.IB_ATOMIC_BW, "-n 200", 8, 200, PerftestTest.rdmaBwBytes(1)),
            new Case(Tool.IB_ATOMIC_BW, "-n 200 -e", 8, 200, PerftestTest.rdmaBwBytes(1)),
            new Case(Tool.IB_ATOMIC_LAT, "-n 200", 8, 200, PerftestTest.LAT_BYTES),
            new Case(Tool.IB_ATOMIC_LAT, "-n 200 -e", 8, 200, PerftestTest.LAT_BYTES),
            new Case(Tool.IB_SEND_BW, "-n 200 -s 4097 -c UC", 4097, 200, PerftestTest.SEND_BW_BYTES),
            new Case(Tool.IB_SEND_LAT, "-n 200 -s 1024 -c UD", 1024, 200, PerftestTest.LAT_BYTES));

    static Stream<Arguments> cases() {
        return Arrays.stream(Threading.values()).flatMap(m -> CASES.stream().map(c -> Arguments.of(m, c)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("cases")
    void shouldRunToCompletionInEveryThreadingMode(Threading mode, Case c) throws Exception {
        Run r = run(mode, c.tool(), c.args().split(" "));
        try {
            PerftestTest.assertRun(r, c.tool(), new long[] {c.size()}, c.iters(), 1, c.tcpBytes());
        } catch (AssertionError e) {
            throw new AssertionError(mode + ": " + c + ": " + e.getMessage(), e);
        }
    }

    /** A timed run: the server waits on TCP for the whole duration while the client WRITEs (what hung in invoker). */
    @ParameterizedTest(name = "{0}: ib_write_bw -D 1 -s 65536")
    @EnumSource(Threading.class)
    void writeBwShouldRunForADurationInEveryThreadingMode(Threading mode) throws Exception {
        Run r = run(mode, Tool.IB_WRITE_BW, "-D", "1", "-s", "65536");
        assertEquals(0, r.serverRc(), r.all());
        assertEquals(0, r.clientRc(), r.all());
        assertTrue(r.serverErr().isEmpty() && r.clientErr().isEmpty(), r.all());
        List<String> rows = PerftestTest.rows(r.client());
        assertEquals(1, rows.size(), r.all());
        String[] f = rows.getFirst().trim().split("\\s+");
        assertEquals("65536", f[0], r.all());
        assertTrue(Long.parseLong(f[1]) > 0, r.all());
        assertEquals(rows, PerftestTest.rows(r.server()), r.all()); // the server prints the client's report
        assertEquals(PerftestTest.rdmaBwBytes(1), r.clientBytes(), r.all());
        assertEquals(PerftestTest.rdmaBwBytes(1), r.serverBytes(), r.all());
    }

    /** Server and client of {@code tool} with {@code args} (plus --check), each in a JVM of its own in {@code mode}. */
    private Run run(Threading mode, Tool tool, String... args) throws Exception {
        String net = "127.0.140." + (mode.ordinal() + 1);
        String devices = "pfserver=" + net + "1,pfclient=" + net + "2";
        int port = ChildJvm.freeTcpPort();
        List<String> common = new ArrayList<>(List.of(tool.command));
        common.addAll(List.of(args));
        common.addAll(List.of("--timeout=10", "--check"));
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (Relay relay = new Relay(port, pool)) {
            List<String> serverArgs = new ArrayList<>(common);
            serverArgs.addAll(List.of("-d", "pfserver", "-p", Integer.toString(port)));
            List<String> clientArgs = new ArrayList<>(common);
            clientArgs.addAll(List.of("-d", "pfclient", "-p", Integer.toString(relay.port()), "127.0.0.1"));
            try (ChildJvm server = ChildJvm.jrdma(dir, "server", mode, devices, serverArgs.toArray(String[]::new));
                    ChildJvm client = ChildJvm.jrdma(dir, "client", mode, devices,
                            clientArgs.toArray(String[]::new))) {
                ChildJvm.awaitAll(server, client);
                try {
                    relay.awaitDone();
                } catch (Exception e) {
                    throw new AssertionError("the TCP relay failed\n" + server.describe() + client.describe(), e);
                }
                return new Run(server.status(), server.out(), server.err(), client.status(), client.out(),
                        client.err(), relay.toServer.get(), relay.toClient.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
