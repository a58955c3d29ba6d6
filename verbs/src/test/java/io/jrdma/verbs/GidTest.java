package io.jrdma.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GidTest {

    @Test
    void shouldRoundTripIbvDevinfoForm() {
        String text = "fe80:0000:0000:0000:5054:00ff:fe77:000b";
        Gid gid = Gid.parse(text);
        assertEquals(text, gid.toString());
        assertEquals(0xfe80_0000_0000_0000L, gid.hi());
        assertEquals(0x5054_00ff_fe77_000bL, gid.lo());
        assertTrue(gid.isLinkLocal());
        assertFalse(gid.isIpv4Mapped());
    }

    @ParameterizedTest
    @CsvSource({
        "::ffff:10.77.0.11,        0000:0000:0000:0000:0000:ffff:0a4d:000b",
        "::,                       0000:0000:0000:0000:0000:0000:0000:0000",
        "::1,                      0000:0000:0000:0000:0000:0000:0000:0001",
        "fe80::5054:ff:fe77:b,     fe80:0000:0000:0000:5054:00ff:fe77:000b",
        "FE80::5054:FF:FE77:B,     fe80:0000:0000:0000:5054:00ff:fe77:000b",
        "2001:db8::,               2001:0db8:0000:0000:0000:0000:0000:0000",
        "1:2:3:4:5:6:7:8,          0001:0002:0003:0004:0005:0006:0007:0008",
        "1::8,                     0001:0000:0000:0000:0000:0000:0000:0008",
        "1:2:3:4:5:6::8,           0001:0002:0003:0004:0005:0006:0000:0008",
        "::2:3:4:5:6:7:8,          0000:0002:0003:0004:0005:0006:0007:0008",
        "64:ff9b::192.0.2.33,      0064:ff9b:0000:0000:0000:0000:c000:0221",
        "0:0:0:0:0:ffff:1.2.3.4,   0000:0000:0000:0000:0000:ffff:0102:0304",
    })
    void shouldParseIpv6Text(String text, String devinfo) {
        Gid gid = Gid.parse(text);
        assertEquals(devinfo, gid.toString());
        assertEquals(gid, Gid.parse(devinfo));
        assertEquals(gid, Gid.parse(gid.toCompactString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":", ":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7::8", "12345::", "g::", "::1.2.3", "::1.2.3.256", "::1.2.3.4.5", "1.2.3.4::", "::1.2.3.4:5",
        ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:", "fe80::1%eth0", "localhost", "10.77.0.11", "::1..2.3"})
    void shouldRejectMalformedTextBadFlow(String text) {
        assertThrows(IllegalArgumentException.class, () -> Gid.parse(text));
    }

    @Test
    void shouldMapIpv4Addresses() throws Exception {
        Gid gid = Gid.fromInet(InetAddress.getByAddress(new byte[] {10, 77, 0, 11}));
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:000b", gid.toString());
        assertEquals("::ffff:10.77.0.11", gid.toCompactString());
        assertTrue(gid.isIpv4Mapped());
        InetAddress back = gid.toInet();
        assertInstanceOf(Inet4Address.class, back);
        assertEquals("10.77.0.11", back.getHostAddress());
        assertEquals(gid, Gid.parse("::ffff:10.77.0.11"));
    }

    @Test
    void shouldKeepIpv6Addresses() throws Exception {
        byte[] raw = Gid.parse("2001:db8::1:2").toBytes();
        InetAddress v6 = InetAddress.getByAddress(raw);
        Gid gid = Gid.fromInet(v6);
        assertEquals("2001:0db8:0000:0000:0000:0000:0001:0002", gid.toString());
        assertInstanceOf(Inet6Address.class, gid.toInet());
        assertEquals(v6, gid.toInet());
    }

    @Test
    void shouldBuildLinkLocalGidFromMac() {
        Gid gid = Gid.linkLocalFromMac(new byte[] {0x52, 0x54, 0x00, 0x77, 0x00, 0x0b});
        assertEquals(Gid.parse("fe80::5054:ff:fe77:b"), gid);
        assertEquals("fe80:0000:0000:0000:5054:00ff:fe77:000b", gid.toString());
        assertEquals("fe80::5054:ff:fe77:b", gid.toCompactString());
        // a universally administered MAC gets the U/L bit set
        assertEquals(Gid.parse("fe80::21b:21ff:fe3c:4d5e"),
                Gid.linkLocalFromMac(new byte[] {0x00, 0x1b, 0x21, 0x3c, 0x4d, 0x5e}));
        assertThrows(IllegalArgumentException.class, () -> Gid.linkLocalFromMac(new byte[5]));
    }

    @Test
    void shouldRoundTripBytes() {
        byte[] raw = new byte[16];
        for (int i = 0; i < 16; i++) {
            raw[i] = (byte) (0xf0 + i);
        }
        Gid gid = Gid.of(raw);
        assertArrayEquals(raw, gid.toBytes());
        assertEquals("f0f1:f2f3:f4f5:f6f7:f8f9:fafb:fcfd:feff", gid.toString());
        byte[] dst = new byte[20];
        gid.toBytes(dst, 3);
        assertEquals(gid, Gid.of(dst, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> gid.toBytes(dst, 5));
        assertThrows(IllegalArgumentException.class, () -> Gid.of(new byte[15]));
    }

    @Test
    void shouldCompareByValue() {
        Gid a = Gid.parse("fe80::1");
        Gid b = Gid.of(0xfe80_0000_0000_0000L, 1);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, Gid.parse("fe80::2"));
        assertNotEquals(a, Gid.of(1, 0xfe80_0000_0000_0000L));
        assertSame(Gid.ZERO, Gid.parse("::"));
        assertTrue(Gid.ZERO.isZero());
    }

    @ParameterizedTest
    @CsvSource({
        "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
        "2001:0:0:1:0:0:0:1,   2001:0:0:1::1",
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
        "0:0:0:0:0:0:0:0,      ::",
        "1:0:0:0:0:0:0:0,      1::",
    })
    void shouldPrintRfc5952CompactForm(String text, String compact) {
        assertEquals(compact, Gid.parse(text).toCompactString());
    }
}
