package io.jrdma.wire;

import java.lang.foreign.MemorySegment;

/**
 * The rdma_cm header that the kernel's cma puts first in the private data of a REQ and of a SIDR_REQ (IBA annex
 * A11 "IP addressing CM REQ message private data format"; the kernel's struct cma_hdr), 36 bytes. Static accessors
 * over {@code (segment, offset of the header)}, normally {@code madOffset + CmReq.PRIVATE_DATA} or
 * {@code madOffset + CmSidrReq.PRIVATE_DATA}.
 *
 * <pre>
 * byte 0      CMA version (0x00)
 * byte 1      IP version in bits 7:4 (4 or 6), bits 3:0 zero
 * bytes 2-3   port of the active side (the source port; the destination port is in the service id)
 * bytes 4-19  source IP address: IPv6, or IPv4 in bytes 16-19 with bytes 4-15 zero
 * bytes 20-35 destination IP address, same encoding
 * </pre>
 *
 * The consumer's private data follows at {@link #LENGTH}.
 */
public final class CmaHeader {
    /** Header length in bytes. */
    public static final int LENGTH = 36;
    /** Offset of the CMA version byte. */
    public static final int CMA_VERSION = 0;
    /** Offset of the IP version byte (version in the high nibble). */
    public static final int IP_VERSION = 1;
    /** Offset of the 16-bit port. */
    public static final int PORT = 2;
    /** Offset of the 16-byte source address. */
    public static final int SRC_ADDR = 4;
    /** Offset of the 16-byte destination address. */
    public static final int DST_ADDR = 20;
    /** Offset of an IPv4 address inside a 16-byte address field. */
    public static final int IPV4_IN_ADDR = 12;
    /** The only CMA version the kernel sends and accepts (CMA_VERSION). */
    public static final int VERSION = 0x00;

    private CmaHeader() {
    }

    /** CMA version byte. */
    public static int cmaVersion(MemorySegment s, long off) {
        return Bits.u8(s, off + CMA_VERSION);
    }

    /** Sets the CMA version byte. */
    public static void setCmaVersion(MemorySegment s, long off, int v) {
        Bits.setU8(s, off + CMA_VERSION, v);
    }

    /** IP version (4 or 6): the high nibble of byte 1. */
    public static int ipVersion(MemorySegment s, long off) {
        return Bits.get8(s, off + IP_VERSION, 0, 4);
    }

    /** Sets the IP version nibble, keeping the low nibble. */
    public static void setIpVersion(MemorySegment s, long off, int v) {
        Bits.set8(s, off + IP_VERSION, 0, 4, v);
    }

    /** Port (16 bits): the active side's source port. */
    public static int port(MemorySegment s, long off) {
        return Bits.u16(s, off + PORT);
    }

    /** Sets the port. */
    public static void setPort(MemorySegment s, long off, int v) {
        Bits.setU16(s, off + PORT, v);
    }

    /** Source IPv4 address (the last 4 bytes of the source address field), as a big-endian int. */
    public static int srcIpv4(MemorySegment s, long off) {
        return Bits.i32(s, off + SRC_ADDR + IPV4_IN_ADDR);
    }

    /** Writes an IPv4 source address: 12 zero bytes, then the address. */
    public static void setSrcIpv4(MemorySegment s, long off, int ip) {
        setIpv4(s, off + SRC_ADDR, ip);
    }

    /** Destination IPv4 address (the last 4 bytes of the destination address field), as a big-endian int. */
    public static int dstIpv4(MemorySegment s, long off) {
        return Bits.i32(s, off + DST_ADDR + IPV4_IN_ADDR);
    }

    /** Writes an IPv4 destination address: 12 zero bytes, then the address. */
    public static void setDstIpv4(MemorySegment s, long off, int ip) {
        setIpv4(s, off + DST_ADDR, ip);
    }

    /** Copies the 16-byte source address field into {@code dst} (at least 16 bytes). */
    public static void srcAddr(MemorySegment s, long off, byte[] dst) {
        Bits.copyOut(s, off + SRC_ADDR, dst, 16);
    }

    /** Sets the 16-byte source address field (an IPv6 address) from the first 16 bytes of {@code addr}. */
    public static void setSrcAddr(MemorySegment s, long off, byte[] addr) {
        Bits.copyIn(addr, s, off + SRC_ADDR, 16);
    }

    /** Copies the 16-byte destination address field into {@code dst} (at least 16 bytes). */
    public static void dstAddr(MemorySegment s, long off, byte[] dst) {
        Bits.copyOut(s, off + DST_ADDR, dst, 16);
    }

    /** Sets the 16-byte destination address field (an IPv6 address) from the first 16 bytes of {@code addr}. */
    public static void setDstAddr(MemorySegment s, long off, byte[] addr) {
        Bits.copyIn(addr, s, off + DST_ADDR, 16);
    }

    /**
     * Writes a whole IPv4 header as the kernel's cma does for an AF_INET connection: version 0, IP version 4,
     * port, and the two addresses with 12 zero bytes before each.
     */
    public static void writeIpv4(MemorySegment s, long off, int port, int srcIp, int dstIp) {
        setCmaVersion(s, off, VERSION);
        Bits.setU8(s, off + IP_VERSION, 4 << 4);
        setPort(s, off, port);
        setSrcIpv4(s, off, srcIp);
        setDstIpv4(s, off, dstIp);
    }

    private static void setIpv4(MemorySegment s, long at, int ip) {
        Bits.setI64(s, at, 0);
        Bits.setI32(s, at + 8, 0);
        Bits.setI32(s, at + IPV4_IN_ADDR, ip);
    }
}
