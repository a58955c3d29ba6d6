package io.jrdma.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reader of classic pcap files (the libpcap format: 24-byte global header, 16-byte record headers), either byte
 * order, microsecond (0xA1B2C3D4) or nanosecond (0xA1B23C4D) timestamps. pcapng is not supported. A truncated last
 * record ends the stream and sets {@link #truncated()}.
 */
public final class PcapReader {
    /** Magic of microsecond-resolution pcap files. */
    public static final int MAGIC_MICROS = 0xA1B2C3D4;
    /** Magic of nanosecond-resolution pcap files. */
    public static final int MAGIC_NANOS = 0xA1B23C4D;
    /** Link type of Ethernet frames (LINKTYPE_ETHERNET). */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Length of the global header. */
    public static final int GLOBAL_HEADER_LENGTH = 24;
    /** Length of a record header. */
    public static final int RECORD_HEADER_LENGTH = 16;

    /**
     * One captured frame.
     *
     * @param timeNs         capture time, nanoseconds since the Unix epoch
     * @param data           the captured bytes (possibly fewer than {@code originalLength})
     * @param originalLength length of the frame on the wire
     */
    public record Record(long timeNs, byte[] data, int originalLength) {
        /** True when the capture holds the whole frame. */
        public boolean complete() {
            return data.length == originalLength;
        }
    }

    private final ByteBuffer buf;
    private final boolean nanos;
    private final int snapLength;
    private final int linkType;
    private boolean truncated;

    private PcapReader(byte[] bytes) {
        if (bytes.length < GLOBAL_HEADER_LENGTH) {
            throw new IllegalArgumentException("pcap: " + bytes.length + " bytes is shorter than the global header");
        }
        buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int magic = buf.getInt(0);
        if (magic == MAGIC_MICROS || magic == MAGIC_NANOS) {
            nanos = magic == MAGIC_NANOS;
        } else if (Integer.reverseBytes(magic) == MAGIC_MICROS || Integer.reverseBytes(magic) == MAGIC_NANOS) {
            buf.order(ByteOrder.BIG_ENDIAN);
            nanos = Integer.reverseBytes(magic) == MAGIC_NANOS;
        } else {
            throw new IllegalArgumentException(
                    String.format("pcap: bad magic 0x%08x (pcapng is not supported)", magic));
        }
        snapLength = buf.getInt(16);
        linkType = buf.getInt(20);
        buf.position(GLOBAL_HEADER_LENGTH);
    }

    /**
     * Reads pcap data held in memory.
     *
     * @throws IllegalArgumentException when the global header is missing or its magic unknown
     */
    public static PcapReader of(byte[] bytes) {
        return new PcapReader(bytes);
    }

    /** Reads a pcap file fully into memory. */
    public static PcapReader open(Path file) throws IOException {
        return new PcapReader(Files.readAllBytes(file));
    }

    /** Reads every record of a pcap file. */
    public static List<Record> readAll(Path file) throws IOException {
        return open(file).readAll();
    }

    /** Link type from the global header (1 = Ethernet). */
    public int linkType() {
        return linkType;
    }

    /** Snapshot length from the global header. */
    public int snapLength() {
        return snapLength;
    }

    /** True for nanosecond-resolution timestamps. */
    public boolean nanosecond() {
        return nanos;
    }

    /** True when the data ended inside a record. */
    public boolean truncated() {
        return truncated;
    }

    /** The next record, or null at the end of the data. */
    public Record next() {
        if (buf.remaining() < RECORD_HEADER_LENGTH) {
            truncated |= buf.hasRemaining();
            buf.position(buf.limit());
            return null;
        }
        long seconds = Integer.toUnsignedLong(buf.getInt());
        long fraction = Integer.toUnsignedLong(buf.getInt());
        int included = buf.getInt();
        int original = buf.getInt();
        if (included < 0 || included > buf.remaining()) {
            truncated = true;
            buf.position(buf.limit());
            return null;
        }
        byte[] data = new byte[included];
        buf.get(data);
        long timeNs = seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1_000L);
        return new Record(timeNs, data, original);
    }

    /** Every remaining record, in file order. */
    public List<Record> readAll() {
        List<Record> out = new ArrayList<>();
        for (Record r = next(); r != null; r = next()) {
            out.add(r);
        }
        return out;
    }
}
