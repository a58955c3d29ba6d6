package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A MAD as captured by the device decodes in tshark as kernel rxe's CM MADs do in rxe-lab's rping.pcap: a UD SEND
 * ONLY to QP 1 with P_Key 0xFFFF, AckReq set, PSN 0 then 1, DETH Q_Key 0x80010000 and source QP 1, from UDP source
 * port 55410 (rxe's for QP 1), IPv4 DF with TTL 64 and DSCP/ECN 0; and its MAD header (base version 1, class 7).
 * Skipped without tshark.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MadCaptureTest {

    @TempDir
    Path dir;

    @Test
    void shouldDecodeAsKernelRxeCmMads() throws IOException {
        Path pcap = dir.resolve("mad.pcap");
        try (MadPeer b = new MadPeer("127.0.166.2", Threading.ADAPTIVE)) {
            try (MadPeer a = new MadPeer("127.0.166.1", Threading.ADAPTIVE, pcap);
                    MadPort pa = MadPort.open(a.ctx, 1); MadPort pb = MadPort.open(b.ctx, 1)) {
                for (int i = 0; i < 2; i++) {
                    pa.send(a.mad(i), b.gsi());
                    assertNotNull(pb.receive(b.in, Duration.ofSeconds(10)));
                }
            }
        }
        assumeTrue(CaptureTest.Tshark.available(), "tshark is not installed: decode not checked");
        List<String> fields = List.of("ip.src", "ip.dst", "ip.flags.df", "ip.ttl", "ip.dsfield", "udp.srcport",
                "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.p_key", "infiniband.bth.destqp",
                "infiniband.bth.a", "infiniband.bth.psn", "infiniband.deth.q_key", "infiniband.deth.srcqp",
                "infiniband.mad.baseversion", "infiniband.mad.mgmtclass", "_ws.malformed", "_ws.expert.message");
        List<String> lines = tshark(pcap, fields);
        assertEquals(2, lines.size(), String.join("\n", lines));
        for (int i = 0; i < 2; i++) {
            String want = String.join("|", "127.0.166.1", "127.0.166.2", "1", "64", "0x00", "55410", "4791",
                    "100", "65535", "0x000001", "1", Integer.toString(i), "0x0000000080010000", "0x00000001",
                    "0x01", "0x07", "", "");
            assertEquals(want, lines.get(i), String.join("|", fields));
        }
        String verbose = String.join("\n", tshark(pcap, null));
        assertTrue(verbose.contains("Unreliable Datagram (UD) - SEND only (100)"), verbose);
        assertTrue(verbose.contains("Queue Key: 0x0000000080010000"), verbose);
        assertTrue(verbose.contains("Source Queue Pair: 0x00000001"), verbose);
        assertTrue(verbose.contains("Destination Queue Pair: 0x000001"), verbose);
    }

    /** tshark's decode of {@code pcap}: the {@code fields} of each frame, or the verbose tree (null fields). */
    private static List<String> tshark(Path pcap, List<String> fields) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(CaptureTest.Tshark.BINARY.toString(), "-n", "-r", pcap.toString(),
                "-d", "udp.port==4791,infiniband"));
        if (fields == null) {
            cmd.add("-V");
        } else {
            cmd.addAll(List.of("-T", "fields", "-E", "separator=|"));
            for (String f : fields) {
                cmd.addAll(List.of("-e", f));
            }
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("HOME", pcap.getParent().toString()); // no user profile, no writes to ~
        Process proc = pb.start();
        try {
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!proc.waitFor(20, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                throw new IOException("tshark did not finish");
            }
            return out.lines().toList();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
