package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The GRH area of a UD receive: for IPv4 it must be 20 zero bytes followed by the packet's real IPv4 header (checked
 * against every UD packet kernel rxe sent in ud_pingpong.pcap), for IPv6 the real IPv6 header (checked against a
 * frame built by {@link RoceFrame#buildIpv6}).
 */
class GrhTest {

    @Test
    void ipv4GrhIsTheCapturedIpv4HeaderAfterTwentyZeroBytes() throws IOException {
        RoceFrame f = new RoceFrame();
        int checked = 0;
        for (PcapReader.Record r : PcapReader.readAll(Vectors.dir().resolve("ud_pingpong.pcap"))) {
            ByteBuffer b = ByteBuffer.wrap(r.data());
            if (!f.parse(b, 0, r.data().length) || !f.isRoce()) {
                continue;
            }
            MemorySegment ib = MemorySegment.ofArray(r.data()).asSlice(f.ibOffset(), f.ibLength());
            assertEquals(Opcode.UD_SEND_ONLY.code(), Bth.opcode(ib, 0));
            assertEquals(0x11111111, Deth.qkey(ib, Opcode.UD_SEND_ONLY.dethOffset()), "DETH Q_Key");
            assertEquals(Bth.destQp(ib, 0), Deth.srcQp(ib, Opcode.UD_SEND_ONLY.dethOffset()),
                    "both ends of ibv_ud_pingpong use QPN 0x1a: DETH source QP");
            byte[] grh = new byte[Grh.LENGTH];
            MemorySegment g = MemorySegment.ofArray(grh);
            Grh.writeIpv4(g, 0, f.tos(), Grh.IPV4_HEADER + Grh.UDP_HEADER + f.ibLength(), f.ipId(),
                    f.dontFragment() ? Grh.IPV4_DF : 0, f.ttl(), f.srcIp(), f.dstIp());
            int ipAt = f.ibOffset() - Grh.UDP_HEADER - Grh.IPV4_HEADER;
            byte[] wire = Arrays.copyOfRange(r.data(), ipAt, ipAt + Grh.IPV4_HEADER);
            assertArrayEquals(new byte[20], Arrays.copyOf(grh, 20), "first 20 bytes are zero");
            assertArrayEquals(wire, Arrays.copyOfRange(grh, 20, 40), "last 20 bytes are the IPv4 header");
            assertEquals(4, Grh.ipVersion(g, 0));
            checked++;
        }
        assertEquals(10, checked);
    }

    @Test
    void ipv4ChecksumVerifiesToZeroComplement() {
        MemorySegment g = MemorySegment.ofArray(new byte[Grh.LENGTH]);
        Grh.writeIpv4(g, 0, 0, 20 + 8 + 100, 0x1234, Grh.IPV4_DF, 64, 0x7F001F01, 0x7F001F02);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += g.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 20 + i) & 0xFFFF;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        assertEquals(0xFFFF, sum, "an IPv4 header including its checksum sums to all ones");
    }

    @Test
    void ipv6GrhIsTheIpv6Header() {
        byte[] src = new byte[16];
        byte[] dst = new byte[16];
        for (int i = 0; i < 16; i++) {
            src[i] = (byte) (0xF0 + i);
            dst[i] = (byte) (0x20 + 3 * i);
        }
        byte[] ibBytes = new byte[12 + 8 + 64 + 4];
        ByteBuffer out = ByteBuffer.allocate(RoceFrame.IPV6_OVERHEAD + ibBytes.length);
        RoceFrame.buildIpv6(out, 0, 1, 2, src, dst, 0xC123, RoceFrame.ROCE_PORT, ByteBuffer.wrap(ibBytes), 0,
                ibBytes.length);
        byte[] want = Arrays.copyOfRange(out.array(), RoceFrame.ETHERNET_HEADER,
                RoceFrame.ETHERNET_HEADER + RoceFrame.IPV6_HEADER);
        MemorySegment s = MemorySegment.ofArray(src);
        MemorySegment d = MemorySegment.ofArray(dst);
        var be = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        byte[] grh = new byte[Grh.LENGTH];
        Grh.writeIpv6(MemorySegment.ofArray(grh), 0, 0, 0, Grh.UDP_HEADER + ibBytes.length, RoceFrame.DEFAULT_TTL,
                s.get(be, 0), s.get(be, 8), d.get(be, 0), d.get(be, 8));
        assertArrayEquals(want, grh);
        assertEquals(6, Grh.ipVersion(MemorySegment.ofArray(grh), 0));
    }

    @Test
    void ipv6GrhCarriesTrafficClassAndFlowLabel() {
        byte[] grh = new byte[Grh.LENGTH];
        MemorySegment g = MemorySegment.ofArray(grh);
        Grh.writeIpv6(g, 0, 0xB8, 0xABCDE, 1000, 7, 0xFE80_0000_0000_0000L, 1, 0x2001_0DB8_0000_0000L, 2);
        assertEquals(0x6B, grh[0] & 0xFF, "version 6, traffic class high nibble B");
        assertEquals(0x8A, grh[1] & 0xFF, "traffic class low nibble 8, flow label high nibble A");
        assertEquals(0xBC, grh[2] & 0xFF);
        assertEquals(0xDE, grh[3] & 0xFF);
        assertEquals(1000, ((grh[4] & 0xFF) << 8) | (grh[5] & 0xFF), "payload length");
        assertEquals(17, grh[6], "next header UDP");
        assertEquals(7, grh[7], "hop limit");
        assertEquals((byte) 0xFE, grh[8]);
        assertEquals(1, grh[23]);
        assertEquals(0x20, grh[24]);
        assertEquals(2, grh[39]);
        assertTrue(Grh.ipVersion(g, 0) == 6);
    }
}
