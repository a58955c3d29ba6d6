package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.wire.Opcode;
import io.jrdma.wire.PcapReader;
import io.jrdma.wire.RoceFrame;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code jrdma capture -- COMMAND} and {@code jrdma trace -- COMMAND} around the demo. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CaptureCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void shouldCaptureTheDemoIntoAPcap() throws IOException {
        Path pcap = dir.resolve("demo.pcap");
        assertEquals(0, run("capture", "-w", pcap.toString(), "--", "demo", "-a", "127.0.37.11", "-b",
                "127.0.37.12"), err.toString());
        List<PcapReader.Record> records = PcapReader.readAll(pcap);
        assertTrue(err.toString().contains("jrdma capture: " + records.size() + " packets written to " + pcap),
                err.toString());
        RoceFrame f = new RoceFrame();
        Set<Opcode> seen = EnumSet.noneOf(Opcode.class);
        for (PcapReader.Record r : records) {
            ByteBuffer b = ByteBuffer.wrap(r.data());
            assertTrue(f.parse(b, 0, r.data().length) && f.isRoce());
            seen.add(Opcode.of(r.data()[RoceFrame.IPV4_OVERHEAD] & 0xFF));
        }
        // the demo: SEND of 3 packets + ACK, SEND_WITH_IMM + ACK, WRITE of 3 + ACK, READ + 3 responses
        assertEquals(14, records.size());
        assertEquals(EnumSet.of(Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST,
                Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE,
                Opcode.RC_RDMA_WRITE_LAST, Opcode.RC_RDMA_READ_REQUEST, Opcode.RC_RDMA_READ_RESPONSE_FIRST,
                Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.RC_RDMA_READ_RESPONSE_LAST, Opcode.RC_ACKNOWLEDGE), seen);
        assertEquals(null, System.getProperty("jrdma.capture"), "the option is restored");
    }

    @Test
    void shouldBoundTheCapture() throws IOException {
        Path pcap = dir.resolve("five.pcap");
        assertEquals(0, run("capture", "-w", pcap.toString(), "-c", "5", "demo", "-a", "127.0.37.13", "-b",
                "127.0.37.14"), err.toString());
        assertEquals(5, PcapReader.readAll(pcap).size());
        assertTrue(err.toString().contains("5 packets written to " + pcap + " (stopped at the bound)"),
                err.toString());
    }

    @Test
    void shouldTraceTheDemo() throws IOException {
        Path trace = dir.resolve("trace.txt");
        assertEquals(0, run("trace", "-o", trace.toString(), "demo", "-a", "127.0.37.15", "-b", "127.0.37.16"),
                err.toString());
        List<String> lines = Files.readAllLines(trace);
        assertEquals(28, lines.size(), "14 packets, each seen by both devices:\n" + String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> l.contains(" demo-a tx 127.0.37.15:")
                && l.contains("> 127.0.37.16:4791 size=1040 RC_SEND_FIRST")), String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> l.contains(" demo-a rx 127.0.37.16:")
                && l.contains("RC_ACKNOWLEDGE") && l.contains("aeth[ACK")), String.join("\n", lines));
    }

    @Test
    void shouldRefuseToWrapItselfOrNothingBadFlow() {
        assertEquals(2, run("capture", "-w", dir.resolve("x.pcap").toString()));
        assertEquals(2, run("capture", "-w", dir.resolve("x.pcap").toString(), "--", "trace", "demo"));
        assertEquals(2, run("trace"));
    }

    private int run(String... args) {
        return Jrdma.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(args);
    }
}
