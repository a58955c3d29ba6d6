package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapTest {
    @Test
    void shouldReadBackWhatItWrote(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.pcap");
        Random rnd = new Random(7);
        byte[][] frames = new byte[300][];
        long[] times = new long[frames.length];
        try (PcapWriter w = PcapWriter.create(file)) {
            ByteBuffer direct = ByteBuffer.allocateDirect(10_000);
            for (int i = 0; i < frames.length; i++) {
                frames[i] = new byte[i == 7 ? 9000 : rnd.nextInt(1600)];
                rnd.nextBytes(frames[i]);
                times[i] = 1_700_000_000_123_456_789L + i * 1_001_000L;
                if (i % 2 == 0) {
                    w.write(times[i], frames[i], 0, frames[i].length);
                } else {
                    direct.clear().position(5);
                    direct.put(5, frames[i]);
                    w.write(times[i], direct, 5, frames[i].length);
                    assertEquals(5, direct.position(), "position kept");
                }
                if (i == 100) {
                    w.flush();
                    assertTrue(Files.size(file) > 24, "flush reached the file");
                }
            }
        }
        byte[] bytes = Files.readAllBytes(file);
        assertArrayEquals(new byte[] {(byte) 0xD4, (byte) 0xC3, (byte) 0xB2, (byte) 0xA1, 2, 0, 4, 0},
                Arrays.copyOf(bytes, 8), "little-endian classic pcap v2.4");
        PcapReader r = PcapReader.of(bytes);
        assertEquals(PcapReader.LINKTYPE_ETHERNET, r.linkType());
        assertEquals(PcapWriter.DEFAULT_SNAP_LENGTH, r.snapLength());
        assertFalse(r.nanosecond());
        List<PcapReader.Record> records = r.readAll();
        assertEquals(frames.length, records.size());
        for (int i = 0; i < frames.length; i++) {
            assertArrayEquals(frames[i], records.get(i).data(), "frame " + i);
            assertEquals(frames[i].length, records.get(i).originalLength());
            assertEquals(times[i] / 1000 * 1000, records.get(i).timeNs(), "microsecond timestamps");
        }
        assertFalse(r.truncated());
    }

    @Test
    void shouldTruncateToTheSnapLength() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(out, 64)) {
            w.write(0, new byte[100], 0, 100);
        }
        PcapReader.Record rec = PcapReader.of(out.toByteArray()).next();
        assertEquals(64, rec.data().length);
        assertEquals(100, rec.originalLength());
        assertFalse(rec.complete());
    }

    @Test
    void shouldReadBigEndianNanosecondFilesAndStopAtTruncationBadFlow() {
        ByteBuffer b = ByteBuffer.allocate(24 + 16 + 3 + 12).order(ByteOrder.BIG_ENDIAN);
        b.putInt(PcapReader.MAGIC_NANOS).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535)
                .putInt(1);
        b.putInt(5).putInt(7).putInt(3).putInt(3).put(new byte[] {1, 2, 3});
        b.putInt(6).putInt(0).putInt(100);                // record header cut short
        PcapReader r = PcapReader.of(b.array());
        assertTrue(r.nanosecond());
        PcapReader.Record rec = r.next();
        assertEquals(5_000_000_007L, rec.timeNs());
        assertArrayEquals(new byte[] {1, 2, 3}, rec.data());
        assertNull(r.next());
        assertTrue(r.truncated());
        assertThrows(IllegalArgumentException.class, () -> PcapReader.of(new byte[24]));
        assertThrows(IllegalArgumentException.class, () -> PcapReader.of(new byte[3]));
    }

    @Test
    void shouldBuildAndParseIpv4Frames() {
        ByteBuffer ib = ByteBuffer.allocate(40);
        for (int i = 0; i < 40; i++) {
            ib.put(i, (byte) i);
        }
        ByteBuffer out = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);   // order must not matter
        int len = RoceFrame.buildIpv4(out, 2, 0x5254_0077_000CL, 0x5254_0077_000BL, 0x0A4D000C, 0x0A4D000B, 0xBEEF,
                55555, RoceFrame.ROCE_PORT, ib, 4, 36);
        assertEquals(RoceFrame.IPV4_OVERHEAD + 36, len);
        assertEquals(0, out.position());
        byte[] f = Arrays.copyOfRange(out.array(), 2, 2 + len);
        assertArrayEquals(new byte[] {0x52, 0x54, 0, 0x77, 0, 0x0B, 0x52, 0x54, 0, 0x77, 0, 0x0C, 8, 0},
                Arrays.copyOf(f, 14), "Ethernet header");
        assertEquals(0x45, f[14]);
        assertEquals(0, f[15], "TOS");
        assertEquals(20 + 8 + 36, (f[16] & 0xFF) << 8 | (f[17] & 0xFF));
        assertEquals(0x40, f[20], "DF");
        assertEquals(64, f[22], "TTL");
        assertEquals(17, f[23]);
        int sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += (f[i] & 0xFF) << 8 | (f[i + 1] & 0xFF);
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        assertEquals(0xFFFF, sum, "IPv4 header checksum verifies");
        assertEquals(0, f[40] | f[41], "UDP checksum 0");
        assertArrayEquals(Arrays.copyOfRange(ib.array(), 4, 40), Arrays.copyOfRange(f, 42, len));

        RoceFrame p = new RoceFrame();
        assertTrue(p.parse(ByteBuffer.wrap(f), 0, f.length));
        assertTrue(p.isRoce());
        assertEquals(4, p.ipVersion());
        assertEquals(0x5254_0077_000CL, p.srcMac());
        assertEquals(0x5254_0077_000BL, p.dstMac());
        assertEquals(-1, p.vlanTci());
        assertEquals(0x0A4D000C, p.srcIp());
        assertEquals(0x0A4D000B, p.dstIp());
        assertEquals(0xBEEF, p.ipId());
        assertEquals(64, p.ttl());
        assertEquals(0, p.tos());
        assertTrue(p.dontFragment());
        assertEquals(55555, p.srcPort());
        assertEquals(4791, p.dstPort());
        assertEquals(42, p.ibOffset());
        assertEquals(36, p.ibLength());
    }

    @Test
    void shouldBuildAndParseIpv6Frames() throws Exception {
        byte[] src = java.net.InetAddress.getByName("fe80::5054:ff:fe77:c").getAddress();
        byte[] dst = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 10, 77, 0, 11};   // ::ffff:10.77.0.11
        ByteBuffer ib = ByteBuffer.allocate(20);
        ByteBuffer out = ByteBuffer.allocateDirect(200);
        int len = RoceFrame.buildIpv6(out, 0, 1L, 2L, src, dst, 1000, 4791, ib, 0, 20);
        assertEquals(RoceFrame.IPV6_OVERHEAD + 20, len);
        assertEquals(0x86, out.get(12) & 0xFF);
        assertEquals(0xDD, out.get(13) & 0xFF);
        assertEquals(0x60, out.get(14) & 0xFF);
        RoceFrame p = new RoceFrame();
        assertTrue(p.parse(out, 0, len));
        assertEquals(6, p.ipVersion());
        assertTrue(p.isRoce());
        assertArrayEquals(src, p.srcIp6());
        assertArrayEquals(dst, p.dstIp6());
        assertEquals(64, p.ttl());
        assertEquals(0, p.tos());
        assertEquals(1000, p.srcPort());
        assertEquals(62, p.ibOffset());
        assertEquals(20, p.ibLength());
        assertEquals(1L, p.srcMac());
        assertEquals(2L, p.dstMac());
    }

    @Test
    void shouldParseVlanTaggedFrames() {
        ByteBuffer ib = ByteBuffer.allocate(16);
        ByteBuffer plain = ByteBuffer.allocate(100);
        int len = RoceFrame.buildIpv4(plain, 0, 1L, 2L, 3, 4, 5, 6, 4791, ib, 0, 16);
        byte[] tagged = new byte[len + 4];
        System.arraycopy(plain.array(), 0, tagged, 0, 12);
        tagged[12] = (byte) 0x81;
        tagged[13] = 0;
        tagged[14] = 0x20;
        tagged[15] = 0x07;
        System.arraycopy(plain.array(), 12, tagged, 16, len - 12);
        RoceFrame p = new RoceFrame();
        assertTrue(p.parse(ByteBuffer.wrap(tagged), 0, tagged.length));
        assertEquals(0x2007, p.vlanTci());
        assertEquals(46, p.ibOffset());
        assertEquals(16, p.ibLength());
    }

    @Test
    void shouldRejectNonUdpAndTruncatedFramesBadFlow() {
        ByteBuffer ib = ByteBuffer.allocate(16);
        ByteBuffer b = ByteBuffer.allocate(100);
        int len = RoceFrame.buildIpv4(b, 0, 1L, 2L, 3, 4, 5, 6, 4791, ib, 0, 16);
        RoceFrame p = new RoceFrame();
        for (int cut = 0; cut < len; cut++) {
            assertFalse(p.parse(b, 0, cut), "cut at " + cut);
            assertFalse(p.isRoce());
        }
        assertTrue(p.parse(b, 0, len));
        b.put(23, (byte) 6);                               // TCP
        assertFalse(p.parse(b, 0, len));
        b.put(23, (byte) 17);
        b.put(20, (byte) 0x20);                            // MF: a fragment
        assertFalse(p.parse(b, 0, len));
        b.put(20, (byte) 0x40);
        b.put(12, (byte) 0x08).put(13, (byte) 0x06);       // ARP
        assertFalse(p.parse(b, 0, len));
        b.put(13, (byte) 0);
        b.put(37, (byte) 1);                               // destination port 4791 -> 4609
        assertTrue(p.parse(b, 0, len));
        assertFalse(p.isRoce());
        assertFalse(p.parse(b, -1, len));
        assertFalse(p.parse(b, 90, 20));
    }
}
