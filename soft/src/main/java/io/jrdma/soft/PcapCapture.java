package io.jrdma.soft;

import io.jrdma.wire.Icrc;
import io.jrdma.wire.PcapWriter;
import io.jrdma.wire.RoceFrame;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the packets of soft devices to a pcap file as Ethernet/IPv4/UDP frames that Wireshark and tshark decode
 * as RoCEv2 ({@code tshark -d udp.port==4791,infiniband}).
 *
 * <p>The socket API gives the engine the IB packet (BTH through ICRC) and the UDP addresses; the rest of the
 * frame is rebuilt as Linux sends it: IPv4 with DF, TTL 64, a correct header checksum, UDP checksum 0, UDP
 * destination port 4791, the ICRC as sent or received. The MAC addresses are made up from the IPv4 addresses
 * ({@code 02:00:a:b:c:d}, as soft devices on loopback have no MAC). The IPv4 ID is the one the ICRC covers: 0 for
 * packets jrdma sends, and for received packets the ID that makes their ICRC verify (kernel rxe sends nonzero IDs,
 * which the socket API hides).
 *
 * <p>Several devices of a process may capture into one file ({@link #open} shares it); a packet between two of
 * them is recorded once, when it is sent. The capture is bounded: it stops, and says so once on the logger, after
 * {@code maxPackets} packets or before the file would pass {@code maxBytes}. Records are buffered and flushed
 * every 200 ms of traffic, on {@link #close()} and at JVM exit. A file is truncated when a process first captures
 * into it; devices opened later in the process append.
 */
public final class PcapCapture implements AutoCloseable {

    /** Default bound of a capture file: 64 MiB. */
    public static final long DEFAULT_MAX_BYTES = 64L << 20;

    private static final int RECORD_OVERHEAD = 16;
    private static final int FILE_HEADER = 24;
    private static final long FLUSH_NS = 200_000_000L;
    private static final System.Logger LOG = System.getLogger(PcapCapture.class.getName());
    private static final Map<Path, PcapCapture> OPEN = new HashMap<>();
    private static boolean hookInstalled;

    private final Path path;
    private final PcapWriter writer;
    private final long maxPackets;
    private final long maxBytes;
    private final ByteBuffer ib = ByteBuffer.allocateDirect(65536);
    private final MemorySegment ibSegment = MemorySegment.ofBuffer(ib);
    private final ByteBuffer frame = ByteBuffer.allocateDirect(65536 + RoceFrame.IPV4_OVERHEAD);
    private final Icrc icrc = new Icrc();
    private final long epochOffsetNs = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    private int[] localIps = new int[0];
    private long packets;
    private long bytes = FILE_HEADER;
    private long lastFlushNs = System.nanoTime();
    private boolean full;

    private PcapCapture(Path path, long maxPackets, long maxBytes) throws IOException {
        this.path = path;
        this.maxPackets = maxPackets;
        this.maxBytes = maxBytes;
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.writer = PcapWriter.create(path);
    }

    /**
     * Opens (creating or truncating) the capture file {@code file}, or joins the capture already writing it in
     * this process (then the bounds of the first open stay).
     *
     * @param maxPackets stop after this many packets ({@link Long#MAX_VALUE}: no bound)
     * @param maxBytes   stop before the file grows past this many bytes
     */
    public static PcapCapture open(Path file, long maxPackets, long maxBytes) throws IOException {
        if (maxPackets <= 0 || maxBytes <= FILE_HEADER) {
            throw new IllegalArgumentException("capture bounds must be positive: " + maxPackets + " packets, "
                    + maxBytes + " bytes");
        }
        Path key = file.toAbsolutePath().normalize();
        synchronized (OPEN) {
            PcapCapture c = OPEN.get(key);
            if (c == null) {
                c = new PcapCapture(key, maxPackets, maxBytes);
                OPEN.put(key, c);
                if (!hookInstalled) {
                    hookInstalled = true;
                    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(PcapCapture::flushAll));
                }
            }
            return c;
        }
    }

    /**
     * A tap that records the packets of the device on {@code localIp} (IPv4, as an int) into this capture. A
     * packet it receives from another device of the same capture is skipped: that device recorded it when sending.
     */
    public PacketTap tap(int localIp) {
        synchronized (this) {
            if (Arrays.stream(localIps).noneMatch(ip -> ip == localIp)) {
                localIps = Arrays.copyOf(localIps, localIps.length + 1);
                localIps[localIps.length - 1] = localIp;
            }
        }
        return (transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort) -> {
            if (transmit || !isLocal(srcIp)) {
                record(packet, offset, length, srcIp, srcPort, dstIp, dstPort);
            }
        };
    }

    private synchronized boolean isLocal(int ip) {
        for (int l : localIps) {
            if (l == ip) {
                return true;
            }
        }
        return false;
    }

    /** Records one IB packet (BTH through ICRC) sent from {@code srcIp:srcPort} to {@code dstIp:dstPort}. */
    public synchronized void record(MemorySegment packet, long offset, int length, int srcIp, int srcPort, int dstIp,
            int dstPort) {
        if (full || length <= 0 || length > ib.capacity()) {
            return;
        }
        long recordBytes = RECORD_OVERHEAD + RoceFrame.IPV4_OVERHEAD + (long) length;
        if (packets >= maxPackets || bytes + recordBytes > maxBytes) {
            full = true;
            LOG.log(System.Logger.Level.WARNING, "jrdma: capture " + path + " stopped at its bound after "
                    + packets + " packets (" + bytes + " bytes)");
            return;
        }
        MemorySegment.copy(packet, offset, ibSegment, 0, length);
        int id = ipId(srcIp, srcPort, dstIp, dstPort, length);
        long now = System.nanoTime();
        int n = RoceFrame.buildIpv4(frame, 0, mac(srcIp), mac(dstIp), srcIp, dstIp, id, srcPort, dstPort, ib, 0,
                length);
        try {
            writer.write(epochOffsetNs + now, frame, 0, n);
            packets++;
            bytes += recordBytes;
            if (now - lastFlushNs > FLUSH_NS) {
                lastFlushNs = now;
                writer.flush();
            }
        } catch (IOException e) {
            full = true;
            LOG.log(System.Logger.Level.WARNING, "jrdma: capture " + path + " failed: " + e);
        }
    }

    /** The IPv4 ID under which the ICRC verifies: 0 (what jrdma and Linux DF sockets send) or the solved one. */
    private int ipId(int srcIp, int srcPort, int dstIp, int dstPort, int length) {
        if (length < Icrc.MIN_IB_LENGTH
                || icrc.verifyIpv4(srcIp, dstIp, srcPort, dstPort, 0, ib, 0, length)) {
            return 0;
        }
        int id = icrc.solveIpv4Id(srcIp, dstIp, srcPort, dstPort, ib, 0, length);
        return Math.max(id, 0);
    }

    private static long mac(int ip) {
        return 0x02L << 40 | (ip & 0xFFFF_FFFFL);
    }

    /** The capture file. */
    public Path path() {
        return path;
    }

    /** Packets recorded so far. */
    public synchronized long packets() {
        return packets;
    }

    /** True once a bound stopped the capture. */
    public synchronized boolean full() {
        return full;
    }

    /** Writes the buffered records to the file. */
    public synchronized void flush() {
        try {
            writer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("capture " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Leaves the capture; the last user flushes it. The file stays open for the rest of the process, so that a
     * device opened later in the same process appends to it rather than truncating what is there.
     */
    @Override
    public void close() {
        try {
            flush();
        } catch (UncheckedIOException e) {
            LOG.log(System.Logger.Level.WARNING, "jrdma: " + e.getMessage());
        }
    }

    private static void flushAll() {
        List<PcapCapture> all;
        synchronized (OPEN) {
            all = new ArrayList<>(OPEN.values());
        }
        for (PcapCapture c : all) {
            try {
                c.flush();
            } catch (UncheckedIOException e) {
                // exiting: nothing more to do
            }
        }
    }
}
