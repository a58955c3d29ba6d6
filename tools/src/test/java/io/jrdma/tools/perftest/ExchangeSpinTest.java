package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.tools.Rendezvous;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The exchange's reads spin for the peer's item before they block (machines with more than one CPU): a side whose
 * peer answers soon never sleeps, so the kernel never wakes it next to the peer's thread. Real perftest exchanges over
 * loopback TCP, the peer answering late; what the reader did meanwhile is read from its own CPU time.
 */
class ExchangeSpinTest {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @BeforeEach
    void needsTwoCpusAndThreadCpuTime() {
        assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "one CPU: the reads block at once");
        assumeTrue(THREADS.isCurrentThreadCpuTimeSupported(), "no per-thread CPU time here");
    }

    @Test
    void aReadWhosePeerAnswersSoonSpinsInsteadOfSleeping() throws Exception {
        long cpuMs = versionsWithPeerLate(40);
        // blocked, the reader would use well under a millisecond of CPU in those 40 ms; spinning it uses most of them
        // (at least 5 ms even on a loaded machine)
        assertTrue(cpuMs >= 5, "the reader spun " + cpuMs + " ms of CPU while its peer took 40 ms");
    }

    @Test
    void aReadWhosePeerIsSlowBlocksAfterTheSpin() throws Exception {
        long cpuMs = versionsWithPeerLate(400);
        assertTrue(cpuMs < TimeUnit.NANOSECONDS.toMillis(Rendezvous.SPIN_NS) + 150, "the reader used " + cpuMs
                + " ms of CPU while its peer took 400 ms: it spins at most "
                + TimeUnit.NANOSECONDS.toMillis(Rendezvous.SPIN_NS) + " ms, then blocks");
    }

    /** The version exchange, the server answering {@code lateMs} after the client wrote; the client's CPU ms. */
    private static long versionsWithPeerLate(long lateMs) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        int listenPort = port;
        CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> {
            try (Exchange ex = Exchange.accept(listenPort, 10_000)) {
                Thread.sleep(lateMs);
                return ex.exchangeVersions();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        try (Exchange client = Exchange.connect("127.0.0.1", port, 10_000)) {
            long before = THREADS.getCurrentThreadCpuTime();
            String remote = client.exchangeVersions();
            long cpuMs = TimeUnit.NANOSECONDS.toMillis(THREADS.getCurrentThreadCpuTime() - before);
            assertEquals(Exchange.VERSION, remote);
            assertEquals(Exchange.VERSION, server.get(10, TimeUnit.SECONDS));
            return cpuMs;
        }
    }
}
