package io.jrdma.bench;

import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Reth;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Header encode and decode with the {@code io.jrdma.wire} flyweights, in ns per packet: BTH+RETH of an RC RDMA
 * WRITE FIRST, the lone BTH of a WRITE MIDDLE, BTH+AETH of an ACK, and the decode of a WRITE FIRST's opcode, PSN,
 * destination QP and RETH. The baseline copies a prebuilt 28-byte BTH+RETH into the same buffer, the cheapest way
 * to put those bytes there at all, so {@code encode / baseline} says what field-by-field encoding costs.
 *
 * <p>Every encode takes a fresh PSN, so the JIT cannot hoist the stores out of the loop.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class WireHeaderBenchmark {

    /** Destination QP the packets carry. */
    static final int DEST_QP = 0x000123;
    /** RETH virtual address of the WRITE FIRST (plus the PSN, so it changes per encode). */
    static final long VA = 0x7F00_1234_5000L;
    /** RETH remote key. */
    static final int RKEY = 0x00ABCD01;
    /** RETH DMA length: a 64 KiB message. */
    static final int DMA_LENGTH = 65536;
    /** The default P_Key. */
    static final int PKEY = 0xFFFF;
    /** Length of BTH + RETH. */
    static final int WRITE_FIRST_HEADERS = Bth.LENGTH + Reth.LENGTH;
    /** How many headers the decoder cycles through, so that no read can be hoisted out of JMH's loop. */
    static final int DECODE_PACKETS = 8;
    /** Distance between those headers. */
    static final int DECODE_STRIDE = 32;

    private static final int WRITE_FIRST = Opcode.RC_RDMA_WRITE_FIRST.code();
    private static final int WRITE_MIDDLE = Opcode.RC_RDMA_WRITE_MIDDLE.code();
    private static final int ACK = Opcode.RC_ACKNOWLEDGE.code();
    private static final int ACK_SYNDROME = AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED);

    /** The packet buffer the encoders write into (direct, as the soft device's transmit buffer). */
    MemorySegment packet;
    /** {@link #DECODE_PACKETS} WRITE FIRST headers, PSN i at {@code i * DECODE_STRIDE}, for the decoder. */
    MemorySegment encoded;
    /** The baseline's prebuilt BTH + RETH. */
    MemorySegment template;
    /** What {@link #decodeWriteFirst} found; returned, so nothing it reads can be dropped. */
    final Decoded decoded = new Decoded();
    private int psn;
    private int next;

    /** The fields read back from a WRITE FIRST header. */
    public static final class Decoded {
        /** Opcode. */
        public Opcode opcode;
        /** PSN. */
        public int psn;
        /** Destination QP. */
        public int destQp;
        /** RETH virtual address. */
        public long va;
        /** RETH remote key. */
        public int rkey;
        /** RETH DMA length. */
        public int dmaLength;
    }

    /** Allocates the buffers and builds the template and the packet to decode. */
    @Setup
    public void setup() {
        packet = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(64));
        encoded = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(DECODE_PACKETS * DECODE_STRIDE));
        template = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(WRITE_FIRST_HEADERS));
        writeFirst(template, 0, 0);
        for (int i = 0; i < DECODE_PACKETS; i++) {
            writeFirst(encoded, (long) i * DECODE_STRIDE, i);
        }
    }

    private static void writeFirst(MemorySegment s, long off, int psn) {
        Bth.write(s, off, WRITE_FIRST, false, false, 0, PKEY, DEST_QP, false, psn);
        Reth.write(s, off + Bth.LENGTH, VA + psn, RKEY, DMA_LENGTH);
    }

    private int nextPsn() {
        psn = (psn + 1) & 0xFFFFFF;
        return psn;
    }

    /** BTH + RETH of an RC RDMA WRITE FIRST. Returns the PSN written. */
    @Benchmark
    public int encodeWriteFirst() {
        int p = nextPsn();
        writeFirst(packet, 0, p);
        return p;
    }

    /** BTH of an RC RDMA WRITE MIDDLE. Returns the PSN written. */
    @Benchmark
    public int encodeWriteMiddle() {
        int p = nextPsn();
        Bth.write(packet, 0, WRITE_MIDDLE, false, false, 0, PKEY, DEST_QP, false, p);
        return p;
    }

    /** BTH + AETH of an RC ACKNOWLEDGE (ACK, unlimited credit, MSN = PSN). Returns the PSN written. */
    @Benchmark
    public int encodeAck() {
        int p = nextPsn();
        Bth.write(packet, 0, ACK, false, false, 0, PKEY, DEST_QP, false, p);
        Aeth.write(packet, Bth.LENGTH, ACK_SYNDROME, p);
        return p;
    }

    /**
     * Opcode (through the opcode table), PSN, destination QP and the RETH fields of a WRITE FIRST: the next of the
     * {@link #DECODE_PACKETS} headers, whose PSN is its index.
     */
    @Benchmark
    public Decoded decodeWriteFirst() {
        MemorySegment s = encoded;
        Decoded d = decoded;
        int i = next;
        next = (i + 1) & (DECODE_PACKETS - 1);
        long off = (long) i * DECODE_STRIDE;
        Opcode op = Opcode.of(Bth.opcode(s, off));
        d.opcode = op;
        d.psn = Bth.psn(s, off);
        d.destQp = Bth.destQp(s, off);
        long reth = off + op.rethOffset();
        d.va = Reth.va(s, reth);
        d.rkey = Reth.rkey(s, reth);
        d.dmaLength = Reth.dmaLength(s, reth);
        return d;
    }

    /** Baseline: copies the 28 bytes of a prebuilt BTH + RETH into the packet buffer. */
    @Benchmark
    public MemorySegment baselineCopyHeader() {
        MemorySegment.copy(template, 0, packet, 0, WRITE_FIRST_HEADERS);
        return packet;
    }
}
