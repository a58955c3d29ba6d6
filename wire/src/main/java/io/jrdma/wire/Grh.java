package io.jrdma.wire;

import static io.jrdma.wire.Layouts.BYTE;
import static io.jrdma.wire.Layouts.INT_BE;
import static io.jrdma.wire.Layouts.LONG_BE;
import static io.jrdma.wire.Layouts.SHORT_BE;

import java.lang.foreign.MemorySegment;

/**
 * The 40-byte Global Route Header area at the start of every UD receive buffer (IBA 11.4.1.2, ibv_grh). On RoCEv2
 * it holds the network header of the packet that carried the message, as Linux rxe writes it
 * ({@code union rdma_network_hdr}):
 *
 * <ul>
 * <li>IPv4: 20 zero bytes, then the 20-byte IPv4 header (IBA A17.4.5.1: "the IPv4 header is located in the last 20
 *     bytes");</li>
 * <li>IPv6: the 40-byte IPv6 header, whose layout is the GRH's (version 6, traffic class, flow label, payload
 *     length, next header 17 (UDP), hop limit, source GID, destination GID).</li>
 * </ul>
 *
 * Every method writes exactly {@link #LENGTH} bytes at {@code off} and allocates nothing.
 */
public final class Grh {
    /** Length of the GRH area in bytes (sizeof(struct ibv_grh)). */
    public static final int LENGTH = 40;
    /** Offset of the IPv4 header inside the GRH area of a RoCEv2-over-IPv4 packet. */
    public static final int IPV4_OFFSET = 20;
    /** IPv4 header length without options. */
    public static final int IPV4_HEADER = 20;
    /** IPv4 flags/fragment word with only Don't Fragment set. */
    public static final int IPV4_DF = 0x4000;
    /** IP protocol / IPv6 next header number of UDP. */
    public static final int UDP = 17;
    /** UDP header length. */
    public static final int UDP_HEADER = 8;

    private Grh() {
    }

    /**
     * Writes the GRH area of a RoCEv2 packet received over IPv4: 20 zero bytes and the IPv4 header
     * (version 4, IHL 5, no options, protocol UDP) with its header checksum computed.
     *
     * @param tos         DSCP/ECN byte
     * @param totalLength IPv4 total length: 20 + 8 (UDP) + the IB packet length including the ICRC
     * @param id          the 16-bit identification
     * @param flagsFrag   the flags and fragment offset word ({@link #IPV4_DF} for RoCEv2)
     * @param ttl         time to live
     * @param srcIp       source address, big-endian
     * @param dstIp       destination address, big-endian
     */
    public static void writeIpv4(MemorySegment s, long off, int tos, int totalLength, int id, int flagsFrag, int ttl,
            int srcIp, int dstIp) {
        s.set(LONG_BE, off, 0L);
        s.set(LONG_BE, off + 8, 0L);
        s.set(INT_BE, off + 16, 0);
        long ip = off + IPV4_OFFSET;
        s.set(BYTE, ip, (byte) 0x45);
        s.set(BYTE, ip + 1, (byte) tos);
        s.set(SHORT_BE, ip + 2, (short) totalLength);
        s.set(SHORT_BE, ip + 4, (short) id);
        s.set(SHORT_BE, ip + 6, (short) flagsFrag);
        s.set(BYTE, ip + 8, (byte) ttl);
        s.set(BYTE, ip + 9, (byte) UDP);
        s.set(SHORT_BE, ip + 10, (short) 0);
        s.set(INT_BE, ip + 12, srcIp);
        s.set(INT_BE, ip + 16, dstIp);
        s.set(SHORT_BE, ip + 10, (short) ipv4Checksum(s, ip));
    }

    /**
     * Writes the GRH area of a RoCEv2 packet received over IPv6: the IPv6 header with next header UDP.
     *
     * @param trafficClass  traffic class (8 bits)
     * @param flowLabel     flow label (20 bits)
     * @param payloadLength IPv6 payload length: 8 (UDP) + the IB packet length including the ICRC
     * @param hopLimit      hop limit
     * @param srcHi         source GID bytes 0..7, big-endian; {@code srcLo} bytes 8..15
     * @param dstHi         destination GID bytes 0..7, big-endian; {@code dstLo} bytes 8..15
     */
    public static void writeIpv6(MemorySegment s, long off, int trafficClass, int flowLabel, int payloadLength,
            int hopLimit, long srcHi, long srcLo, long dstHi, long dstLo) {
        s.set(INT_BE, off, 6 << 28 | (trafficClass & 0xFF) << 20 | (flowLabel & 0xF_FFFF));
        s.set(SHORT_BE, off + 4, (short) payloadLength);
        s.set(BYTE, off + 6, (byte) UDP);
        s.set(BYTE, off + 7, (byte) hopLimit);
        s.set(LONG_BE, off + 8, srcHi);
        s.set(LONG_BE, off + 16, srcLo);
        s.set(LONG_BE, off + 24, dstHi);
        s.set(LONG_BE, off + 32, dstLo);
    }

    /** The one's-complement header checksum (RFC 791) of the 20-byte IPv4 header at {@code ip}. */
    public static int ipv4Checksum(MemorySegment s, long ip) {
        int sum = 0;
        for (int i = 0; i < IPV4_HEADER; i += 2) {
            if (i != 10) {
                sum += s.get(SHORT_BE, ip + i) & 0xFFFF;
            }
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    /** The IP version of a GRH area: 4 when bytes 20.. hold an IPv4 header after 20 zero bytes, else 6 or other. */
    public static int ipVersion(MemorySegment s, long off) {
        int v6 = (s.get(BYTE, off) & 0xF0) >>> 4;
        if (v6 == 6) {
            return 6;
        }
        return (s.get(BYTE, off + IPV4_OFFSET) & 0xF0) >>> 4;
    }
}
