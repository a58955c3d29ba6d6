package io.jrdma.wire;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writer of classic pcap files: little-endian, magic 0xA1B2C3D4 (microsecond timestamps), link type 1 (Ethernet),
 * as Wireshark and tshark read them. Records are staged in an internal buffer; {@link #flush()} pushes them to the
 * stream. For use from one thread; no allocation per record.
 */
public final class PcapWriter implements Closeable {
    /** Default snapshot length: whole frames up to 64 KiB. */
    public static final int DEFAULT_SNAP_LENGTH = 65_535;

    private static final int BUFFER_SIZE = 1 << 17;

    private final OutputStream out;
    private final int snapLength;
    private final byte[] buf = new byte[BUFFER_SIZE];
    private int used;
    private boolean closed;

    /**
     * Starts a pcap stream and writes its global header (to the internal buffer).
     *
     * @param out        destination; closed by {@link #close()}
     * @param snapLength longest frame prefix kept per record (1..{@value #DEFAULT_SNAP_LENGTH})
     */
    public PcapWriter(OutputStream out, int snapLength) {
        if (snapLength <= 0 || snapLength > DEFAULT_SNAP_LENGTH) {
            throw new IllegalArgumentException("snap length " + snapLength + " outside 1.." + DEFAULT_SNAP_LENGTH);
        }
        this.out = out;
        this.snapLength = snapLength;
        putInt(PcapReader.MAGIC_MICROS);
        putShort(2);                                   // version 2.4
        putShort(4);
        putInt(0);                                     // thiszone
        putInt(0);                                     // sigfigs
        putInt(snapLength);
        putInt(PcapReader.LINKTYPE_ETHERNET);
    }

    /** Starts a pcap stream with {@link #DEFAULT_SNAP_LENGTH}. */
    public PcapWriter(OutputStream out) {
        this(out, DEFAULT_SNAP_LENGTH);
    }

    /** Creates (or truncates) a pcap file. */
    public static PcapWriter create(Path file) throws IOException {
        return new PcapWriter(Files.newOutputStream(file));
    }

    /**
     * Appends one frame; the buffer's position and limit are not changed.
     *
     * @param timeNs capture time, nanoseconds since the Unix epoch (stored with microsecond resolution)
     * @param frame  buffer holding the Ethernet frame
     * @param off    offset of the frame in {@code frame}
     * @param len    frame length; bytes beyond the snap length are not stored
     */
    public void write(long timeNs, ByteBuffer frame, int off, int len) throws IOException {
        int included = beginRecord(timeNs, len);
        frame.get(off, buf, used, included);
        used += included;
    }

    /** Appends one frame held in an array. */
    public void write(long timeNs, byte[] frame, int off, int len) throws IOException {
        int included = beginRecord(timeNs, len);
        System.arraycopy(frame, off, buf, used, included);
        used += included;
    }

    /** Writes the staged records to the stream and flushes it. */
    public void flush() throws IOException {
        drain();
        out.flush();
    }

    /** Flushes and closes the stream. */
    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            try {
                flush();
            } finally {
                out.close();
            }
        }
    }

    private int beginRecord(long timeNs, int len) throws IOException {
        if (closed) {
            throw new IOException("pcap writer closed");
        }
        if (len < 0) {
            throw new IllegalArgumentException("negative frame length " + len);
        }
        int included = Math.min(len, snapLength);
        if (used + PcapReader.RECORD_HEADER_LENGTH + included > buf.length) {
            drain();
        }
        long micros = Math.floorDiv(timeNs, 1_000L);
        putInt((int) Math.floorDiv(micros, 1_000_000L));
        putInt((int) Math.floorMod(micros, 1_000_000L));
        putInt(included);
        putInt(len);
        return included;
    }

    private void drain() throws IOException {
        if (used > 0) {
            out.write(buf, 0, used);
            used = 0;
        }
    }

    private void putInt(int v) {
        buf[used] = (byte) v;
        buf[used + 1] = (byte) (v >>> 8);
        buf[used + 2] = (byte) (v >>> 16);
        buf[used + 3] = (byte) (v >>> 24);
        used += 4;
    }

    private void putShort(int v) {
        buf[used] = (byte) v;
        buf[used + 1] = (byte) (v >>> 8);
        used += 2;
    }
}
