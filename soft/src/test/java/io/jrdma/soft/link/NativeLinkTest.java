package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The native link's GSO send and GRO receive between two real sockets on loopback. */
class NativeLinkTest {

    private static final String A = "127.0.58.1";
    private static final String B = "127.0.58.2";

    @Test
    void shouldDeliverARunOfPacketsAsOneDatagramWithItsSegmentSize() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        try (Link a = Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true);
             Link b = Link.open(InetAddress.getByName(B), Link.ROCE_PORT, true)) {
            assertTrue(a.isNative() && b.isNative());
            assertEquals(64, a.maxSegments());
            ByteBuffer[] packets = {packet(100, 1), packet(100, 2), packet(50, 3)};
            long[] addresses = new long[3];
            int[] lengths = new int[3];
            for (int i = 0; i < 3; i++) {
                addresses[i] = MemorySegment.ofBuffer(packets[i]).address();
                lengths[i] = packets[i].remaining();
            }
            assertTrue(a.sendSegments(a.port(), Link.ipv4(InetAddress.getByName(B)), Link.ROCE_PORT,
                    addresses, lengths, 3, 100));
            ByteBuffer[] rx = batchBuffers();
            int n = receive(b, rx);
            assertEquals(250, n, "the run arrives whole");
            assertEquals(100, b.batchSegmentSize(0), "with the GSO segment size");
            assertEquals(Link.ipv4(InetAddress.getByName(A)), b.batchSenderIp(0));
            assertEquals(Link.ROCE_PORT, b.batchSenderPort(0));
            for (int i = 0; i < 250; i++) {
                int expected = i < 100 ? 1 : i < 200 ? 2 : 3;
                assertEquals(expected, rx[0].get(i), "byte " + i);
            }
        }
    }

    @Test
    void shouldReportOnePacketAsNoRun() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        try (Link a = Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true);
             Link b = Link.open(InetAddress.getByName(B), Link.ROCE_PORT, true)) {
            ByteBuffer p = packet(40, 9);
            assertTrue(a.send(a.port(), p, new java.net.InetSocketAddress(B, Link.ROCE_PORT)));
            ByteBuffer[] rx = batchBuffers();
            assertEquals(40, receive(b, rx));
            assertEquals(0, b.batchSegmentSize(0));
            assertEquals(9, rx[0].get(39));
        }
    }

    @Test
    void shouldTakeEveryWaitingDatagramInOneBatchAndReportTheSocketDrained() throws Exception {
        for (boolean nio : new boolean[] {false, true}) {
            assumeTrue(nio || Link.nativeUnavailable() == null, Link.nativeUnavailable());
            try (Link a = Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true);
                 Link b = receiver(nio)) {
                assertEquals(!nio, b.isNative());
                java.net.InetSocketAddress to = new java.net.InetSocketAddress(B, Link.ROCE_PORT);
                for (int i = 0; i < 3; i++) {
                    assertTrue(a.send(a.port(), packet(30 + i, 10 + i), to));
                }
                ByteBuffer[] bufs = batchBuffers();
                int got = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (got < 3 && System.nanoTime() < deadline) { // loopback delivers at once; wait in case not
                    got = b.receiveBatch(bufs, bufs.length);
                    if (got < 3 && got > 0) {
                        throw new AssertionError("nio=" + nio + ": " + got + " of 3 datagrams in the batch");
                    }
                    b.await(10);
                }
                assertEquals(3, got, "nio=" + nio + ": the three waiting datagrams in one batch");
                for (int i = 0; i < 3; i++) {
                    assertEquals(30 + i, b.batchLength(i));
                    assertEquals(10 + i, bufs[i].get(29 + i), "datagram " + i + " in its own buffer");
                    assertEquals(Link.ipv4(InetAddress.getByName(A)), b.batchSenderIp(i));
                    assertEquals(Link.ROCE_PORT, b.batchSenderPort(i));
                    assertEquals(0, b.batchSegmentSize(i));
                    assertEquals(0, bufs[i].position(), "positions are left alone");
                }
                assertEquals(0, b.receiveBatch(bufs, bufs.length), "nothing left");
            }
        }
    }

    @Test
    void shouldTakeNoMoreThanAskedAndKeepTheSegmentSizeOfARunAfterASinglePacket() throws Exception {
        for (boolean nio : new boolean[] {false, true}) {
            assumeTrue(nio || Link.nativeUnavailable() == null, Link.nativeUnavailable());
            try (Link a = Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true);
                 Link b = receiver(nio)) {
                java.net.InetSocketAddress to = new java.net.InetSocketAddress(B, Link.ROCE_PORT);
                ByteBuffer[] bufs = batchBuffers();
                // a single packet, then a run: the run lands in the header the single packet's receive filled (its
                // control length then said "no control message"), and must still report its segment size
                assertTrue(a.send(a.port(), packet(40, 7), to));
                assertEquals(1, awaitBatch(b, bufs, 1), "nio=" + nio);
                assertEquals(0, b.batchSegmentSize(0));
                ByteBuffer[] run = {packet(100, 1), packet(100, 2), packet(60, 3)};
                long[] addresses = new long[3];
                int[] lengths = new int[3];
                for (int i = 0; i < 3; i++) {
                    addresses[i] = MemorySegment.ofBuffer(run[i]).address();
                    lengths[i] = run[i].remaining();
                }
                int dest = Link.ipv4(InetAddress.getByName(B));
                for (int k = 0; k < 2; k++) {
                    assertTrue(a.sendSegments(a.port(), dest, Link.ROCE_PORT, addresses, lengths, 3, 100));
                }
                assertTrue(a.send(a.port(), packet(30, 8), to));
                // three datagrams wait (two runs, then a packet; NIO sees each run's packets one by one): one
                // asked for, one taken
                assertEquals(1, awaitBatch(b, bufs, 1), "nio=" + nio + ": no more than asked for");
                assertEquals(nio ? 100 : 260, b.batchLength(0));
                assertEquals(nio ? 0 : 100, b.batchSegmentSize(0), "nio=" + nio + ": the run's segment size");
                int rest = b.receiveBatch(bufs, bufs.length);
                assertEquals(nio ? 6 : 2, rest, "nio=" + nio + ": the rest in one batch");
                assertEquals(nio ? 0 : 100, b.batchSegmentSize(0));
                assertEquals(30, b.batchLength(rest - 1));
                assertEquals(8, bufs[rest - 1].get(29));
                assertEquals(0, b.receiveBatch(bufs, 1), "nothing left");
            }
        }
    }

    /** Receives a batch of at most {@code max}, waiting up to 5 s for the first datagram. */
    private static int awaitBatch(Link b, ByteBuffer[] bufs, int max) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            int got = b.receiveBatch(bufs, max);
            if (got > 0) {
                return got;
            }
            b.await(10);
        }
        return 0;
    }

    @Test
    void shouldReachEveryDestinationFromOneSourcePort() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        String c = "127.0.58.3";
        try (Link a = Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true);
             Link b = Link.open(InetAddress.getByName(B), Link.ROCE_PORT, true);
             Link cc = Link.open(InetAddress.getByName(c), Link.ROCE_PORT, true)) {
            int sourcePort = a.openSourcePort(0xC123);
            assertEquals(0xC123, sourcePort);
            ByteBuffer[] rx = batchBuffers();
            for (int round = 0; round < 2; round++) { // B, C, B, C from the same source port
                assertTrue(a.send(sourcePort, packet(20, 1), new java.net.InetSocketAddress(B, Link.ROCE_PORT)));
                assertEquals(20, receive(b, rx));
                assertEquals(sourcePort, b.batchSenderPort(0));
                assertTrue(a.send(sourcePort, packet(21, 2), new java.net.InetSocketAddress(c, Link.ROCE_PORT)));
                assertEquals(21, receive(cc, rx), "round " + round + ": C still reached");
                assertEquals(sourcePort, cc.batchSenderPort(0));
            }
        }
    }

    @Test
    void shouldWaitInAReceiveUntilADatagramComesAndNoLongerThanTwoTicksWhenNoneDoes() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        try (Link a = Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true);
             Link b = Link.open(InetAddress.getByName(B), Link.ROCE_PORT, true)) {
            long tick = b.receiveWaitNs();
            assertTrue(tick >= TimeUnit.MICROSECONDS.toNanos(100) && tick <= TimeUnit.MILLISECONDS.toNanos(100),
                    "one kernel clock tick: " + tick + " ns");
            ByteBuffer[] bufs = batchBuffers();
            // nothing comes: each call sleeps until a tick boundary (the first may find one close), none longer
            int calls = 5;
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                long t = System.nanoTime();
                assertEquals(0, b.receiveBatchWaiting(bufs, bufs.length));
                long took = System.nanoTime() - t;
                assertTrue(took < 2 * tick + TimeUnit.MILLISECONDS.toNanos(50), "call " + i + " slept " + took);
            }
            long slept = System.nanoTime() - start;
            assertTrue(slept >= (calls - 2) * tick / 2, calls + " empty waits took only " + slept + " ns");

            // a datagram sent while a call sleeps ends it: few calls, not a spin
            Thread sender = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(30);
                    a.send(a.port(), packet(33, 7), new java.net.InetSocketAddress(B, Link.ROCE_PORT));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            int got = 0;
            int waits = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (got == 0 && System.nanoTime() < deadline) {
                got = b.receiveBatchWaiting(bufs, bufs.length);
                waits++;
            }
            sender.join();
            assertEquals(1, got);
            assertEquals(33, b.batchLength(0));
            assertEquals(7, bufs[0].get(32));
            assertFalse(b.isWakeUp(0), "a packet is not a wake-up");
            assertTrue(waits < 100, waits + " calls in 30 ms: they did not sleep");
        }
    }

    @Test
    void shouldEndAWaitWithAnEmptyDatagramFromItselfThatIsNoPacket() throws Exception {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        try (Link a = Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true);
             Link b = Link.open(InetAddress.getByName(B), Link.ROCE_PORT, true)) {
            ByteBuffer[] bufs = batchBuffers();
            b.wakeReceive(); // before the wait: the wait returns at once
            assertEquals(1, b.receiveBatchWaiting(bufs, bufs.length));
            assertEquals(0, b.batchLength(0));
            assertTrue(b.isWakeUp(0));
            assertEquals(0, b.receiveBatch(bufs, bufs.length), "one datagram per wake-up");

            // an empty datagram from anyone else is not a wake-up (the engine counts it as a dropped packet)
            assertTrue(a.send(a.port(), ByteBuffer.allocateDirect(0), new java.net.InetSocketAddress(B,
                    Link.ROCE_PORT)));
            assertEquals(1, b.receiveBatchWaiting(bufs, bufs.length));
            assertEquals(0, b.batchLength(0));
            assertFalse(b.isWakeUp(0));

            // a wake-up from another thread while the receive sleeps
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                b.wakeReceive();
            });
            int got = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (got == 0 && System.nanoTime() < deadline) {
                got = b.receiveBatchWaiting(bufs, bufs.length);
            }
            waker.join();
            assertEquals(1, got);
            assertTrue(b.isWakeUp(0));
        }
    }

    /** B's link: NIO channels, or native sockets. */
    private static Link receiver(boolean nio) throws java.io.IOException {
        return Link.open(InetAddress.getByName(B), Link.ROCE_PORT, !nio);
    }

    private static ByteBuffer[] batchBuffers() {
        ByteBuffer[] bufs = new ByteBuffer[Link.RX_BATCH];
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = ByteBuffer.allocateDirect(65536);
        }
        return bufs;
    }

    private static ByteBuffer packet(int length, int fill) {
        ByteBuffer b = ByteBuffer.allocateDirect(length);
        for (int i = 0; i < length; i++) {
            b.put(i, (byte) fill);
        }
        return b;
    }

    /**
     * Receives one datagram into {@code rx[0]} (a batch of one), waiting up to 5 s; returns its length. Its sender
     * and segment size are datagram 0 of the link's batch.
     */
    private static int receive(Link link, ByteBuffer[] rx) {
        if (awaitBatch(link, rx, 1) == 1) {
            return link.batchLength(0);
        }
        throw new AssertionError("nothing arrived in 5 s");
    }
}
