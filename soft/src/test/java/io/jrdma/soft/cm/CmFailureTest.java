package io.jrdma.soft.cm;

import static io.jrdma.soft.cm.CmFixture.expect;
import static io.jrdma.soft.cm.CmFixture.expectAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.QpType;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Connections that fail or wait: a vanished peer, a full backlog, many connections in a row with no leak. */
class CmFailureTest {

    @BeforeEach
    void shortTimeouts() {
        // REQ timeout 2 * 1 ms + 16 ms, 3 retries; timewait 128 ms
        System.setProperty("jrdma.cm.responseTimeout", "12");
        System.setProperty("jrdma.cm.packetLifetime", "8");
        System.setProperty("jrdma.cm.maxRetries", "3");
    }

    @AfterEach
    void restore() {
        System.clearProperty("jrdma.cm.responseTimeout");
        System.clearProperty("jrdma.cm.packetLifetime");
        System.clearProperty("jrdma.cm.maxRetries");
    }

    @Test
    void peerVanishedBeforeAnsweringIsUnreachable() {
        try (CmFixture f = new CmFixture("127.0.186")) {
            CmId listener = f.listen(PortSpace.TCP, 7000, 4);
            f.registry.closeAgent(f.serverDev); // the passive side goes away before any REQ
            CmId active = f.resolved(PortSpace.TCP, 7000);
            long start = System.nanoTime();
            active.connect(new ConnParam());
            CmEvent e = expect(f.client, CmEventType.UNREACHABLE);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(-110, e.status());
            e.ack();
            assertTrue(ms < 5_000, "took " + ms + " ms");
            CmAgent c = f.agentOf(f.clientDev);
            assertEquals(3, c.counter(CmCounter.RETRANSMISSIONS));
            assertEquals(1, c.counter(CmCounter.TIMEOUTS));
            active.close();
            listener.close();
            f.assertClean();
        }
    }

    @Test
    void fullBacklogDropsTheRequestUntilOneIsAcknowledged() {
        System.setProperty("jrdma.cm.maxRetries", "15"); // long enough for the second REQ to outlive the first
        System.setProperty("jrdma.cm.responseTimeout", "14");
        try (CmFixture f = new CmFixture("127.0.187")) {
            CmId listener = f.listen(PortSpace.TCP, 7001, 1);
            CmId first = f.resolved(PortSpace.TCP, 7001);
            first.connect(new ConnParam());
            CmEvent req1 = expect(f.server, CmEventType.CONNECT_REQUEST);
            CmId second = f.resolved(PortSpace.TCP, 7001);
            second.connect(new ConnParam());
            CmAgent server = f.agentOf(f.serverDev);
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (server.counter(CmCounter.DROPPED_BACKLOG) == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(server.counter(CmCounter.DROPPED_BACKLOG) > 0, "the second REQ was not dropped");
            assertNull(f.server.getEvent(Duration.ofMillis(100)), "a second request passed a backlog of 1");
            req1.ack(); // frees the backlog place: the second REQ's next retransmission gets in
            CmEvent req2 = expect(f.server, CmEventType.CONNECT_REQUEST);
            assertNotNull(req2.id());
            req1.id().reject(null);
            req2.ack();
            req2.id().reject(null);
            for (int i = 0; i < 2; i++) {
                CmEvent rej = expect(f.client, CmEventType.REJECTED);
                assertEquals(28, rej.status());
                rej.ack();
            }
            req1.id().close();
            req2.id().close();
            first.close();
            second.close();
            listener.close();
            f.assertClean();
        }
    }

    @Test
    void hundredConnectionsLeaveNothingBehind() {
        // about the state left behind, not the timers: the kernel's timeouts' order (1 s), so a loaded machine
        // (a build beside it) does not turn a slow accept into UNREACHABLE
        System.setProperty("jrdma.cm.responseTimeout", "18");
        System.setProperty("jrdma.cm.maxRetries", "15");
        long fdsBefore = openFds();
        try (CmFixture f = new CmFixture("127.0.188")) {
            CmId listener = f.listen(PortSpace.TCP, 7002, 8);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            for (int i = 0; i < 100 && System.nanoTime() < deadline; i++) {
                CmId active = f.resolved(PortSpace.TCP, 7002);
                CmFixture.Side a = new CmFixture.Side(active, QpType.RC);
                active.connect(new ConnParam().privateData(new byte[] {(byte) i}));
                CmEvent req = expect(f.server, CmEventType.CONNECT_REQUEST);
                assertEquals((byte) i, req.privateData()[0]);
                CmId passive = req.id();
                req.ack();
                CmFixture.Side b = new CmFixture.Side(passive, QpType.RC);
                passive.accept(new ConnParam());
                expectAck(f.client, CmEventType.ESTABLISHED);
                expectAck(f.server, CmEventType.ESTABLISHED);
                (i % 2 == 0 ? active : passive).disconnect();
                expectAck(i % 2 == 0 ? f.server : f.client, CmEventType.DISCONNECTED);
                (i % 2 == 0 ? passive : active).disconnect();
                expectAck(i % 2 == 0 ? f.client : f.server, CmEventType.DISCONNECTED);
                passive.close();
                active.close();
                a.close();
                b.close();
                assertEquals(1, f.registry.idCount(), "ids after connection " + i);
            }
            listener.close();
            f.assertClean();
            long fdsAfter = openFds();
            assertTrue(fdsAfter <= fdsBefore + 16, "file descriptors " + fdsBefore + " -> " + fdsAfter
                    + " (the two devices' sockets and channels, not one per connection)");
        }
    }

    /** Open file descriptors of this process (Linux /proc/self/fd), or 0 where that does not exist. */
    private static long openFds() {
        java.io.File[] fds = new java.io.File("/proc/self/fd").listFiles();
        return fds == null ? 0 : fds.length;
    }
}
