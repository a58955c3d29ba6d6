package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MAD ports of two soft devices on 127.0.164.x (one pair per threading mode) exchanging MADs over QP 1 and replying
 * to the address a receive returns; blocking receives woken by a MAD and timing out; opening twice (EBUSY), closing
 * and reopening; arguments refused. The drops of packets to QP 1 are in {@link MadPortDropTest}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MadPortTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static String ip(Threading t, int end) {
        return "127.0.164." + (t.ordinal() * 2 + end);
    }

    @ParameterizedTest
    @EnumSource(Threading.class)
    void shouldExchangeMadsAndReplyToTheSender(Threading t) {
        try (MadPeer a = new MadPeer(ip(t, 1), t); MadPeer b = new MadPeer(ip(t, 2), t);
                MadPort pa = MadPort.open(a.ctx, 1); MadPort pb = MadPort.open(b.ctx, 1)) {
            long sent = a.count(Counter.RDMA_SENDS);
            for (int i = 0; i < 20; i++) {
                pa.send(a.mad(i), b.gsi());
                MadAddress from = pb.receive(b.in, WAIT);
                assertNotNull(from, "request " + i + " not received");
                b.assertReceived(i);
                assertEquals(a.gsi(), from, "the sender: A's IPv4-mapped GID, QP 1, the GSI Q_Key, P_Key index 0");
                assertEquals(((SoftDevice) a.ctx.device()).address(), from.address());
                pb.send(b.mad(1000 + i), from); // the reply goes where the request came from
                MadAddress back = pa.receive(a.in, WAIT);
                assertNotNull(back, "reply " + i + " not received");
                a.assertReceived(1000 + i);
                assertEquals(b.gsi(), back);
            }
            assertEquals(sent + 20, a.count(Counter.RDMA_SENDS), "each MAD one SEND from QP 1");
            assertNull(pa.poll(a.in), "nothing more queued");
            assertNull(pb.poll(b.in), "nothing more queued");
        }
    }

    @ParameterizedTest
    @EnumSource(Threading.class)
    void shouldWakeABlockedReceiverAndTimeOutWithoutMads(Threading t) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (MadPeer a = new MadPeer(ip(t, 1), t); MadPeer b = new MadPeer(ip(t, 2), t);
                MadPort pa = MadPort.open(a.ctx, 1); MadPort pb = MadPort.open(b.ctx, 1)) {
            long start = System.nanoTime();
            assertNull(pb.receive(b.in, Duration.ofMillis(200)), "no MAD was sent");
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(200), "waited the timeout");
            for (int i = 0; i < 3; i++) {
                Future<MadAddress> got = pool.submit(() -> pb.receive(b.in, WAIT)); // blocks in the channel
                Thread.sleep(100);
                assertTrue(!got.isDone(), "the receiver waits for a MAD");
                long sentAt = System.nanoTime();
                pa.send(a.mad(7 + i), b.gsi());
                assertEquals(a.gsi(), got.get(WAIT.toSeconds(), TimeUnit.SECONDS));
                assertTrue(System.nanoTime() - sentAt < TimeUnit.SECONDS.toNanos(5), "woken by the MAD");
                b.assertReceived(7 + i);
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void shouldSendFromAnotherThreadWhileOneReceives() throws Exception {
        try (MadPeer a = new MadPeer("127.0.165.1", Threading.ADAPTIVE);
                MadPeer b = new MadPeer("127.0.165.2", Threading.ADAPTIVE);
                MadPort pa = MadPort.open(a.ctx, 1); MadPort pb = MadPort.open(b.ctx, 1)) {
            CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment mad = arena.allocate(MadPort.MAD_SIZE);
                    for (int i = 0; i < 10; i++) {
                        mad.fill((byte) i);
                        pb.send(mad, a.gsi()); // B sends from this thread while B's owner thread receives
                    }
                }
            });
            for (int i = 0; i < 10; i++) {
                pa.send(a.mad(i), b.gsi());
                assertEquals(a.gsi(), pb.receive(b.in, WAIT));
                b.assertReceived(i);
            }
            sender.get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 10; i++) {
                assertEquals(b.gsi(), pa.receive(a.in, WAIT));
                assertEquals((byte) i, a.in.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 255));
            }
        }
    }

    @Test
    void shouldRefuseASecondOpenWithEbusyAndReopenAfterClose() {
        try (MadPeer a = new MadPeer("127.0.165.3", Threading.ADAPTIVE);
                MadPeer b = new MadPeer("127.0.165.4", Threading.ADAPTIVE)) {
            MadPort pa = MadPort.open(a.ctx, 1);
            MadPort pb = MadPort.open(b.ctx, 1);
            VerbsException e = assertThrows(VerbsException.class, () -> MadPort.open(b.ctx, 1));
            assertEquals(Errno.EBUSY, e.errno());
            VerbsException busy = assertThrows(VerbsException.class, b.ctx::close);
            assertEquals(Errno.EBUSY, busy.errno(), "the open port's QP 1 keeps the context busy");
            pa.send(a.mad(1), b.gsi());
            assertNotNull(pb.receive(b.in, WAIT));
            pb.close();
            pb.close(); // idempotent
            assertThrows(IllegalStateException.class, () -> pb.receive(b.in, Duration.ZERO));
            assertThrows(IllegalStateException.class, () -> pb.send(b.mad(1), a.gsi()));
            long noPort = b.count(Counter.MAD_NO_PORT);
            pa.send(a.mad(2), b.gsi());
            b.awaitCounter(Counter.MAD_NO_PORT, noPort + 1); // QP 1 is gone with the port
            try (MadPort again = MadPort.open(b.ctx, 1)) {
                assertNull(again.poll(b.in), "a MAD dropped while closed is not delivered later");
                pa.send(a.mad(3), b.gsi());
                assertEquals(a.gsi(), again.receive(b.in, WAIT));
                b.assertReceived(3);
                again.send(b.mad(4), a.gsi());
                assertEquals(b.gsi(), pa.receive(a.in, WAIT));
                a.assertReceived(4);
            }
            pa.close();
        }
    }

    /**
     * A burst the receiver does not read meanwhile (a peer ending its 100 connections sends 100 DREQs at once) is
     * kept whole, as kernel ib_mad's 512 posted receives keep it: nothing counts out_of_buffer.
     */
    @Test
    void shouldKeepABurstOfTwoHundredMads() {
        try (MadPeer a = new MadPeer("127.0.165.21", Threading.ADAPTIVE);
                MadPeer b = new MadPeer("127.0.165.22", Threading.ADAPTIVE);
                MadPort pa = MadPort.open(a.ctx, 1); MadPort pb = MadPort.open(b.ctx, 1)) {
            for (int i = 0; i < 200; i++) {
                pa.send(a.mad(i), b.gsi());
            }
            for (int i = 0; i < 200; i++) {
                assertNotNull(pb.receive(b.in, WAIT), "MAD " + i + " of 200 lost");
                b.assertReceived(i); // in order, intact
            }
            assertEquals(0, b.count(Counter.OUT_OF_BUFFER));
        }
    }

    @Test
    void shouldRefuseBadArguments() {
        try (MadPeer a = new MadPeer("127.0.165.5", Threading.INVOKER); MadPort pa = MadPort.open(a.ctx, 1);
                Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class, () -> MadPort.open(a.ctx, 2));
            assertThrows(IllegalArgumentException.class, () -> pa.send(arena.allocate(255), a.gsi()));
            assertThrows(IllegalArgumentException.class, () -> pa.send(arena.allocate(257), a.gsi()));
            assertThrows(IllegalArgumentException.class, () -> pa.receive(arena.allocate(100), Duration.ZERO));
            assertThrows(IllegalArgumentException.class, () -> pa.receive(a.in, Duration.ofMillis(-1)));
            assertThrows(NullPointerException.class, () -> pa.send(a.mad(0), null));
            assertThrows(IllegalArgumentException.class,
                    () -> new MadAddress(io.jrdma.verbs.Gid.parse("fe80::1"), 1, MadPort.GSI_QKEY, 0));
            assertThrows(IllegalArgumentException.class, () -> new MadAddress(a.gid(), 1 << 24, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> new MadAddress(a.gid(), 1, 0, 1));
            assertEquals(new MadAddress(a.gid(), 1, 0x8001_0000, 0),
                    MadAddress.gsi(((SoftDevice) a.ctx.device()).address()));
        }
    }

    @Test
    void shouldKeepABoundedCacheOfAddressHandles() throws Exception {
        try (MadPeer a = new MadPeer("127.0.165.6", Threading.INVOKER)) {
            io.jrdma.verbs.ProtectionDomain pd = a.ctx.allocPd();
            AhCache cache = new AhCache(pd, 3);
            io.jrdma.verbs.AddressHandle first = cache.get(MadAddress.gsi(
                    java.net.InetAddress.getByName("127.0.165.100")).gid());
            for (int i = 101; i < 110; i++) {
                cache.get(MadAddress.gsi(java.net.InetAddress.getByName("127.0.165." + i)).gid());
                assertTrue(cache.size() <= 3, "bounded");
            }
            assertEquals(3, cache.size());
            assertTrue(((SoftAh) first).closed, "the evicted handle is destroyed");
            cache.clear();
            pd.close(); // every handle was destroyed, or the PD would be busy
        }
    }
}
