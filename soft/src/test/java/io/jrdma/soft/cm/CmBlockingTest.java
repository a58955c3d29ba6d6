package io.jrdma.soft.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.cm.CmConnection;
import io.jrdma.cm.CmListener;
import io.jrdma.cm.CmOptions;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The blocking layer ({@link CmConnection}, {@link CmListener}) over the soft CM, as an application uses it: found
 * through {@link io.jrdma.cm.EventChannel#create()}, two soft devices of this JVM (127.0.208.1 and .2), a
 * connection made and used for a SEND, then closed from one side.
 */
class CmBlockingTest {

    private static final String DEVICES = "blk1=127.0.208.1,blk2=127.0.208.2";
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

    @Test
    void connectAcceptSendAndClose() throws Exception {
        CmOptions server = new CmOptions();
        server.param().privateData("from server".getBytes(StandardCharsets.US_ASCII));
        CmOptions client = new CmOptions().source(InetAddress.getByName("127.0.208.1"));
        client.param().privateData("from client".getBytes(StandardCharsets.US_ASCII));
        try (CmListener listener = CmListener.listen(new InetSocketAddress("127.0.208.2", 7600), 4, server);
             Arena arena = Arena.ofShared()) {
            CompletableFuture<CmConnection> accepted = CompletableFuture.supplyAsync(
                    () -> listener.accept(Duration.ofSeconds(20)));
            CmConnection c = CmConnection.connect(new InetSocketAddress("127.0.208.2", 7600), client);
            try (CmConnection s = accepted.get(30, TimeUnit.SECONDS)) {
                assertEquals(QpState.RTS, c.qp().state());
                assertEquals(QpState.RTS, s.qp().state());
                assertTrue(startsWith(s.peerPrivateData(), "from client"), Arrays.toString(s.peerPrivateData()));
                assertTrue(startsWith(c.peerPrivateData(), "from server"), Arrays.toString(c.peerPrivateData()));
                assertEquals("/127.0.208.1", s.peerAddress().getAddress().toString());

                MemorySegment rbuf = arena.allocate(64);
                MemorySegment sbuf = arena.allocate(64);
                sbuf.setString(0, "over a CM-made QP", StandardCharsets.US_ASCII);
                MemoryRegion rmr = s.pd().registerMemory(rbuf, Access.LOCAL_WRITE);
                MemoryRegion smr = c.pd().registerMemory(sbuf, 0);
                s.qp().postRecv(new RecvWr().wrId(7).sg(new Sge(rbuf.address(), 64, rmr.lkey())));
                c.qp().postSend(new SendWr().wrId(8).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(sbuf.address(), 18, smr.lkey())));
                WorkCompletion got = pollOne(s);
                assertEquals(WcStatus.SUCCESS, got.status());
                assertEquals(WcOpcode.RECV, got.opcode());
                assertEquals(18, got.byteLen());
                assertEquals("over a CM-made QP", rbuf.getString(0, StandardCharsets.US_ASCII));
                assertEquals(WcStatus.SUCCESS, pollOne(c).status());
                smr.close();
                rmr.close();

                CompletableFuture<Boolean> ended = CompletableFuture.supplyAsync(
                        () -> s.awaitDisconnected(Duration.ofSeconds(10)));
                long t0 = System.nanoTime();
                c.close(); // DREQ; the server's pump answers with the DREP, so close does not wait for its timeout
                long closeMs = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(ended.get(15, TimeUnit.SECONDS));
                assertTrue(s.isDisconnected());
                assertTrue(closeMs < 5_000, "close took " + closeMs + " ms");
                assertEquals(QpState.ERR, s.qp().state());
            } finally {
                c.close(); // idempotent
            }
        }
    }

    @Test
    void nobodyListeningIsConnectionRefusedWithTheReason() throws Exception {
        try (CmListener other = CmListener.listen(new InetSocketAddress("127.0.208.2", 7601), 1, new CmOptions())) {
            VerbsException e = assertThrows(VerbsException.class, () -> CmConnection.connect(
                    new InetSocketAddress("127.0.208.2", 7602),
                    new CmOptions().source(InetAddress.getByName("127.0.208.1"))));
            assertEquals(Errno.ECONNREFUSED, e.errno());
            assertTrue(e.getMessage().contains("RDMA_CM_EVENT_REJECTED, status 8"), e.getMessage());
            assertNull(other.accept(Duration.ofMillis(200)));
        }
    }

    private static boolean startsWith(byte[] data, String prefix) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        return data.length >= p.length && Arrays.equals(data, 0, p.length, p, 0, p.length);
    }

    private static WorkCompletion pollOne(CmConnection conn) throws InterruptedException {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (conn.cq().poll(wc, 1) == 1) {
                return wc[0];
            }
            Thread.sleep(1);
        }
        throw new AssertionError("no completion within 10 s");
    }
}
