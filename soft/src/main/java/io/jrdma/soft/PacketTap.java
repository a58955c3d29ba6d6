package io.jrdma.soft;

import java.lang.foreign.MemorySegment;

/**
 * Sees every RoCEv2 packet a soft device sends and every datagram it receives (before any check), for capture
 * and tracing. Called on the engine thread; it must not keep {@code packet} beyond the call.
 */
@FunctionalInterface
public interface PacketTap {

    /**
     * One packet: {@code length} bytes of IB transport packet (BTH onwards, ICRC included) at {@code offset}.
     *
     * @param transmit true for a packet this device sent, false for one it received
     */
    void onPacket(boolean transmit, MemorySegment packet, long offset, int length, int srcIp, int srcPort, int dstIp,
            int dstPort);
}
