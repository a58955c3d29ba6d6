package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shared-memory link between two sockets of this process, beside a thread of the receiver that waits: the
 * doorbell a sender rings is the receiver's eventfd, which ends each kind of wait and leaves the socket alone; a
 * receiver whose ring names no eventfd (a process of an older version) is rung over its socket, and the doorbell is
 * left in the socket for the waiting thread, which then takes it off; none is rung while a poller of the receiver
 * yields its core (127.0.22.x).
 */
class ShmLinkTest {

    private static final String A = "127.0.22.1";
    private static final String B = "127.0.22.2";
    private static final int RECORDS = 200;
    private static final long WAIT_MS = 200;

    @TempDir
    Path dir;
    private final Arena arena = Arena.ofAuto();

    @BeforeEach
    void needsNativeSockets() {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
    }

    /** The three ways a thread of a device waits on its link. */
    enum Wait {
        AWAIT, READABLE, RECEIVE;

        /** Waits on {@code link} up to about {@code ms}; the receive's datagram count, else 0. */
        int on(Link link, ByteBuffer[] rx, long ms) {
            switch (this) {
                case AWAIT -> link.await(ms);
                case READABLE -> link.awaitReadable(TimeUnit.MILLISECONDS.toNanos(ms));
                default -> {
                    link.receiveWaitLimit(TimeUnit.MILLISECONDS.toNanos(ms));
                    return link.receiveBatchWaiting(rx, 1);
                }
            }
            return 0;
        }
    }

    @ParameterizedTest
    @EnumSource(Wait.class)
    void aSleeperIsRungThroughItsEventfdAndItsSocketStaysEmpty(Wait wait) throws Exception {
        InetAddress b = InetAddress.getByName(B);
        try (Link la = shm(A); Link lb = shm(B)) {
            AtomicInteger doorbells = doorbells(la);
            ByteBuffer[] rx = buffers();
            la.prepare(Link.ipv4(b), Link.ROCE_PORT); // a has b's ring and doorbell before b sleeps
            Thread sender = sendSoon(la, b); // b is asleep by then
            long t0 = System.nanoTime();
            int got = wait.on(lb, rx, 4_000); // the doorbell ends it
            long woke = System.nanoTime() - t0;
            sender.join();
            assertTrue(woke < TimeUnit.SECONDS.toNanos(2), wait + " ended after " + woke + " ns, not by the doorbell");
            assertEquals(1, doorbells.get(), "b slept: a rang");
            if (got == 0) {
                got = receiveOne(lb, rx);
            }
            assertEquals(1, got);
            assertEquals(64, lb.batchLength(0), "the record, from the ring");
            assertEquals(0, lb.receiveBatch(rx, 1), "no doorbell in the socket: it went to the eventfd");
            t0 = System.nanoTime();
            // nothing comes: it sleeps (a receive's wait, up to 16 kernel ticks), the doorbell taken back to zero
            wait.on(lb, rx, WAIT_MS);
            long slept = System.nanoTime() - t0;
            assertTrue(slept >= TimeUnit.MILLISECONDS.toNanos(20), "the wait ended after " + slept + " ns");
        }
    }

    @Test
    void anotherThreadEndsAWaitingReceiveThroughTheEventfdAndTheSocketStaysEmpty() throws Exception {
        try (Link lb = shm(B)) {
            ByteBuffer[] rx = buffers();
            Thread waker = Thread.ofPlatform().start(() -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // b is asleep in its receive by then
                lb.wakeReceive();
            });
            long t0 = System.nanoTime();
            lb.receiveWaitLimit(TimeUnit.SECONDS.toNanos(4));
            int got = lb.receiveBatchWaiting(rx, 1);
            long woke = System.nanoTime() - t0;
            waker.join();
            assertTrue(woke < TimeUnit.SECONDS.toNanos(2), "the receive ended after " + woke + " ns, not by the wake");
            assertEquals(0, got, "nothing came: no wake-up datagram either");
            assertEquals(0, lb.receiveBatch(rx, 1), "the socket holds no wake-up datagram");
        }
    }

    @Test
    void aPollerLeavesTheDoorbellInTheSocketForTheThreadItWakes() throws Exception {
        InetAddress b = InetAddress.getByName(B);
        int ipB = Link.ipv4(b);
        try (Link la = shm(A); Link lb = shmRungOverUdp(B)) {
            assertInstanceOf(ShmLink.class, lb);
            AtomicInteger doorbells = doorbells(la);
            // a thread of b that waits on b's socket and has not got a core yet: registered in b's ring, not running
            ShmRingFile waiter = ShmRingFile.open(dir, ipB, Link.ROCE_PORT);
            assertNotNull(waiter);
            waiter.ring().sleeping();
            // meanwhile b's poller takes every record from the ring as a sends them
            ByteBuffer packet = ByteBuffer.allocateDirect(64);
            InetSocketAddress to = new InetSocketAddress(b, Link.ROCE_PORT);
            ByteBuffer[] rx = buffers();
            for (int i = 0; i < RECORDS; i++) {
                packet.clear();
                packet.put(0, (byte) i);
                assertTrue(la.send(la.port(), packet, to));
                int got = receiveOne(lb, rx);
                assertEquals(64, lb.batchLength(0), "record " + i + ", not a doorbell: " + got);
                assertEquals((byte) i, rx[0].get(0));
            }
            // one doorbell for the one wait: the poller left it in the socket, so the senders rang no more (taken by
            // the poller, each had to be replaced, and the next commit rang again)
            assertEquals(1, doorbells.get(), "doorbells for " + RECORDS + " records");
            // the waiter comes back: the doorbell is still there for the next receive, an empty datagram from a's
            // port that counts as a wake-up
            waiter.ring().awake();
            receiveOne(lb, rx);
            assertEquals(0, lb.batchLength(0));
            assertTrue(lb.isWakeUp(0));
            waiter.close();
        }
    }

    @Test
    void aThreadWokenByADoorbellTakesItOffTheSocketSoItsNextWaitWaits() throws Exception {
        InetAddress b = InetAddress.getByName(B);
        try (Link la = shm(A); Link lb = shmRungOverUdp(B)) {
            AtomicInteger doorbells = doorbells(la);
            ByteBuffer[] rx = buffers();
            Thread sender = sendSoon(la, b); // b is asleep by then
            lb.await(5_000); // the doorbell ends it
            sender.join();
            assertEquals(1, doorbells.get(), "b slept: a rang");
            assertEquals(1, receiveOne(lb, rx));
            assertEquals(64, lb.batchLength(0), "the record, from the ring");
            // the pass that follows finds the ring empty and reads the socket: the doorbell is there
            assertEquals(1, lb.receiveBatch(rx, 1), "the doorbell, taken off the socket");
            assertTrue(lb.isWakeUp(0), "only the doorbell is left: " + lb.batchLength(0) + " bytes");
            long t0 = System.nanoTime();
            lb.await(WAIT_MS); // nothing comes: it sleeps its time (with the doorbell left there, it returned at once)
            long slept = System.nanoTime() - t0;
            assertTrue(slept >= TimeUnit.MILLISECONDS.toNanos(WAIT_MS / 2), "the wait ended after " + slept + " ns");
        }
    }

    @Test
    void aSenderLeavesTheSleeperAloneWhileAPollerOfTheReceiverYields() throws Exception {
        InetAddress b = InetAddress.getByName(B);
        try (Link la = shm(A); Link lb = shm(B)) {
            AtomicInteger doorbells = doorbells(la);
            ShmRingFile sleeper = ShmRingFile.open(dir, Link.ipv4(b), Link.ROCE_PORT); // b's engine thread, asleep
            assertNotNull(sleeper);
            sleeper.ring().sleeping();
            InetSocketAddress to = new InetSocketAddress(b, Link.ROCE_PORT);
            ByteBuffer packet = ByteBuffer.allocateDirect(64);
            ByteBuffer[] rx = buffers();
            lb.yieldStarted();
            assertTrue(la.send(la.port(), packet, to));
            assertEquals(0, doorbells.get(), "b's poller yields: it takes the record as it comes back");
            assertTrue(lb.yieldEnded(), "the record waits for the poller");
            assertEquals(1, receiveOne(lb, rx));
            assertEquals(64, lb.batchLength(0));
            assertTrue(la.send(la.port(), packet, to));
            assertEquals(1, doorbells.get(), "no poller yields: the sleeper is rung");
            sleeper.ring().awake();
            sleeper.close();
        }
    }

    @Test
    void runsGoWithoutIcrcsOnlyToADeviceWhoseRingTakesThem() throws Exception {
        String c = "127.0.22.3";
        int ipA = Link.ipv4(InetAddress.getByName(A));
        int ipB = Link.ipv4(InetAddress.getByName(B));
        int ipC = Link.ipv4(InetAddress.getByName(c));
        try (Link la = shm(A); Link lb = shm(B);
             Link lc = ShmLink.over(Link.open(InetAddress.getByName(c), Link.ROCE_PORT, true), dir, false)) {
            assertTrue(la.icrcOptional(ipB, Link.ROCE_PORT), "b's ring takes runs without ICRCs");
            assertFalse(la.icrcOptional(ipC, Link.ROCE_PORT), "c keeps ICRCs on this path (jrdma.shm.icrc=on)");
            assertFalse(lc.icrcOptional(ipA, Link.ROCE_PORT), "and sends them too");
            assertFalse(la.icrcOptional(Link.ipv4(InetAddress.getByName("127.0.22.9")), Link.ROCE_PORT),
                    "no device there: UDP, which carries ICRCs");
            MemorySegment packet = arena.allocate(64);
            long[] at = {packet.address()};
            int[] length = {64};
            assertTrue(la.sendSegmentsWithoutIcrc(la.port(), ipB, Link.ROCE_PORT, at, length, 1, 0));
            assertTrue(la.sendSegments(la.port(), ipB, Link.ROCE_PORT, at, length, 1, 0));
            ByteBuffer[] rx = buffers();
            assertEquals(1, receiveOne(lb, rx));
            assertTrue(lb.batchIcrcOmitted(0), "b is told the first came without");
            assertEquals(1, receiveOne(lb, rx));
            assertFalse(lb.batchIcrcOmitted(0), "and that the second is to be checked");
        }
    }

    /**
     * While the ring is active and the socket has nothing, the receive looks at the socket less and less often (each
     * look is a system call), at most {@code SOCKET_TURN_MAX} calls apart; a datagram that comes meanwhile is taken
     * within that many calls, and the looks are frequent again after it.
     */
    @Test
    void anActiveRingLooksAtAnEmptySocketLessOftenButTakesADatagramWithinTheBound() throws Exception {
        AtomicInteger looks = new AtomicInteger();
        Link udpB = new ForwardingLink(Link.open(InetAddress.getByName(B), Link.ROCE_PORT, true)) {
            @Override
            public int receiveBatch(ByteBuffer[] bufs, int max) {
                looks.incrementAndGet();
                return super.receiveBatch(bufs, max);
            }
        };
        InetAddress b = InetAddress.getByName(B);
        InetSocketAddress to = new InetSocketAddress(b, Link.ROCE_PORT);
        try (Link la = shm(A); Link lb = ShmLink.over(udpB, dir, true);
             Link plain = Link.open(InetAddress.getByName("127.0.22.4"), Link.ROCE_PORT, true)) {
            ByteBuffer packet = ByteBuffer.allocateDirect(64);
            ByteBuffer[] rx = buffers();
            assertTrue(la.send(la.port(), packet, to));
            assertEquals(1, receiveOne(lb, rx));
            assertEquals(64, lb.batchLength(0), "a's packet came through the ring");
            looks.set(0);
            int calls = 800; // with the calls below, fewer than those after which the ring counts as idle (1,024)
            for (int i = 0; i < calls; i++) {
                assertEquals(0, lb.receiveBatch(rx, 1));
            }
            // 8, 16, 32, 64 calls apart, then 64: 14 looks; one every eighth call would be 100
            assertTrue(looks.get() <= 20, looks.get() + " looks at the empty socket in " + calls + " calls");
            assertTrue(looks.get() >= calls / 64, looks.get() + " looks: at most 64 calls apart");
            // a datagram from a peer without a ring (another host's, as far as b knows) comes while the ring is active
            packet.clear();
            assertTrue(plain.send(plain.port(), packet, to));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // in the socket by now
            int took = 0;
            int got = 0;
            while (got == 0 && took < 200) {
                got = lb.receiveBatch(rx, 1);
                took++;
            }
            assertEquals(1, got, "the datagram, taken from the socket");
            assertTrue(took <= 64, "taken after " + took + " calls");
            looks.set(0);
            for (int i = 0; i < 8; i++) {
                lb.receiveBatch(rx, 1);
            }
            assertEquals(1, looks.get(), "after a datagram the socket is looked at every eighth call again");
        }
    }

    /** A link with the shared-memory path on {@code ip}:4791, its ring in this test's folder. */
    private Link shm(String ip) throws java.io.IOException {
        return ShmLink.over(Link.open(InetAddress.getByName(ip), Link.ROCE_PORT, true), dir, true);
    }

    /** A link like {@link #shm} whose ring names no doorbell eventfd, as a process of an older version makes. */
    private Link shmRungOverUdp(String ip) throws java.io.IOException {
        Link udp = new ForwardingLink(Link.open(InetAddress.getByName(ip), Link.ROCE_PORT, true)) {
            @Override
            public int doorbellFd() {
                return -1;
            }
        };
        return ShmLink.over(udp, dir, true);
    }

    /** Starts a thread that sends a 64-byte datagram from {@code from} to {@code to}:4791 in 20 ms. */
    private static Thread sendSoon(Link from, InetAddress to) {
        ByteBuffer packet = ByteBuffer.allocateDirect(64);
        InetSocketAddress address = new InetSocketAddress(to, Link.ROCE_PORT);
        return Thread.ofPlatform().start(() -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            from.send(from.port(), packet, address);
        });
    }

    /** Counts the doorbells {@code link} (a shared-memory link) rings. */
    private static AtomicInteger doorbells(Link link) {
        ShmLink shm = assertInstanceOf(ShmLink.class, link);
        AtomicInteger n = new AtomicInteger();
        shm.listener(e -> {
            if (e == ShmLink.Event.DOORBELL) {
                n.incrementAndGet();
            }
        });
        return n;
    }

    /** Receives until a batch comes, at most 5 s; returns its size. */
    private static int receiveOne(Link link, ByteBuffer[] rx) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            int got = link.receiveBatch(rx, 1);
            if (got > 0) {
                return got;
            }
        }
        throw new AssertionError("nothing received within 5 s");
    }

    private static ByteBuffer[] buffers() {
        ByteBuffer[] bufs = new ByteBuffer[Link.RX_BATCH];
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = ByteBuffer.allocateDirect(65536);
        }
        return bufs;
    }
}
