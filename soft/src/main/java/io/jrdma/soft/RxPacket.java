package io.jrdma.soft;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The packet being taken in (rxe's per-packet info): where it lies, who sent it, and the IPv4 ID its ICRC verified
 * under. One instance per receive path, set for each packet by {@link Receiver} before its checks and dispatch, so
 * nothing travels in hidden fields and nothing is allocated per packet. Valid only during the packet's dispatch.
 */
final class RxPacket {

    private MemorySegment segment;
    private ByteBuffer buffer;
    private int offset;
    private int length;
    private int srcIp;
    private int srcPort;
    private int ipIdHint;
    private int ipId;

    /**
     * A packet of {@code length} bytes, readable from offset 0 of {@code segment}, which is {@code offset} bytes
     * into the datagram's receive {@code buffer}; {@code ipIdHint} is the IPv4 ID its sender most likely used (its
     * index in a GRO run).
     */
    void arrived(MemorySegment segment, ByteBuffer buffer, int offset, int length, int srcIp, int srcPort,
            int ipIdHint) {
        this.segment = segment;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.srcIp = srcIp;
        this.srcPort = srcPort;
        this.ipIdHint = ipIdHint;
        this.ipId = -1;
    }

    /** The ICRC verified under this IPv4 ID. */
    void verifiedUnder(int id) {
        ipId = id;
    }

    /** The packet, from its first BTH byte at offset 0. */
    MemorySegment segment() {
        return segment;
    }

    /** The receive buffer of the whole datagram (a GRO run holds several packets). */
    ByteBuffer buffer() {
        return buffer;
    }

    /** Where the packet starts in {@link #buffer()}. */
    int offset() {
        return offset;
    }

    /** The packet's bytes, ICRC included. */
    int length() {
        return length;
    }

    int srcIp() {
        return srcIp;
    }

    int srcPort() {
        return srcPort;
    }

    /** The IPv4 ID the sender most likely used: its index in a GRO run. */
    int ipIdHint() {
        return ipIdHint;
    }

    /** The IPv4 ID under which the ICRC verified ({@code -1} before the check). */
    int ipId() {
        return ipId;
    }
}
