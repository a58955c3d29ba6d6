package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

class IcrcTest {
    private static final int SRC = 0x0A4D000C;     // 10.77.0.12
    private static final int DST = 0x0A4D000B;     // 10.77.0.11
    private static final byte[] SRC6 = ip6("fd00:0:0:0:0:0:0:c");
    private static final byte[] DST6 = ip6("fe80:0:0:0:5054:ff:fe77:b");

    private static byte[] ip6(String s) {
        try {
            return java.net.InetAddress.getByName(s).getAddress();
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** A SEND_ONLY_WITH_IMMEDIATE of {@code payload} bytes with pad, BTH at {@code off}; ICRC zero. */
    private static int fill(ByteBuffer b, int off, int payload, Random rnd) {
        int pad = -payload & 3;
        int ibLen = Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.headerLength() + payload + pad + Icrc.LENGTH;
        MemorySegment s = MemorySegment.ofBuffer(b.duplicate().clear());
        Bth.write(s, off, Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.code(), true, false, pad, 0xFFFF, 0x11, true,
                rnd.nextInt() & Psn.MASK);
        ImmDt.setImm(s, off + Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.immOffset(), rnd.nextInt());
        for (int i = 0; i < payload; i++) {
            b.put(off + 16 + i, (byte) rnd.nextInt());
        }
        return ibLen;
    }

    @Test
    void shouldStartFromTheRxeSeedAfterEightOnes() {
        CRC32 c = new CRC32();
        c.update(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
        assertEquals(0xDEBB20E3, ~(int) c.getValue(), "CRC register after eight 0xFF bytes");
    }

    @Test
    void shouldVerifyWhatItWrote() {
        Icrc icrc = new Icrc();
        Random rnd = new Random(1);
        for (ByteBuffer b : new ByteBuffer[] {ByteBuffer.allocate(3000), ByteBuffer.allocateDirect(3000)}) {
            for (int payload : new int[] {0, 1, 2, 3, 4, 61, 1023, 1024, 2501}) {
                int off = 7;
                int ibLen = fill(b, off, payload, rnd);
                b.position(11).limit(2999);
                icrc.writeIpv4(SRC, DST, 49152, 4791, b, off, ibLen);
                assertTrue(icrc.verifyIpv4(SRC, DST, 49152, 4791, 0, b, off, ibLen));
                assertEquals(0, icrc.solveIpv4Id(SRC, DST, 49152, 4791, b, off, ibLen));
                assertFalse(icrc.verifyIpv4(SRC, DST, 49153, 4791, 0, b, off, ibLen), "port covered");
                assertFalse(icrc.verifyIpv4(SRC, DST + 1, 49152, 4791, 0, b, off, ibLen), "address covered");
                assertFalse(icrc.verifyIpv4(SRC, DST, 49152, 4791, 1, b, off, ibLen), "IP ID covered");
                icrc.writeIpv6(SRC6, DST6, 49152, 4791, b, off, ibLen);
                assertTrue(icrc.verifyIpv6(SRC6, DST6, 49152, 4791, b, off, ibLen));
                assertFalse(icrc.verifyIpv6(DST6, SRC6, 49152, 4791, b, off, ibLen));
                assertEquals(11, b.position(), "position kept");
                assertEquals(2999, b.limit(), "limit kept");
                b.clear();
            }
        }
    }

    @Test
    void shouldFailVerifyForAnyCorruptByteBadFlow() {
        Icrc icrc = new Icrc();
        ByteBuffer b = ByteBuffer.allocateDirect(256);
        int ibLen = fill(b, 0, 101, new Random(2));
        icrc.writeIpv4(SRC, DST, 50000, 4791, b, 0, ibLen);
        for (int i = 0; i < ibLen; i++) {
            byte saved = b.get(i);
            for (int bit = 0; bit < 8; bit++) {
                b.put(i, (byte) (saved ^ (1 << bit)));
                boolean ok = icrc.verifyIpv4(SRC, DST, 50000, 4791, 0, b, 0, ibLen);
                assertEquals(i == Bth.RESV8A, ok, "byte " + i + " bit " + bit + (i == Bth.RESV8A ? " is masked" : ""));
            }
            b.put(i, saved);
        }
        assertTrue(icrc.verifyIpv4(SRC, DST, 50000, 4791, 0, b, 0, ibLen));
    }

    @Test
    void shouldMatchAnIndependentIpv6Computation() {
        Random rnd = new Random(3);
        ByteBuffer b = ByteBuffer.allocate(600);
        int ibLen = fill(b, 0, 500, rnd);
        b.put(Bth.RESV8A, (byte) 0xC0);                 // FECN+BECN set: must not matter
        int udpLen = 8 + ibLen;
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        for (int i = 0; i < 8; i++) {
            m.write(0xFF);
        }
        // IPv6 header: version 6, traffic class and flow label all ones, hop limit all ones.
        m.writeBytes(new byte[] {0x6F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) (udpLen >> 8), (byte) udpLen, 17,
            (byte) 0xFF});
        m.writeBytes(SRC6);
        m.writeBytes(DST6);
        m.writeBytes(new byte[] {(byte) 0xC3, 0x50, 0x12, (byte) 0xB7, (byte) (udpLen >> 8), (byte) udpLen,
            (byte) 0xFF, (byte) 0xFF});
        byte[] ib = new byte[ibLen - 4];
        b.get(0, ib);
        ib[4] = (byte) 0xFF;
        m.writeBytes(ib);
        CRC32 c = new CRC32();
        c.update(m.toByteArray());
        int expected = (int) c.getValue();
        Icrc icrc = new Icrc();
        assertEquals(expected, icrc.computeIpv6(SRC6, DST6, 50000, 4791, b, 0, ibLen));
        icrc.writeIpv6(SRC6, DST6, 50000, 4791, b, 0, ibLen);
        assertEquals((byte) expected, b.get(ibLen - 4), "ICRC is little-endian on the wire");
        assertEquals((byte) (expected >>> 24), b.get(ibLen - 1));
        assertEquals(expected, Icrc.wireIcrc(b, 0, ibLen));
    }

    @Test
    void shouldMatchAnIndependentIpv4Computation() {
        ByteBuffer b = ByteBuffer.allocate(100);
        int ibLen = fill(b, 0, 13, new Random(4));
        int total = 28 + ibLen;
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        m.writeBytes(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
        m.writeBytes(new byte[] {0x45, (byte) 0xFF, (byte) (total >> 8), (byte) total, 0x12, 0x34, 0x40, 0,
            (byte) 0xFF, 17, (byte) 0xFF, (byte) 0xFF, 10, 77, 0, 12, 10, 77, 0, 11});
        m.writeBytes(new byte[] {(byte) 0xC0, 0x00, 0x12, (byte) 0xB7, 0, (byte) (8 + ibLen), (byte) 0xFF,
            (byte) 0xFF});
        byte[] ib = new byte[ibLen - 4];
        b.get(0, ib);
        ib[4] = (byte) 0xFF;
        m.writeBytes(ib);
        CRC32 c = new CRC32();
        c.update(m.toByteArray());
        assertEquals((int) c.getValue(), new Icrc().computeIpv4(SRC, DST, 0xC000, 4791, 0x1234, b, 0, ibLen));
    }

    @Test
    void shouldSolveAnyIpIdForAnyLength() {
        Icrc icrc = new Icrc();
        Random rnd = new Random(5);
        ByteBuffer b = ByteBuffer.allocateDirect(9100);
        for (int trial = 0; trial < 2000; trial++) {
            int payload = trial < 1000 ? rnd.nextInt(80) : rnd.nextInt(9000);
            int off = rnd.nextInt(8);
            int ibLen = fill(b, off, payload, rnd);
            int id = trial < 16 ? 1 << trial : rnd.nextInt(65536);
            int src = rnd.nextInt();
            int dst = rnd.nextInt();
            int sport = rnd.nextInt(65536);
            int crc = icrc.computeIpv4(src, dst, sport, 4791, id, b, off, ibLen);
            b.put(off + ibLen - 4, (byte) crc).put(off + ibLen - 3, (byte) (crc >>> 8))
                    .put(off + ibLen - 2, (byte) (crc >>> 16)).put(off + ibLen - 1, (byte) (crc >>> 24));
            assertEquals(id, icrc.solveIpv4Id(src, dst, sport, 4791, b, off, ibLen), "trial " + trial);
            int at = off + rnd.nextInt(ibLen);
            if (at != off + Bth.RESV8A) {
                b.put(at, (byte) (b.get(at) ^ (1 << rnd.nextInt(8))));
                assertNotEquals(id, icrc.solveIpv4Id(src, dst, sport, 4791, b, off, ibLen), "corrupt trial " + trial);
            }
        }
    }

    @Test
    void shouldRejectPacketsShorterThanBthAndIcrc() {
        Icrc icrc = new Icrc();
        ByteBuffer b = ByteBuffer.allocate(64);
        assertThrows(IllegalArgumentException.class, () -> icrc.computeIpv4(SRC, DST, 1, 4791, 0, b, 0, 15));
        assertThrows(IndexOutOfBoundsException.class, () -> icrc.computeIpv4(SRC, DST, 1, 4791, 0, b, 50, 16));
        assertThrows(IllegalArgumentException.class, () -> icrc.computeIpv6(new byte[4], DST6, 1, 4791, b, 0, 16));
    }

    @Test
    void shouldNotAllocatePerPacket() {
        Icrc icrc = new Icrc();
        ByteBuffer b = ByteBuffer.allocateDirect(2048);
        ByteBuffer h = ByteBuffer.allocate(2048);
        int ibLen = fill(b, 0, 1024, new Random(6));
        fill(h, 0, 1024, new Random(6));
        icrc.writeIpv4(SRC, DST, 49152, 4791, b, 0, ibLen);
        icrc.writeIpv4(SRC, DST, 49152, 4791, h, 0, ibLen);
        b.put(ibLen - 1, (byte) (b.get(ibLen - 1) ^ 0x55));
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int round = 0; round < 3; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++) {
                sink += icrc.computeIpv4(SRC, DST, 49152, 4791, i, b, 0, ibLen);
                sink += icrc.solveIpv4Id(SRC, DST, 49152, 4791, b, 0, ibLen);
                sink += icrc.verifyIpv4(SRC, DST, 49152, 4791, 0, h, 0, ibLen) ? 1 : 0;
                sink += icrc.computeIpv6(SRC6, DST6, 49152, 4791, b, 0, ibLen);
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            if (round == 2) {
                assertTrue(allocated < 4096, "allocated " + allocated + " bytes for 80k ICRC operations");
            }
        }
        assertNotEquals(0, sink);
    }
}
