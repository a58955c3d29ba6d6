package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assumeTrue(UdpLink.nativeUnavailable() == null, UdpLink.nativeUnavailable());
        try (UdpLink a = new UdpLink(InetAddress.getByName(A), UdpLink.ROCE_PORT);
             UdpLink b = new UdpLink(InetAddress.getByName(B), UdpLink.ROCE_PORT)) {
            assertTrue(a.isNative() && b.isNative());
            assertEquals(64, a.maxSegments());
            ByteBuffer[] packets = {packet(100, 1), packet(100, 2), packet(50, 3)};
            long[] addresses = new long[3];
            int[] lengths = new int[3];
            for (int i = 0; i < 3; i++) {
                addresses[i] = MemorySegment.ofBuffer(packets[i]).address();
                lengths[i] = packets[i].remaining();
            }
            assertTrue(a.sendSegments(a.port(), UdpLink.ipv4(InetAddress.getByName(B)), UdpLink.ROCE_PORT,
                    addresses, lengths, 3, 100));
            ByteBuffer rx = ByteBuffer.allocateDirect(65536);
            int n = receive(b, rx);
            assertEquals(250, n, "the run arrives whole");
            assertEquals(100, b.lastSegmentSize(), "with the GSO segment size");
            assertEquals(UdpLink.ipv4(InetAddress.getByName(A)), b.lastSenderIp());
            assertEquals(UdpLink.ROCE_PORT, b.lastSenderPort());
            for (int i = 0; i < 250; i++) {
                int expected = i < 100 ? 1 : i < 200 ? 2 : 3;
                assertEquals(expected, rx.get(i), "byte " + i);
            }
        }
    }

    @Test
    void shouldReportOnePacketAsNoRun() throws Exception {
        assumeTrue(UdpLink.nativeUnavailable() == null, UdpLink.nativeUnavailable());
        try (UdpLink a = new UdpLink(InetAddress.getByName(A), UdpLink.ROCE_PORT);
             UdpLink b = new UdpLink(InetAddress.getByName(B), UdpLink.ROCE_PORT)) {
            ByteBuffer p = packet(40, 9);
            assertTrue(a.send(a.port(), p, new java.net.InetSocketAddress(B, UdpLink.ROCE_PORT)));
            ByteBuffer rx = ByteBuffer.allocateDirect(65536);
            assertEquals(40, receive(b, rx));
            assertEquals(0, b.lastSegmentSize());
            assertEquals(9, rx.get(39));
        }
    }

    private static ByteBuffer packet(int length, int fill) {
        ByteBuffer b = ByteBuffer.allocateDirect(length);
        for (int i = 0; i < length; i++) {
            b.put(i, (byte) fill);
        }
        return b;
    }

    private static int receive(UdpLink link, ByteBuffer rx) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            rx.clear();
            int n = link.receive(rx);
            if (n >= 0) {
                return n;
            }
            link.await(10);
        }
        throw new AssertionError("nothing arrived in 5 s");
    }
}
