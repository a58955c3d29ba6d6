package io.jrdma.soft;

import io.jrdma.wire.PacketFormatter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;

/**
 * A human-readable log of every packet a soft device sends and receives, one line a packet, for learning and
 * debugging:
 * <pre>
 * 12:00:01.123456 rxe0 tx 127.0.0.1:49153 &gt; 127.0.0.2:4791 size=1072 RC_SEND_FIRST qp=0x000011 psn=100 ack=0 se=0 pad=0 len=1024 icrc=0x...
 * 12:00:01.123490 rxe0 rx 127.0.0.2:49153 &gt; 127.0.0.1:4791 size=20 RC_ACKNOWLEDGE qp=0x000011 psn=102 ack=0 se=0 pad=0 aeth[ACK credit=31 msn=1] icrc=0x...
 * </pre>
 * Time, device, direction, UDP addresses, the IB packet's size (BTH through ICRC), then the
 * {@link PacketFormatter} summary: opcode, destination QP, PSN, AckReq, payload length and the extension headers
 * (RETH with its DMA length, AETH with its syndrome, immediate data; the CM message of a MAD sent to QP 1).
 * Received packets are traced before any check, so dropped ones appear too.
 *
 * <p>Enabled per device by {@code jrdma.trace} / {@code JRDMA_TRACE} ({@code stderr}, {@code stdout} or a file
 * path); off by default, when the engine has no tap and pays nothing. Tracing allocates and formats per packet:
 * it is for looking at traffic, not for measuring it.
 */
public final class PacketTrace {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");
    private static final Map<Path, PrintStream> FILES = new HashMap<>();

    private PacketTrace() {
    }

    /** A tap that prints the packets of device {@code device} to {@code out}, one line each. */
    public static PacketTap to(PrintStream out, String device) {
        return (transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort) -> {
            String line = line(LocalTime.now(), device, transmit, packet, offset, length, srcIp, srcPort, dstIp,
                    dstPort);
            synchronized (out) {
                out.println(line);
            }
        };
    }

    /** One trace line (without the line end). */
    public static String line(LocalTime time, String device, boolean transmit, MemorySegment packet, long offset,
            int length, int srcIp, int srcPort, int dstIp, int dstPort) {
        StringBuilder sb = new StringBuilder(192);
        sb.append(TIME.format(time)).append(' ').append(device).append(transmit ? " tx " : " rx ");
        ip(sb, srcIp).append(':').append(srcPort).append(" > ");
        ip(sb, dstIp).append(':').append(dstPort).append(" size=").append(length).append(' ');
        PacketFormatter.describe(packet, offset, length, sb);
        return sb.toString();
    }

    /**
     * The stream named by a {@code jrdma.trace} value: {@code stderr}, {@code stdout}, or a file, which is created
     * (or truncated) on first use in the process and shared by every device tracing to it.
     */
    static PrintStream sink(String target) throws IOException {
        if (target.equalsIgnoreCase("stderr")) {
            return System.err;
        }
        if (target.equalsIgnoreCase("stdout")) {
            return System.out;
        }
        Path p = Path.of(target).toAbsolutePath().normalize();
        synchronized (FILES) {
            PrintStream s = FILES.get(p);
            if (s == null) {
                Path parent = p.getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                OutputStream os = Files.newOutputStream(p, StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
                s = new PrintStream(os, true, StandardCharsets.UTF_8); // flushed per line: survives a kill
                FILES.put(p, s);
            }
            return s;
        }
    }

    private static StringBuilder ip(StringBuilder sb, int ip) {
        return sb.append(ip >>> 24).append('.').append((ip >>> 16) & 0xFF).append('.').append((ip >>> 8) & 0xFF)
                .append('.').append(ip & 0xFF);
    }
}
