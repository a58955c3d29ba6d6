package io.jrdma.soft.cm;

import static io.jrdma.soft.cm.CmFixture.expectAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.cm.CmEventType;
import io.jrdma.cm.ConnParam;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection made and ended by the soft CM, captured by the client's device, decodes in Wireshark's dissector as
 * the kernel's does in rping.pcap: ConnectRequest, ConnectReply, ReadyToUse, DisconnectRequest, DisconnectReply,
 * each a UD SEND to QP 1, nothing malformed. Skipped without tshark.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CmCaptureTest {

    private static final Path TSHARK = Path.of("/usr/bin/tshark");

    @Test
    void tsharkShowsTheCmExchange(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("cm.pcap");
        try (CmFixture f = new CmFixture("127.0.209", pcap)) {
            CmFixture.Pair p = f.connect(7174, new ConnParam().responderResources(1).initiatorDepth(1));
            p.active().disconnect();
            expectAck(f.server, CmEventType.DISCONNECTED);
            p.passive().disconnect();
            expectAck(f.client, CmEventType.DISCONNECTED);
            p.close();
        }
        assumeTrue(Files.isExecutable(TSHARK), "tshark is not installed: decode not checked");
        List<String> lines = tshark(pcap, "infiniband.bth.destqp", "infiniband.deth.srcqp", "_ws.col.Info",
                "_ws.malformed");
        assertEquals(List.of(
                "0x000001|0x00000001|CM: ConnectRequest|",
                "0x000001|0x00000001|CM: ConnectReply|",
                "0x000001|0x00000001|CM: ReadyToUse|",
                "0x000001|0x00000001|CM: DisconnectRequest|",
                "0x000001|0x00000001|CM: DisconnectReply|"), lines);
    }

    private static List<String> tshark(Path pcap, String... fields) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of(TSHARK.toString(), "-n", "-r", pcap.toString(), "-d",
                "udp.port==4791,infiniband", "-Y", "infiniband.bth.destqp == 1", "-T", "fields", "-E",
                "separator=|"));
        for (String field : fields) {
            cmd.add("-e");
            cmd.add(field);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("HOME", pcap.getParent().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("tshark did not finish");
        }
        return out.lines().map(String::strip).toList();
    }
}
