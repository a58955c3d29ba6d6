package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Threading;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.AssertionFailedError;

/**
 * Every tool and example runs to completion, exit 0, in every threading mode. This class checks the harness (the
 * JVMs that {@link ChildJvm} starts get the mode they are given; one that does not finish is killed and fails its
 * test) and runs {@code jrdma hello-verbs}, server and client each in a JVM of its own, in each mode. The other
 * tools' cases are beside their own tests: {@code PerftestModesTest} (the eight perftest tools), {@code PingpongTest}
 * (rc_pingpong, ud_pingpong), {@link DemoRunTest}, {@link NoncontigTest}, {@link ThroughputTest}, {@code ScaleTest};
 * the example's own is {@code HelloVerbsProcessTest} in examples. Each mode's devices are on addresses of its own,
 * 127.0.14X.M1 and .M2 (M the mode's ordinal + 1).
 */
class ThreadingModesTest {

    @TempDir
    Path dir;

    /** A child started as the tests start the tools gets devices in the mode it is given: the cases test that mode. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void childrenShouldOpenTheirDevicesInTheModeTheyAreGiven(Threading mode) throws Exception {
        String net = "127.0.147." + (mode.ordinal() + 1);
        try (ChildJvm probe = ChildJvm.start(dir, "probe", mode, List.of("jrdma.devices=pa=" + net + "1,pb=" + net
                + "2"), ThreadingProbe.class.getName(), List.of())) {
            ChildJvm.awaitAll(probe);
            assertEquals(0, probe.status(), probe.describe());
            String m = mode.name().toLowerCase(Locale.ROOT);
            assertEquals("pa " + m + "\npb " + m + "\n", probe.out(), probe.describe());
        }
    }

    /** A child that does not finish within the bound is killed, and the test fails with what it printed. */
    @Test
    void aChildThatDoesNotFinishShouldBeKilledAndFailTheTest() throws Exception {
        String port = Integer.toString(ChildJvm.freeTcpPort());
        try (ChildJvm lonely = ChildJvm.jrdma(dir, "server", Threading.INVOKER, null, "hello-verbs", "server",
                "--addr", "127.0.147.41", "--port", port, "--timeout", "60")) {
            long t0 = System.nanoTime();
            AssertionFailedError e = assertThrows(AssertionFailedError.class,
                    () -> ChildJvm.awaitAll(Duration.ofSeconds(5), lonely));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "the wait was not bounded");
            assertFalse(lonely.alive(), "the child was not killed");
            assertTrue(e.getMessage().startsWith("server did not finish within 5000 ms (killed)\n--- server (exit "),
                    e.getMessage());
            assertTrue(e.getMessage().contains("-Djrdma.threading=invoker io.jrdma.tools.Jrdma hello-verbs server"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("waiting for a client on TCP port " + port), e.getMessage());
        }
    }

    /**
     * {@code jrdma hello-verbs}: the server waits on TCP for the client's "done" while the client's RDMA WRITE needs
     * the server's device to answer; in invoker mode only the server's waiting drives it.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    void helloVerbsShouldRunToCompletionInEveryThreadingMode(Threading mode) throws Exception {
        String net = "127.0.142." + (mode.ordinal() + 1);
        String port = Integer.toString(ChildJvm.freeTcpPort());
        String engine = " (" + mode.name().toLowerCase(Locale.ROOT) + " engine), ";
        try (ChildJvm server = ChildJvm.jrdma(dir, "server", mode, null, "hello-verbs", "server", "--addr", net + "1",
                "--port", port);
                ChildJvm client = ChildJvm.jrdma(dir, "client", mode, null, "hello-verbs", "client", "127.0.0.1",
                        "--addr", net + "2", "--port", port)) {
            ChildJvm.awaitAll(server, client);
            String all = server.describe() + client.describe();
            assertEquals(0, server.status(), all);
            assertEquals(0, client.status(), all);
            assertTrue(server.err().isEmpty() && client.err().isEmpty(), all);
            assertTrue(server.out().startsWith("server: device rxe0 on " + net + "1" + engine), all);
            assertTrue(client.out().startsWith("client: device rxe0 on " + net + "2" + engine), all);
            assertTrue(client.out().contains("wrote \"hello verbs\" (12 bytes) to 0x"), all);
            assertTrue(client.out().contains(": SUCCESS RDMA_WRITE\n"), all);
            assertTrue(server.out().endsWith("received: hello verbs\n"), all);
        }
    }
}
