package io.jrdma.bench;

import io.jrdma.wire.Bth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Reth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The per-packet work of the soft device apart from the socket, in ns per packet, for an RC RDMA WRITE ONLY
 * (BTH + RETH) with {@code payload} bytes: the ICRC written ({@link Icrc#writeIpv4}) and verified
 * ({@link Icrc#verifyIpv4}), and a whole packet built (headers, payload copied in, ICRC) and taken apart (ICRC
 * verified, headers decoded, payload copied out). The baseline is a raw {@link CRC32} over the same IB packet bytes
 * (BTH to payload end) from the same direct buffer, so {@code icrc / baseline} is what the ICRC adds to a plain CRC:
 * the 48-byte pseudo-header (masked LRH, IPv4, UDP, BTH copy) and the bookkeeping.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class IcrcBenchmark {

    /** Source IPv4 address of the packets: 127.0.51.1. */
    static final int SRC_IP = 127 << 24 | 51 << 8 | 1;
    /** Destination IPv4 address of the packets: 127.0.51.2. */
    static final int DST_IP = 127 << 24 | 51 << 8 | 2;
    /** UDP source port (rxe's range starts at 0xC000). */
    static final int SRC_PORT = 0xC001;
    /** RoCEv2 UDP port. */
    static final int DST_PORT = 4791;
    /** Headers of a WRITE ONLY: BTH + RETH. */
    static final int HEADERS = Bth.LENGTH + Reth.LENGTH;
    /** The PSN of the packet that {@link #rxPacket} takes apart. */
    static final int RX_PSN = 0x00BEEF;

    private static final int WRITE_ONLY = Opcode.RC_RDMA_WRITE_ONLY.code();

    /** Payload bytes per packet (a multiple of 4, so no pad). */
    @Param({"0", "64", "1024", "4096"})
    public int payload;

    /** IB packet length: headers, payload, ICRC. */
    int ibLength;
    /** The packet that {@link #icrcWrite} and {@link #icrcVerify} work on (its ICRC is valid). */
    ByteBuffer packet;
    /** A second packet buffer, for {@link #txPacket}. */
    ByteBuffer txBuffer;
    /** The payload {@link #txPacket} copies in, and {@link #rxPacket} copies out to {@link #received}. */
    MemorySegment source;
    /** Where {@link #rxPacket} puts the payload. */
    MemorySegment received;
    private MemorySegment packetSegment;
    private MemorySegment txSegment;
    private ByteBuffer crcView;
    private final Icrc icrc = new Icrc();
    private final CRC32 crc = new CRC32();
    private int psn;

    /** Builds the packet (valid ICRC) and the payload source. */
    @Setup
    public void setup() {
        if (payload % 4 != 0) {
            throw new IllegalArgumentException("payload must be a multiple of 4 bytes, not " + payload);
        }
        ibLength = HEADERS + payload + Icrc.LENGTH;
        packet = ByteBuffer.allocateDirect(ibLength);
        txBuffer = ByteBuffer.allocateDirect(ibLength);
        packetSegment = MemorySegment.ofBuffer(packet);
        txSegment = MemorySegment.ofBuffer(txBuffer);
        source = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(Math.max(1, payload)));
        received = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(Math.max(1, payload)));
        for (int i = 0; i < payload; i++) {
            source.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
        }
        writeHeaders(packetSegment, RX_PSN);
        MemorySegment.copy(source, 0, packetSegment, HEADERS, payload);
        icrc.writeIpv4(SRC_IP, DST_IP, SRC_PORT, DST_PORT, packet, 0, ibLength);
        crcView = packet.duplicate();
    }

    private void writeHeaders(MemorySegment s, int p) {
        Bth.write(s, 0, WRITE_ONLY, false, false, 0, WireHeaderBenchmark.PKEY, WireHeaderBenchmark.DEST_QP, true, p);
        Reth.write(s, Bth.LENGTH, WireHeaderBenchmark.VA, WireHeaderBenchmark.RKEY, payload);
    }

    /** Computes and stores the ICRC of the packet. */
    @Benchmark
    public ByteBuffer icrcWrite() {
        icrc.writeIpv4(SRC_IP, DST_IP, SRC_PORT, DST_PORT, packet, 0, ibLength);
        return packet;
    }

    /** Checks the packet's ICRC (as the receive path does first, with IPv4 ID 0). */
    @Benchmark
    public boolean icrcVerify() {
        return icrc.verifyIpv4(SRC_IP, DST_IP, SRC_PORT, DST_PORT, 0, packet, 0, ibLength);
    }

    /** Builds a packet: BTH + RETH with a fresh PSN, the payload copied in, the ICRC. Returns the PSN. */
    @Benchmark
    public int txPacket() {
        psn = (psn + 1) & 0xFFFFFF;
        writeHeaders(txSegment, psn);
        MemorySegment.copy(source, 0, txSegment, HEADERS, payload);
        icrc.writeIpv4(SRC_IP, DST_IP, SRC_PORT, DST_PORT, txBuffer, 0, ibLength);
        return psn;
    }

    /**
     * Takes the packet apart: ICRC verified, opcode, PSN, destination QP and RETH read, the payload copied out.
     * Returns the PSN, or -1 when the ICRC or the headers are wrong.
     */
    @Benchmark
    public int rxPacket() {
        if (!icrc.verifyIpv4(SRC_IP, DST_IP, SRC_PORT, DST_PORT, 0, packet, 0, ibLength)) {
            return -1;
        }
        MemorySegment s = packetSegment;
        Opcode op = Opcode.of(Bth.opcode(s, 0));
        int reth = op.rethOffset();
        if (Bth.destQp(s, 0) != WireHeaderBenchmark.DEST_QP || Reth.rkey(s, reth) != WireHeaderBenchmark.RKEY
                || Reth.va(s, reth) != WireHeaderBenchmark.VA || Reth.dmaLength(s, reth) != payload) {
            return -1;
        }
        MemorySegment.copy(s, op.headerLength(), received, 0, payload);
        return Bth.psn(s, 0);
    }

    /** Baseline: a plain CRC-32 of the IB packet's bytes before the ICRC, from the same direct buffer. */
    @Benchmark
    public long baselineCrc32() {
        CRC32 c = crc;
        c.reset();
        c.update(crcView.limit(ibLength - Icrc.LENGTH).position(0));
        return c.getValue();
    }
}
