package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The trace option: one line per packet, each device's view; no tap at all when it is off. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PacketTraceTest {

    private static final Pattern LINE = Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{6} t-127\\.0\\.38\\.[12] (tx|rx) "
            + "127\\.0\\.38\\.[12]:\\d+ > 127\\.0\\.38\\.[12]:4791 size=\\d+ RC_\\w+ qp=0x[0-9a-f]{6} psn=\\d+ ack=[01] "
            + "se=[01] pad=[0-3].* icrc=0x[0-9a-f]{8}");

    @TempDir
    Path dir;

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.trace");
    }

    @Test
    void shouldTraceEveryPacketOfEveryDeviceToTheFile() throws IOException {
        Path file = dir.resolve("trace.txt");
        System.setProperty("jrdma.trace", file.toString());
        long packets;
        try (Pair p = Pair.invoker("127.0.38.1", "127.0.38.2", 8192)) {
            p.b.qp.postRecv(new RecvWr().wrId(1).sg(new Sge(p.b.addr(0), 4096, p.b.mr.lkey())));
            p.a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(p.a.addr(0), 100, p.a.mr.lkey())));
            assertEquals(WcStatus.SUCCESS, p.await(p.a.cq).status());
            p.a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(p.a.addr(0), 2000, p.a.mr.lkey())).remoteAddr(p.b.addr(0)).rkey(p.b.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, p.await(p.a.cq).status());
            packets = p.a.ctx.counters().get(Counter.SENT_PKTS) + p.b.ctx.counters().get(Counter.SENT_PKTS);
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(2 * packets, lines.size(), "each packet traced by its sender and its receiver:\n" + lines);
        for (String line : lines) {
            assertTrue(LINE.matcher(line).matches(), line);
        }
        assertContains(lines, "t-127.0.38.1 tx 127.0.38.1:", "RC_SEND_ONLY", "ack=1", "len=100");
        assertContains(lines, "t-127.0.38.2 rx 127.0.38.1:", "RC_SEND_ONLY", "size=" + (12 + 100 + 4));
        assertContains(lines, "t-127.0.38.2 tx", "RC_ACKNOWLEDGE", "aeth[ACK credit=", "size=20");
        assertContains(lines, "t-127.0.38.1 tx", "RC_RDMA_READ_REQUEST", "reth[va=0x", "len=2000]");
        assertContains(lines, "t-127.0.38.1 rx", "RC_RDMA_READ_RESPONSE_FIRST", "aeth[ACK", "len=1024");
        assertContains(lines, "t-127.0.38.1 rx", "RC_RDMA_READ_RESPONSE_LAST", "len=976");
    }

    @Test
    void shouldInstallNoTapWhenOffAndKeepTheOptionTapUnderAProgramTap() {
        try (Pair p = Pair.invoker("127.0.38.3", "127.0.38.4", 4096)) {
            assertNull(p.a.ctx.currentTap(), "tracing and capture off: the engine has no tap");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        SoftDevice d = SoftDevice.builder().name("traced").address("127.0.38.5").threading(Threading.INVOKER)
                .trace(out).build();
        try (SoftContext ctx = d.open()) {
            PacketTap mine = (transmit, packet, offset, length, srcIp, srcPort, dstIp, dstPort) -> { };
            ctx.tap(mine);
            assertTrue(ctx.currentTap() != null && ctx.currentTap() != mine, "the program's tap joins the trace tap");
            ctx.tap(null);
            assertTrue(ctx.currentTap() != null, "clearing the program's tap keeps tracing");
        }
    }

    private static void assertContains(List<String> lines, String... parts) {
        for (String line : lines) {
            boolean all = true;
            for (String part : parts) {
                all &= line.contains(part);
            }
            if (all) {
                return;
            }
        }
        throw new AssertionError("no line with " + List.of(parts) + " in\n" + String.join("\n", lines));
    }
}
