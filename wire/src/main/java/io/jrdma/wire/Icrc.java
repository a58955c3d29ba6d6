package io.jrdma.wire;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.CRC32;

/**
 * RoCEv2 invariant CRC (IBA Annex A17 "RoCEv2", as Linux rxe_icrc.c): CRC-32 (zlib polynomial, initial value all ones,
 * final inversion) over
 * <ol>
 * <li>eight 0xFF bytes standing in for the masked LRH (the CRC register after them is 0xDEBB20E3, the seed rxe
 *     starts from);</li>
 * <li>the IPv4 header with TOS, TTL and header checksum set to all ones (IPv6: traffic class, flow label and hop
 *     limit all ones);</li>
 * <li>the UDP header with the checksum set to all ones;</li>
 * <li>the BTH with byte 4 (FECN/BECN/resv) set to all ones;</li>
 * <li>the rest of the IB packet: extension headers, payload and pad, up to the ICRC.</li>
 * </ol>
 * The four ICRC bytes on the wire are that CRC in little-endian order.
 *
 * <p>Packets are given as {@code (buffer, off, ibLen)} with the BTH at {@code off} and {@code ibLen} counting the
 * IB packet including its 4 ICRC bytes. Methods leave the buffer's position and limit as they found them (a mark
 * beyond the packet start may be discarded). One instance per thread: instances are reusable and not thread-safe;
 * no call allocates.
 */
public final class Icrc {
    /** Length of the ICRC in bytes. */
    public static final int LENGTH = 4;
    /** Smallest IB packet: BTH plus ICRC. */
    public static final int MIN_IB_LENGTH = Bth.LENGTH + LENGTH;

    /** CRC-32 polynomial 0x04C11DB7, bit-reflected as zlib uses it; bit 31 is the x^0 coefficient. */
    private static final int POLY = 0xEDB88320;
    /** The polynomial "1" in the reflected representation. */
    private static final int ONE = 0x80000000;

    private static final int MASKED_LRH = 8;
    private static final int IPV4_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int UDP_HEADER = 8;
    private static final int IPV4_PSEUDO = MASKED_LRH + IPV4_HEADER + UDP_HEADER + Bth.LENGTH;
    private static final int IPV6_PSEUDO = MASKED_LRH + IPV6_HEADER + UDP_HEADER + Bth.LENGTH;
    /** Offset of the IPv4 identification field in the CRC input. */
    private static final int IPV4_ID_AT = MASKED_LRH + 4;
    /** CRC input bytes after the IPv4 ID, less {@code ibLen}: IPv4 bytes 6..19, UDP, minus the ICRC. */
    private static final int AFTER_ID_MINUS_IB = IPV4_HEADER - 6 + UDP_HEADER - LENGTH;

    /** {@code x^(-8 * 2^k) mod P}: un-shifts a CRC difference over {@code 2^k} following bytes. */
    private static final int[] X8_INV_POW = new int[31];
    /** Reduced row-echelon basis of the CRC differences of the 16 IPv4 ID bits, with no following bytes. */
    private static final int[] ID_ROWS = new int[16];
    /** The ID bits whose differences XOR to the row of the same index. */
    private static final int[] ID_BITS = new int[16];
    /** The pivot bit of each row, set in that row only. */
    private static final int[] ID_PIVOTS = new int[16];

    static {
        int xInv = inverseTimesX(ONE);
        int x8Inv = ONE;
        for (int i = 0; i < 8; i++) {
            x8Inv = multModP(x8Inv, xInv);
        }
        X8_INV_POW[0] = x8Inv;
        for (int k = 1; k < X8_INV_POW.length; k++) {
            X8_INV_POW[k] = multModP(X8_INV_POW[k - 1], X8_INV_POW[k - 1]);
        }
        buildIdBasis();
    }

    private final CRC32 crc = new CRC32();
    private final byte[] pseudo = new byte[IPV6_PSEUDO];

    /** Creates a calculator. */
    public Icrc() {
        for (int i = 0; i < MASKED_LRH; i++) {
            pseudo[i] = (byte) 0xFF;
        }
    }

    /**
     * Computes the ICRC of a packet carried in IPv4.
     *
     * @param srcIp   IPv4 source address
     * @param dstIp   IPv4 destination address
     * @param srcPort UDP source port
     * @param dstPort UDP destination port (4791)
     * @param ipId    IPv4 identification field
     * @param pkt     buffer holding the IB packet
     * @param off     offset of the BTH in {@code pkt}
     * @param ibLen   IB packet length including the ICRC
     * @return the CRC; its little-endian bytes are the ICRC
     */
    public int computeIpv4(int srcIp, int dstIp, int srcPort, int dstPort, int ipId, ByteBuffer pkt, int off,
                           int ibLen) {
        checkPacket(pkt, off, ibLen);
        putIpv4Pseudo(srcIp, dstIp, srcPort, dstPort, ipId, pkt, off, ibLen);
        return crcOf(IPV4_PSEUDO, pkt, off, ibLen);
    }

    /** Fills {@link #pseudo} with the masked IPv4 and UDP headers and the BTH of the packet at {@code off}. */
    private void putIpv4Pseudo(int srcIp, int dstIp, int srcPort, int dstPort, int ipId, ByteBuffer pkt, int off,
                               int ibLen) {
        byte[] h = pseudo;
        int ip = MASKED_LRH;
        h[ip] = 0x45;                                  // version 4, IHL 5
        h[ip + 1] = (byte) 0xFF;                       // TOS, masked
        putShort(h, ip + 2, IPV4_HEADER + UDP_HEADER + ibLen);
        putShort(h, ip + 4, ipId);
        putShort(h, ip + 6, 0x4000);                   // DF, fragment offset 0
        h[ip + 8] = (byte) 0xFF;                       // TTL, masked
        h[ip + 9] = 17;                                // UDP
        putShort(h, ip + 10, 0xFFFF);                  // header checksum, masked
        putInt(h, ip + 12, srcIp);
        putInt(h, ip + 16, dstIp);
        putUdpAndBth(h, ip + IPV4_HEADER, srcPort, dstPort, pkt, off, ibLen);
    }

    /**
     * Computes the ICRC for IPv4 with ID 0 (we send with DF from an unconnected socket, so Linux puts ID 0) and
     * stores it little-endian in the packet's last four bytes.
     */
    public void writeIpv4(int srcIp, int dstIp, int srcPort, int dstPort, ByteBuffer pkt, int off, int ibLen) {
        putLe(pkt, off + ibLen - LENGTH, computeIpv4(srcIp, dstIp, srcPort, dstPort, 0, pkt, off, ibLen));
    }

    /**
     * Computes the ICRC for IPv4 with the given ID and stores it little-endian in the packet's last four bytes: the
     * segments of one UDP GSO send leave Linux with IDs 0, 1, 2, ...
     */
    public void writeIpv4(int srcIp, int dstIp, int srcPort, int dstPort, int ipId, ByteBuffer pkt, int off,
                          int ibLen) {
        putLe(pkt, off + ibLen - LENGTH, computeIpv4(srcIp, dstIp, srcPort, dstPort, ipId, pkt, off, ibLen));
    }

    /**
     * Computes the IPv4 ICRC of a packet whose bytes are not contiguous: its headers at the start of {@code hdr}
     * ({@code hdrLength} bytes, BTH first), then {@code n} payload pieces ({@code parts[i]} from {@code offs[i]},
     * {@code lens[i]} bytes), then {@code pad} zero bytes; {@code ibLen} is the whole IB packet with its ICRC. The
     * parts' positions and limits are changed. Used to send payload straight from registered memory.
     */
    public int computeIpv4(int srcIp, int dstIp, int srcPort, int dstPort, int ipId, ByteBuffer hdr, int hdrLength,
                           int ibLen, ByteBuffer[] parts, int[] offs, int[] lens, int n, int pad) {
        if (ibLen < MIN_IB_LENGTH || hdrLength < Bth.LENGTH || pad < 0 || pad > 3) {
            throw new IllegalArgumentException("bad packet layout: " + hdrLength + " header bytes, " + ibLen
                    + " in all, pad " + pad);
        }
        putIpv4Pseudo(srcIp, dstIp, srcPort, dstPort, ipId, hdr, 0, ibLen);
        CRC32 c = crc;
        c.reset();
        c.update(pseudo, 0, IPV4_PSEUDO);
        update(c, hdr, Bth.LENGTH, hdrLength - Bth.LENGTH);
        for (int i = 0; i < n; i++) {
            update(c, parts[i], offs[i], lens[i]);
        }
        if (pad > 0) {
            c.update(ZERO_PAD, 0, pad);
        }
        return (int) c.getValue();
    }

    private static final byte[] ZERO_PAD = new byte[3];

    private static void update(CRC32 c, ByteBuffer b, int off, int len) {
        if (len <= 0) {
            return;
        }
        if (b.hasArray()) {
            c.update(b.array(), b.arrayOffset() + off, len);
            return;
        }
        int position = b.position();
        int limit = b.limit();
        b.clear().position(off).limit(off + len);
        c.update(b);
        b.limit(limit).position(position);
    }

    /** True when the packet's ICRC matches for the given IPv4 ID. */
    public boolean verifyIpv4(int srcIp, int dstIp, int srcPort, int dstPort, int ipId, ByteBuffer pkt, int off,
                              int ibLen) {
        return computeIpv4(srcIp, dstIp, srcPort, dstPort, ipId, pkt, off, ibLen) == getLe(pkt, off + ibLen - LENGTH);
    }

    /**
     * Finds the IPv4 identification that makes the packet's ICRC verify. The socket API hides the received ID and
     * kernel rxe sends nonzero IDs; the CRC is affine in its input, so the difference between the wire ICRC and the
     * ICRC computed with ID 0 is a linear function of the ID's 16 bits, shifted by the bytes that follow it. The
     * difference is un-shifted and solved against a precomputed basis; the answer is unique because CRC-32 maps
     * distinct 16-bit patterns to distinct differences.
     *
     * @return the ID (0..65535), or -1 when no ID verifies (the packet is corrupt)
     */
    public int solveIpv4Id(int srcIp, int dstIp, int srcPort, int dstPort, ByteBuffer pkt, int off, int ibLen) {
        int diff = computeIpv4(srcIp, dstIp, srcPort, dstPort, 0, pkt, off, ibLen) ^ getLe(pkt, off + ibLen - LENGTH);
        if (diff == 0) {
            return 0;
        }
        int u = multModP(diff, x8InvPow(ibLen + AFTER_ID_MINUS_IB));
        int id = 0;
        for (int i = 0; i < ID_ROWS.length; i++) {
            if ((u & ID_PIVOTS[i]) != 0) {
                u ^= ID_ROWS[i];
                id ^= ID_BITS[i];
            }
        }
        return u == 0 ? id : -1;
    }

    /**
     * Computes the ICRC of a packet carried in IPv6.
     *
     * @param src16   IPv6 source address, 16 bytes
     * @param dst16   IPv6 destination address, 16 bytes
     * @param srcPort UDP source port
     * @param dstPort UDP destination port (4791)
     * @param pkt     buffer holding the IB packet
     * @param off     offset of the BTH in {@code pkt}
     * @param ibLen   IB packet length including the ICRC
     * @return the CRC; its little-endian bytes are the ICRC
     */
    public int computeIpv6(byte[] src16, byte[] dst16, int srcPort, int dstPort, ByteBuffer pkt, int off,
                           int ibLen) {
        checkPacket(pkt, off, ibLen);
        if (src16.length != 16 || dst16.length != 16) {
            throw new IllegalArgumentException("IPv6 addresses must be 16 bytes");
        }
        byte[] h = pseudo;
        int ip = MASKED_LRH;
        h[ip] = 0x6F;                                  // version 6, traffic class high nibble masked
        h[ip + 1] = (byte) 0xFF;                       // traffic class low nibble, flow label high nibble
        putShort(h, ip + 2, 0xFFFF);                   // flow label
        putShort(h, ip + 4, UDP_HEADER + ibLen);       // payload length
        h[ip + 6] = 17;                                // next header UDP
        h[ip + 7] = (byte) 0xFF;                       // hop limit, masked
        System.arraycopy(src16, 0, h, ip + 8, 16);
        System.arraycopy(dst16, 0, h, ip + 24, 16);
        putUdpAndBth(h, ip + IPV6_HEADER, srcPort, dstPort, pkt, off, ibLen);
        return crcOf(IPV6_PSEUDO, pkt, off, ibLen);
    }

    /** Computes the IPv6 ICRC and stores it little-endian in the packet's last four bytes. */
    public void writeIpv6(byte[] src16, byte[] dst16, int srcPort, int dstPort, ByteBuffer pkt, int off, int ibLen) {
        putLe(pkt, off + ibLen - LENGTH, computeIpv6(src16, dst16, srcPort, dstPort, pkt, off, ibLen));
    }

    /** True when the packet's ICRC matches for IPv6. */
    public boolean verifyIpv6(byte[] src16, byte[] dst16, int srcPort, int dstPort, ByteBuffer pkt, int off,
                              int ibLen) {
        return computeIpv6(src16, dst16, srcPort, dstPort, pkt, off, ibLen) == getLe(pkt, off + ibLen - LENGTH);
    }

    /** The ICRC field of a packet, read little-endian (the CRC value it claims). */
    public static int wireIcrc(ByteBuffer pkt, int off, int ibLen) {
        return getLe(pkt, off + ibLen - LENGTH);
    }

    private static void putUdpAndBth(byte[] h, int udp, int srcPort, int dstPort, ByteBuffer pkt, int off,
                                     int ibLen) {
        putShort(h, udp, srcPort);
        putShort(h, udp + 2, dstPort);
        putShort(h, udp + 4, UDP_HEADER + ibLen);
        putShort(h, udp + 6, 0xFFFF);                  // UDP checksum, masked
        int bth = udp + UDP_HEADER;
        pkt.get(off, h, bth, Bth.LENGTH);
        h[bth + Bth.RESV8A] = (byte) 0xFF;             // FECN/BECN/resv, masked
    }

    private int crcOf(int pseudoLength, ByteBuffer pkt, int off, int ibLen) {
        CRC32 c = crc;
        c.reset();
        c.update(pseudo, 0, pseudoLength);
        int from = off + Bth.LENGTH;
        int to = off + ibLen - LENGTH;
        update(c, pkt, from, to - from);
        return (int) c.getValue();
    }

    private static void checkPacket(ByteBuffer pkt, int off, int ibLen) {
        if (ibLen < MIN_IB_LENGTH) {
            throw new IllegalArgumentException("IB packet of " + ibLen + " bytes is shorter than BTH + ICRC");
        }
        Objects.checkFromIndexSize(off, ibLen, pkt.limit());
    }

    /** {@code x^(-8n) mod P}, from the squares table. */
    private static int x8InvPow(int n) {
        int p = ONE;
        for (int k = 0; n != 0; k++, n >>>= 1) {
            if ((n & 1) != 0) {
                p = multModP(p, X8_INV_POW[k]);
            }
        }
        return p;
    }

    /** {@code a * b mod P} in the reflected representation (zlib's multmodp). */
    static int multModP(int a, int b) {
        int p = 0;
        for (int m = ONE; m != 0; m >>>= 1) {
            if ((a & m) != 0) {
                p ^= b;
            }
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return p;
    }

    /** {@code q * x^-1 mod P}: undoes one step of {@code b = b * x mod P} as done in {@link #multModP}. */
    private static int inverseTimesX(int q) {
        // q * x had its x^0 coefficient (bit 31) set exactly when the reduction by P happened.
        return (q & ONE) != 0 ? ((q ^ POLY) << 1) | 1 : q << 1;
    }

    private static void buildIdBasis() {
        CRC32 c = new CRC32();
        c.update(new byte[2]);
        int zeros = (int) c.getValue();
        int count = 0;
        for (int bit = 0; bit < 16; bit++) {
            c.reset();
            int id = 1 << bit;
            c.update(new byte[] {(byte) (id >>> 8), (byte) id});
            int v = (int) c.getValue() ^ zeros;        // linear part: raw CRC of the ID bytes alone
            int m = id;
            for (int j = 0; j < count; j++) {
                if ((v & ID_PIVOTS[j]) != 0) {
                    v ^= ID_ROWS[j];
                    m ^= ID_BITS[j];
                }
            }
            if (v == 0) {
                throw new AssertionError("IPv4 ID bits not independent under CRC-32");
            }
            int pivot = Integer.lowestOneBit(v);
            for (int j = 0; j < count; j++) {
                if ((ID_ROWS[j] & pivot) != 0) {
                    ID_ROWS[j] ^= v;
                    ID_BITS[j] ^= m;
                }
            }
            ID_ROWS[count] = v;
            ID_BITS[count] = m;
            ID_PIVOTS[count] = pivot;
            count++;
        }
    }

    private static void putShort(byte[] h, int at, int v) {
        h[at] = (byte) (v >>> 8);
        h[at + 1] = (byte) v;
    }

    private static void putInt(byte[] h, int at, int v) {
        h[at] = (byte) (v >>> 24);
        h[at + 1] = (byte) (v >>> 16);
        h[at + 2] = (byte) (v >>> 8);
        h[at + 3] = (byte) v;
    }

    private static void putLe(ByteBuffer b, int at, int v) {
        b.put(at, (byte) v).put(at + 1, (byte) (v >>> 8)).put(at + 2, (byte) (v >>> 16)).put(at + 3, (byte) (v >>> 24));
    }

    private static int getLe(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) | (b.get(at + 1) & 0xFF) << 8 | (b.get(at + 2) & 0xFF) << 16
                | (b.get(at + 3) & 0xFF) << 24;
    }
}
