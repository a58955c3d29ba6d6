package io.jrdma.soft;

import io.jrdma.soft.link.Link;
import io.jrdma.wire.Icrc;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Predicate;

/**
 * The transmit path (rxe_net's xmit): the requester and responder build a packet's headers (and copied payload) in
 * {@link #packet()} and hand it over with {@link #send}; this seals it with its ICRC, shows it to the tap and gives
 * it to the link. On a native link packets are gathered into GSO batches: packets built in turn in slots, sent
 * together when they share source port, destination and size (the last may be shorter), each sealed for the IPv4
 * ID Linux will give it (its index in the batch); a batch is sent when a packet does not fit it and at the end of
 * every engine pass ({@link #flush}). There, too, a payload in registered memory can go by reference: the kernel
 * gathers it ({@link #addPiece}, {@link #sendByReference}). A batch for a device of this host that takes packets
 * without ICRCs ({@link Link#icrcOptional}: the shared-memory path) is sent with them left out, when no tap or test
 * hook is there to see its packets. Engine thread only.
 */
final class Transmitter {

    /** Bytes between packet slots: the largest packet, rounded to a cache line. */
    private static final int SLOT_BYTES = (SoftLimits.MAX_PACKET + 63) & ~63;
    private static final int MAX_PIECES = SoftLimits.MAX_SGE + 1;
    private static final ValueLayout.OfInt ICRC_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** {@code -Djrdma.copyPayload=true} copies every payload into the packet (for A/B measurements). */
    private static final boolean BY_REFERENCE = !Boolean.getBoolean("jrdma.copyPayload");

    private final Link link;
    private final Counters counters;
    private final PortFlags port;
    private final int localIp;
    private final Icrc icrc = new Icrc();
    /** Test hook: a packet about to be sent for which this answers true is lost instead (tests of UC loss). */
    private volatile Predicate<MemorySegment> dropHook;

    // the slot the next packet is built in, and the GSO batch of the slots before it
    private final int maxSegments;
    private final MemorySegment[] slotSegments;
    private final ByteBuffer[] slotBuffers;
    private final long[] slotAddresses;
    private int slot;
    private MemorySegment tx;
    private ByteBuffer txBuffer;
    private final int[] batchLengths;  // per packet
    private final long[] iovAddresses; // per piece: a packet is its slot, or header, payload pieces and trailer
    private final int[] iovLengths;
    private int iovCount;
    private int batchCount;
    private int batchBytes;
    private int batchSourcePort;
    private int batchDestIp;
    private int batchDestPort;
    private boolean batchWithoutIcrc; // its packets' ICRCs are left out (zero): memory carries it, not a wire

    // the payload pieces of the packet being built by reference
    private final ByteBuffer[] pieceBuffers = new ByteBuffer[MAX_PIECES];
    private final int[] pieceOffsets = new int[MAX_PIECES];
    private final int[] pieceLengths = new int[MAX_PIECES];
    private final long[] pieceAddresses = new long[MAX_PIECES];
    private int pieces;

    Transmitter(Link link, Counters counters, PortFlags port) {
        this.link = link;
        this.counters = counters;
        this.port = port;
        this.localIp = link.localIp();
        maxSegments = link.maxSegments();
        int slots = maxSegments + 1; // a full batch plus the slot being built
        ByteBuffer area = ByteBuffer.allocateDirect(slots * SLOT_BYTES);
        slotSegments = new MemorySegment[slots];
        slotBuffers = new ByteBuffer[slots];
        slotAddresses = new long[slots];
        for (int i = 0; i < slots; i++) {
            slotBuffers[i] = area.slice(i * SLOT_BYTES, SoftLimits.MAX_PACKET);
            slotSegments[i] = MemorySegment.ofBuffer(slotBuffers[i]);
            slotAddresses[i] = slotSegments[i].address();
        }
        batchLengths = new int[maxSegments];
        int iov = maxSegments > 1 ? Link.maxPieces() : 1;
        iovAddresses = new long[iov];
        iovLengths = new int[iov];
        txBuffer = slotBuffers[0];
        tx = slotSegments[0];
    }

    /** Where the next packet is built, from offset 0 ({@link SoftLimits#MAX_PACKET} bytes). */
    MemorySegment packet() {
        return tx;
    }

    /** Sets (null clears) the test hook that loses the packets it answers true for, after the tap saw them. */
    void dropHook(Predicate<MemorySegment> hook) {
        dropHook = hook;
    }

    /** Sends the packet built at {@link #packet()} ({@code length} bytes before the ICRC) on behalf of {@code qp}. */
    void send(SoftQp qp, int length) {
        sendTo(qp.srcPort, qp.destIp, qp.destAddress, length);
    }

    /**
     * Sends the packet built at {@link #packet()} ({@code length} bytes before the ICRC) from UDP port
     * {@code srcPort} to {@code destAddress} (whose IPv4 address is {@code destIp}): a UD datagram goes where its
     * WQE's address handle says, resolved when the handle was created, so nothing is allocated per packet.
     */
    void sendTo(int srcPort, int destIp, InetSocketAddress destAddress, int length) {
        int total = length + 4;
        if (port.down()) {
            counters.increment(Counter.PORT_XMIT_DISCARDS); // lost on a down link; the retry timer recovers
            return;
        }
        if (maxSegments > 1) {
            stage(srcPort, destIp, destAddress.getPort(), total);
            return;
        }
        icrc.writeIpv4(localIp, destIp, srcPort, Link.ROCE_PORT, txBuffer, 0, total);
        if (tappedAndLost(total, srcPort, destIp)) {
            txBuffer.clear(); // a test's wire loss: built, tapped, never sent
            return;
        }
        txBuffer.limit(total).position(0);
        if (link.send(srcPort, txBuffer, destAddress)) {
            counted(1, total);
        } else {
            counters.increment(Counter.SEND_ERR); // lost like a wire drop; retransmission recovers
        }
        txBuffer.clear();
    }

    /** Shows the packet at {@link #tx} to the tap; true when the test hook loses it. */
    private boolean tappedAndLost(int total, int srcPort, int destIp) {
        PacketTap t = port.tap();
        if (t != null) {
            t.onPacket(true, tx, 0, total, localIp, srcPort, destIp, Link.ROCE_PORT);
        }
        Predicate<MemorySegment> lose = dropHook;
        return lose != null && lose.test(tx);
    }

    private void counted(int packets, int bytes) {
        counters.add(Counter.SENT_PKTS, packets);
        counters.add(Counter.PORT_XMIT_DATA, bytes);
        counters.add(Counter.PORT_XMIT_PACKETS, packets);
    }

    /**
     * Adds the packet just built in the current slot to the GSO batch (sending the batch first when the packet
     * cannot join it), with the ICRC for the IPv4 ID Linux will give it: its index in the batch.
     */
    private void stage(int srcPort, int destIp, int destPort, int total) {
        int k = admit(srcPort, destIp, destPort, total, 1);
        if (batchWithoutIcrc && port.tap() == null) {
            tx.set(ICRC_LE, total - 4, 0);
        } else {
            icrc.writeIpv4(localIp, destIp, srcPort, Link.ROCE_PORT, k, txBuffer, 0, total);
        }
        if (tappedAndLost(total, srcPort, destIp)) {
            return; // a test's wire loss: built, tapped, never sent (the slot is built over next)
        }
        iovAddresses[iovCount] = slotAddresses[slot];
        iovLengths[iovCount++] = total;
        appended(total);
    }

    /**
     * Makes room in the batch for a packet of {@code total} bytes in {@code pieces} I/O-vector entries (sending the
     * batch first when the packet cannot join it) and returns the packet's index in the batch: the IPv4 ID Linux
     * will give it.
     */
    private int admit(int srcPort, int destIp, int destPort, int total, int pieces) {
        if (batchCount > 0 && !joins(srcPort, destIp, destPort, total, pieces)) {
            flush();
        }
        if (batchCount == 0) {
            batchSourcePort = srcPort;
            batchDestIp = destIp;
            batchDestPort = destPort;
            batchWithoutIcrc = port.tap() == null && dropHook == null && link.icrcOptional(destIp, destPort);
        }
        return batchCount;
    }

    /** Counts the packet whose I/O-vector entries were just added, moves to the next slot, sends a full batch. */
    private void appended(int total) {
        batchLengths[batchCount++] = total;
        batchBytes += total;
        slot = slot + 1 == slotSegments.length ? 0 : slot + 1;
        tx = slotSegments[slot];
        txBuffer = slotBuffers[slot];
        if (batchCount == maxSegments) {
            flush();
        }
    }

    /** Whether a packet can follow the batch in one GSO send: same flow, and the batch's last packet full-size. */
    private boolean joins(int srcPort, int destIp, int destPort, int total, int pieces) {
        int segment = batchLengths[0];
        return srcPort == batchSourcePort && destIp == batchDestIp && destPort == batchDestPort
                && batchLengths[batchCount - 1] == segment && total <= segment
                && batchBytes + total <= Link.maxSegmentsBytes() && iovCount + pieces <= iovAddresses.length;
    }

    // ----------------------------------------------------------------------- payload by reference (native links)

    /**
     * Whether the packet being built may name its payload in registered memory instead of copying it
     * ({@link #addPiece}, {@link #sendByReference}): on a native link, with no tap or test hook that must see
     * whole packets.
     */
    boolean byReference() {
        return maxSegments > 1 && BY_REFERENCE && port.tap() == null && dropHook == null;
    }

    /** Starts the payload pieces of a packet over. */
    void clearPieces() {
        pieces = 0;
    }

    /**
     * Adds {@code length} bytes of {@code mr} at {@code offset} to the payload of the packet being built; false
     * when they cannot be sent by reference (too many pieces, memory that is not native or too large for a buffer
     * view), and the caller copies the payload instead.
     */
    boolean addPiece(SoftMr mr, long offset, int length) {
        ByteBuffer b = mr.buffer();
        if (pieces == MAX_PIECES || b == null) {
            return false;
        }
        pieceBuffers[pieces] = b;
        pieceOffsets[pieces] = (int) offset;
        pieceLengths[pieces] = length;
        pieceAddresses[pieces] = mr.address + offset;
        pieces++;
        return true;
    }

    /**
     * Sends the packet whose headers ({@code hdr} bytes) are built at {@link #packet()} and whose {@code payload}
     * bytes are the pieces added since {@link #clearPieces}: the kernel gathers them from registered memory, so the
     * payload is read twice (ICRC, kernel copy) and never copied by the engine.
     */
    void sendByReference(SoftQp qp, int hdr, int payload, int pad) {
        int total = hdr + payload + pad + 4;
        if (port.down()) {
            counters.increment(Counter.PORT_XMIT_DISCARDS);
            return;
        }
        int srcPort = qp.srcPort;
        int destIp = qp.destIp;
        int destPort = qp.destAddress.getPort();
        int n = pieces;
        int k = admit(srcPort, destIp, destPort, total, n + 2);
        int crc = batchWithoutIcrc ? 0 : icrc.computeIpv4(localIp, destIp, srcPort, Link.ROCE_PORT, k, txBuffer, hdr,
                total, pieceBuffers, pieceOffsets, pieceLengths, n, pad);
        MemorySegment t = tx;
        for (int i = 0; i < pad; i++) {
            t.set(ValueLayout.JAVA_BYTE, hdr + i, (byte) 0);
        }
        t.set(ICRC_LE, hdr + pad, crc);
        long base = slotAddresses[slot];
        iovAddresses[iovCount] = base;
        iovLengths[iovCount++] = hdr;
        for (int i = 0; i < n; i++) {
            iovAddresses[iovCount] = pieceAddresses[i];
            iovLengths[iovCount++] = pieceLengths[i];
        }
        iovAddresses[iovCount] = base + hdr;
        iovLengths[iovCount++] = pad + 4;
        pieces = 0;
        appended(total);
    }

    /** Sends the GSO batch, if any (the end of every engine pass). */
    void flush() {
        int n = batchCount;
        if (n == 0) {
            return;
        }
        batchCount = 0;
        int bytes = batchBytes;
        batchBytes = 0;
        int iov = iovCount;
        iovCount = 0;
        int segment = n > 1 ? batchLengths[0] : 0;
        if (batchWithoutIcrc
                ? link.sendSegmentsWithoutIcrc(batchSourcePort, batchDestIp, batchDestPort, iovAddresses, iovLengths,
                        iov, segment)
                : link.sendSegments(batchSourcePort, batchDestIp, batchDestPort, iovAddresses, iovLengths, iov,
                        segment)) {
            counted(n, bytes);
        } else {
            counters.add(Counter.SEND_ERR, n); // lost like wire drops; retransmission recovers
        }
    }
}
