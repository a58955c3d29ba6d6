package io.jrdma.tools.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.verbs.Gid;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * rc_pingpong's address exchange spins for the server's answer before it blocks (more than one CPU), as perftest's
 * does: real loopback TCP, the server answering 80 ms late; what the client did meanwhile is read from its CPU time.
 */
class PingpongExchangeSpinTest {

    @Test
    void theClientSpinsWhileTheServerConnectsItsQp() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "one CPU: the reads block at once");
        assumeTrue(threads.isCurrentThreadCpuTimeSupported(), "no per-thread CPU time here");
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Exchange.Dest clientDest = new Exchange.Dest(1, 0x11, 0x111, Gid.ZERO);
        Exchange.Dest serverDest = new Exchange.Dest(2, 0x22, 0x222, Gid.ZERO);
        int listenPort = port;
        CompletableFuture<Exchange.Dest> server = CompletableFuture.supplyAsync(() -> {
            try {
                return Exchange.server(listenPort, serverDest, remote -> Thread.sleep(80), 10_000);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long before = threads.getCurrentThreadCpuTime();
        Exchange.Dest got = Exchange.client("127.0.0.1", port, clientDest, 10_000);
        long cpuMs = TimeUnit.NANOSECONDS.toMillis(threads.getCurrentThreadCpuTime() - before);
        assertEquals(serverDest, got);
        assertEquals(clientDest, server.get(10, TimeUnit.SECONDS));
        // blocked, the client would use a few ms of CPU (its first connection) while the server connects for 80 ms
        assertTrue(cpuMs >= 20, "the client spun " + cpuMs + " ms of CPU while the server took 80 ms");
    }
}
