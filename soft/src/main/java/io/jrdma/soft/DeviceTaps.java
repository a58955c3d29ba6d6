package io.jrdma.soft;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Path;

/**
 * The taps an open device gets from its options — capture ({@code jrdma.capture} / {@code JRDMA_CAPTURE}) and
 * trace ({@code jrdma.trace} / {@code JRDMA_TRACE}) — combined with the one a program sets through
 * {@link SoftContext#tap}. With neither option set there is no option tap at all, so the engine's tap stays
 * whatever the program set (usually null) and costs nothing.
 */
final class DeviceTaps implements AutoCloseable {

    private final PcapCapture capture;
    private final PacketTap optionTap;

    private DeviceTaps(PcapCapture capture, PacketTap optionTap) {
        this.capture = capture;
        this.optionTap = optionTap;
    }

    /**
     * The option taps of device {@code name} on {@code address}; {@code capture} and {@code trace} (from the
     * device's builder) take precedence over the settings.
     *
     * @throws IOException when the capture or trace file cannot be created
     */
    static DeviceTaps open(String name, InetAddress address, Path capture, PrintStream trace) throws IOException {
        Path capturePath = capture;
        if (capturePath == null) {
            String c = Settings.get("jrdma.capture", "JRDMA_CAPTURE");
            capturePath = c == null ? null : Path.of(c.replace("%d", name));
        }
        PrintStream traceOut = trace;
        if (traceOut == null) {
            String t = Settings.get("jrdma.trace", "JRDMA_TRACE");
            traceOut = t == null ? null : PacketTrace.sink(t.replace("%d", name));
        }
        PcapCapture pcap = null;
        PacketTap tap = null;
        if (capturePath != null) {
            pcap = PcapCapture.open(capturePath,
                    Settings.positiveLong("jrdma.capture.max-packets", "JRDMA_CAPTURE_MAX_PACKETS", Long.MAX_VALUE),
                    Settings.positiveLong("jrdma.capture.max-bytes", "JRDMA_CAPTURE_MAX_BYTES",
                            PcapCapture.DEFAULT_MAX_BYTES));
            tap = pcap.tap(ipv4(address));
        }
        if (traceOut != null) {
            tap = both(tap, PacketTrace.to(traceOut, name));
        }
        return new DeviceTaps(pcap, tap);
    }

    /** The tap for the engine: the option taps and {@code user} (either may be null). */
    PacketTap with(PacketTap user) {
        return both(optionTap, user);
    }

    private static PacketTap both(PacketTap a, PacketTap b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return new Both(a, b);
    }

    static int ipv4(InetAddress address) {
        byte[] b = address.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    @Override
    public void close() {
        if (capture != null) {
            capture.close();
        }
    }

    /** Two taps in order. */
    private record Both(PacketTap first, PacketTap second) implements PacketTap {
        @Override
        public void onPacket(boolean transmit, MemorySegment packet, long offset, int length, int srcIp, int srcPort,
                int dstIp, int dstPort) {
            first.onPacket(transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort);
            second.onPacket(transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort);
        }
    }
}
