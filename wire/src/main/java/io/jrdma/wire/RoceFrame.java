package io.jrdma.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Ethernet frames around RoCEv2 packets: static builders (for capture) and a reusable parser whose accessors
 * describe the last frame parsed. Builders write the frame Linux sends: IPv4 with TOS 0, DF, TTL 64 and a valid
 * header checksum (IPv6: traffic class 0, flow label 0, hop limit 64), UDP checksum 0. Not thread-safe.
 *
 * <pre>
 * Ethernet (14): dst MAC(6) src MAC(6) EtherType(2) [802.1Q tag(4) accepted when parsing]
 * IPv4 (20):     0x45 TOS TotalLength ID Flags|FragOff TTL Proto=17 Checksum Src Dst
 * IPv6 (40):     Ver|TC|FlowLabel PayloadLength NextHeader=17 HopLimit Src(16) Dst(16)
 * UDP (8):       SrcPort DstPort=4791 Length Checksum
 * IB packet:     BTH ... ICRC(4)
 * </pre>
 */
public final class RoceFrame {
    /** The RoCEv2 UDP destination port. */
    public static final int ROCE_PORT = 4791;
    /** Ethernet header length without VLAN tag. */
    public static final int ETHERNET_HEADER = 14;
    /** IPv4 header length without options. */
    public static final int IPV4_HEADER = 20;
    /** IPv6 fixed header length. */
    public static final int IPV6_HEADER = 40;
    /** UDP header length. */
    public static final int UDP_HEADER = 8;
    /** Bytes before the BTH in an IPv4 frame built here. */
    public static final int IPV4_OVERHEAD = ETHERNET_HEADER + IPV4_HEADER + UDP_HEADER;
    /** Bytes before the BTH in an IPv6 frame built here. */
    public static final int IPV6_OVERHEAD = ETHERNET_HEADER + IPV6_HEADER + UDP_HEADER;
    /** EtherType of IPv4. */
    public static final int ETHERTYPE_IPV4 = 0x0800;
    /** EtherType of IPv6. */
    public static final int ETHERTYPE_IPV6 = 0x86DD;
    /** EtherType of an 802.1Q VLAN tag. */
    public static final int ETHERTYPE_VLAN = 0x8100;
    /** TTL / hop limit of frames built here (the Linux default). */
    public static final int DEFAULT_TTL = 64;

    private static final int PROTO_UDP = 17;
    private static final int DONT_FRAGMENT = 0x4000;

    private final byte[] srcIp6 = new byte[16];
    private final byte[] dstIp6 = new byte[16];
    private long dstMac;
    private long srcMac;
    private int vlanTci = -1;
    private int ipVersion;
    private int srcIp;
    private int dstIp;
    private int ipId;
    private int ttl;
    private int tos;
    private boolean dontFragment;
    private int srcPort;
    private int dstPort;
    private int ibOffset;
    private int ibLength;

    /** Creates a parser. */
    public RoceFrame() {
    }

    /**
     * Builds an Ethernet + IPv4 + UDP frame around an IB packet (BTH through ICRC). Positions and limits of both
     * buffers are not changed.
     *
     * @return the frame length, {@link #IPV4_OVERHEAD} + {@code ibLen}
     */
    public static int buildIpv4(ByteBuffer out, int outOff, long srcMac, long dstMac, int srcIp, int dstIp,
                                int ipId, int srcPort, int dstPort, ByteBuffer ib, int ibOff, int ibLen) {
        int frameLen = IPV4_OVERHEAD + ibLen;
        Objects.checkFromIndexSize(outOff, frameLen, out.limit());
        int ip = putEthernet(out, outOff, srcMac, dstMac, ETHERTYPE_IPV4);
        put32(out, ip, 0x4500_0000 | (IPV4_HEADER + UDP_HEADER + ibLen));
        put32(out, ip + 4, (ipId & 0xFFFF) << 16 | DONT_FRAGMENT);
        put32(out, ip + 8, DEFAULT_TTL << 24 | PROTO_UDP << 16);
        put32(out, ip + 12, srcIp);
        put32(out, ip + 16, dstIp);
        put16(out, ip + 10, ipv4HeaderChecksum(out, ip));
        putUdpAndPayload(out, ip + IPV4_HEADER, srcPort, dstPort, ib, ibOff, ibLen);
        return frameLen;
    }

    /**
     * Builds an Ethernet + IPv6 + UDP frame around an IB packet (BTH through ICRC).
     *
     * @return the frame length, {@link #IPV6_OVERHEAD} + {@code ibLen}
     */
    public static int buildIpv6(ByteBuffer out, int outOff, long srcMac, long dstMac, byte[] src16, byte[] dst16,
                                int srcPort, int dstPort, ByteBuffer ib, int ibOff, int ibLen) {
        int frameLen = IPV6_OVERHEAD + ibLen;
        Objects.checkFromIndexSize(outOff, frameLen, out.limit());
        if (src16.length != 16 || dst16.length != 16) {
            throw new IllegalArgumentException("IPv6 addresses must be 16 bytes");
        }
        int ip = putEthernet(out, outOff, srcMac, dstMac, ETHERTYPE_IPV6);
        put32(out, ip, 0x6000_0000);
        put16(out, ip + 4, UDP_HEADER + ibLen);
        out.put(ip + 6, (byte) PROTO_UDP);
        out.put(ip + 7, (byte) DEFAULT_TTL);
        out.put(ip + 8, src16);
        out.put(ip + 24, dst16);
        putUdpAndPayload(out, ip + IPV6_HEADER, srcPort, dstPort, ib, ibOff, ibLen);
        return frameLen;
    }

    /**
     * The RFC 791 header checksum of the IPv4 header at {@code off} (IHL from its first byte), computed with the
     * checksum field taken as zero.
     */
    public static int ipv4HeaderChecksum(ByteBuffer b, int off) {
        int headerLen = (b.get(off) & 0x0F) * 4;
        int sum = 0;
        for (int i = 0; i < headerLen; i += 2) {
            if (i != 10) {
                sum += u16(b, off + i);
            }
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    /**
     * Parses an Ethernet frame carrying UDP in IPv4 or IPv6 (one optional 802.1Q tag, no IPv4 fragments, no IPv6
     * extension headers). On success the accessors describe the frame.
     *
     * @return true for a well-formed UDP frame (any port; see {@link #isRoce()}), false otherwise
     */
    public boolean parse(ByteBuffer f, int off, int len) {
        ipVersion = 0;
        if (off < 0 || len < ETHERNET_HEADER || len > f.limit() - off) {
            return false;
        }
        int end = off + len;
        dstMac = getMac(f, off);
        srcMac = getMac(f, off + 6);
        int at = off + 12;
        int type = u16(f, at);
        vlanTci = -1;
        if (type == ETHERTYPE_VLAN) {
            if (len < ETHERNET_HEADER + 4) {
                return false;
            }
            vlanTci = u16(f, at + 2);
            at += 4;
            type = u16(f, at);
        }
        int ip = at + 2;
        int udp;
        int ipEnd;
        if (type == ETHERTYPE_IPV4) {
            if (end - ip < IPV4_HEADER || (f.get(ip) & 0xF0) != 0x40) {
                return false;
            }
            int headerLen = (f.get(ip) & 0x0F) * 4;
            int total = u16(f, ip + 2);
            int flags = u16(f, ip + 6);
            if (headerLen < IPV4_HEADER || total < headerLen || total > end - ip
                    || f.get(ip + 9) != PROTO_UDP || (flags & 0x3FFF) != 0) {
                return false;
            }
            tos = f.get(ip + 1) & 0xFF;
            ipId = u16(f, ip + 4);
            dontFragment = (flags & DONT_FRAGMENT) != 0;
            ttl = f.get(ip + 8) & 0xFF;
            srcIp = i32(f, ip + 12);
            dstIp = i32(f, ip + 16);
            udp = ip + headerLen;
            ipEnd = ip + total;
        } else if (type == ETHERTYPE_IPV6) {
            if (end - ip < IPV6_HEADER || (f.get(ip) & 0xF0) != 0x60 || f.get(ip + 6) != PROTO_UDP) {
                return false;
            }
            int payload = u16(f, ip + 4);
            if (payload > end - ip - IPV6_HEADER) {
                return false;
            }
            tos = (u16(f, ip) >>> 4) & 0xFF;
            ipId = 0;
            dontFragment = true;
            ttl = f.get(ip + 7) & 0xFF;
            f.get(ip + 8, srcIp6);
            f.get(ip + 24, dstIp6);
            srcIp = 0;
            dstIp = 0;
            udp = ip + IPV6_HEADER;
            ipEnd = udp + payload;
        } else {
            return false;
        }
        if (ipEnd - udp < UDP_HEADER) {
            return false;
        }
        int udpLen = u16(f, udp + 4);
        if (udpLen < UDP_HEADER || udpLen > ipEnd - udp) {
            return false;
        }
        srcPort = u16(f, udp);
        dstPort = u16(f, udp + 2);
        ibOffset = udp + UDP_HEADER;
        ibLength = udpLen - UDP_HEADER;
        ipVersion = type == ETHERTYPE_IPV4 ? 4 : 6;
        return true;
    }

    /** True when the last parse succeeded and the UDP destination port is 4791. */
    public boolean isRoce() {
        return ipVersion != 0 && dstPort == ROCE_PORT;
    }

    /** 4 or 6 after a successful parse, 0 otherwise. */
    public int ipVersion() {
        return ipVersion;
    }

    /** Destination MAC as a 48-bit number. */
    public long dstMac() {
        return dstMac;
    }

    /** Source MAC as a 48-bit number. */
    public long srcMac() {
        return srcMac;
    }

    /** The 802.1Q tag control information, or -1 when untagged. */
    public int vlanTci() {
        return vlanTci;
    }

    /** IPv4 source address (0 for IPv6). */
    public int srcIp() {
        return srcIp;
    }

    /** IPv4 destination address (0 for IPv6). */
    public int dstIp() {
        return dstIp;
    }

    /** IPv6 source address; the parser's own array, overwritten by the next parse. */
    public byte[] srcIp6() {
        return srcIp6;
    }

    /** IPv6 destination address; the parser's own array, overwritten by the next parse. */
    public byte[] dstIp6() {
        return dstIp6;
    }

    /** IPv4 identification (0 for IPv6). */
    public int ipId() {
        return ipId;
    }

    /** IPv4 TTL or IPv6 hop limit. */
    public int ttl() {
        return ttl;
    }

    /** IPv4 TOS or IPv6 traffic class (DSCP and ECN). */
    public int tos() {
        return tos;
    }

    /** IPv4 DF flag (true for IPv6, which routers never fragment). */
    public boolean dontFragment() {
        return dontFragment;
    }

    /** UDP source port. */
    public int srcPort() {
        return srcPort;
    }

    /** UDP destination port. */
    public int dstPort() {
        return dstPort;
    }

    /** Offset of the BTH in the parsed buffer. */
    public int ibOffset() {
        return ibOffset;
    }

    /** Length of the IB packet including the ICRC (the UDP payload length). */
    public int ibLength() {
        return ibLength;
    }

    private static int putEthernet(ByteBuffer out, int off, long srcMac, long dstMac, int etherType) {
        putMac(out, off, dstMac);
        putMac(out, off + 6, srcMac);
        put16(out, off + 12, etherType);
        return off + ETHERNET_HEADER;
    }

    private static void putUdpAndPayload(ByteBuffer out, int udp, int srcPort, int dstPort, ByteBuffer ib,
                                         int ibOff, int ibLen) {
        put16(out, udp, srcPort);
        put16(out, udp + 2, dstPort);
        put16(out, udp + 4, UDP_HEADER + ibLen);
        put16(out, udp + 6, 0);
        out.put(udp + UDP_HEADER, ib, ibOff, ibLen);
    }

    private static void putMac(ByteBuffer b, int off, long mac) {
        put16(b, off, (int) (mac >>> 32));
        put32(b, off + 2, (int) mac);
    }

    private static long getMac(ByteBuffer b, int off) {
        return (long) u16(b, off) << 32 | (i32(b, off + 2) & 0xFFFF_FFFFL);
    }

    // Byte-wise big-endian access: correct whatever byte order the caller's buffer is set to.
    private static int u16(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) << 8 | (b.get(at + 1) & 0xFF);
    }

    private static int i32(ByteBuffer b, int at) {
        return u16(b, at) << 16 | u16(b, at + 2);
    }

    private static void put16(ByteBuffer b, int at, int v) {
        b.put(at, (byte) (v >>> 8)).put(at + 1, (byte) v);
    }

    private static void put32(ByteBuffer b, int at, int v) {
        put16(b, at, v >>> 16);
        put16(b, at + 2, v);
    }
}
