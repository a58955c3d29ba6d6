package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Segmentation by every path MTU (256..4096), the packet sequence on the wire, ACK coalescing, and IPv4 ID 0 on
 * the wire between jrdma devices (their ICRCs verify without solving for the ID).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SegmentationTest {

    @ParameterizedTest
    @EnumSource(Mtu.class)
    void shouldSegmentByThePathMtu(Mtu mtu) {
        Peer.Link link = new Peer.Link();
        link.mtu = mtu;
        try (Pair pair = new Pair("127.0.13.1", "127.0.13.2", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20,
                Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            List<String> wire = new ArrayList<>();
            List<Integer> payloads = new ArrayList<>();
            pair.a.ctx.tap((tx, p, off, len, sip, sp, dip, dp) -> {
                Opcode op = Opcode.of(Bth.opcode(p, off));
                if (tx && op != null) {
                    wire.add(op.name());
                    payloads.add(len - op.headerLength() - 4 - Bth.padCount(p, off));
                }
            });
            int size = 3 * mtu.bytes() + 5;
            for (WrOpcode op : new WrOpcode[] {WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ}) {
                wire.clear();
                payloads.clear();
                RcDataPathTest.transfer(pair, op, size, 2);
                String prefix = op == WrOpcode.SEND ? "RC_SEND_" : "RC_RDMA_WRITE_";
                if (op == WrOpcode.RDMA_READ) {
                    assertEquals(List.of("RC_RDMA_READ_REQUEST"), wire);
                } else {
                    assertEquals(List.of(prefix + "FIRST", prefix + "MIDDLE", prefix + "MIDDLE", prefix + "LAST"),
                            wire);
                    assertEquals(List.of(mtu.bytes(), mtu.bytes(), mtu.bytes(), 5), payloads);
                }
            }
            assertEquals(0, pair.a.ctx.counters().get(Counter.ICRC_ID_SOLVED)
                    + pair.b.ctx.counters().get(Counter.ICRC_ID_SOLVED), "jrdma sends IPv4 ID 0");
            assertEquals(mtu, pair.a.qp.query(new QpAttr()).pathMtu());
        }
    }

    @Test
    void shouldCoalesceAcknowledgements() {
        Peer.Link link = new Peer.Link();
        link.mtu = Mtu.MTU_256;
        try (Pair pair = new Pair("127.0.13.1", "127.0.13.2", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20,
                Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            int packets = 2000;
            pair.a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(pair.a.addr(0), 256 * packets, pair.a.mr.lkey())).remoteAddr(pair.b.addr(0))
                    .rkey(pair.b.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, pair.await(pair.a.cq).status());
            long acks = pair.b.ctx.counters().get(Counter.SENT_PKTS);
            long window = pair.a.qp instanceof SoftQp q ? q.requester.window() : 0;
            assertTrue(window >= 8, "window " + window);
            // AckReq every window/4 packets and on the last one; the responder sends at most one ACK per AckReq
            assertTrue(acks <= packets / (window / 4) + 2, acks + " ACKs for " + packets + " packets");
            assertTrue(acks >= 1);
            assertEquals(packets, pair.b.ctx.counters().get(Counter.RCVD_PKTS));
        }
    }
}
