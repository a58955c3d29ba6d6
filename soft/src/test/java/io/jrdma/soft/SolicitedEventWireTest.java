package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.RecvWr;
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

/**
 * The BTH solicited event bit of an RC requester, on the wire, per opcode: as kernel rxe (rxe_req.c init_req_packet:
 * {@code solicited = (ibwr->send_flags & IB_SEND_SOLICITED) && (pkt->mask & RXE_END_MASK) && ((pkt->mask &
 * RXE_SEND_MASK) || (pkt->mask & (RXE_WRITE_MASK | RXE_IMMDT_MASK)) == (RXE_WRITE_MASK | RXE_IMMDT_MASK))}) it is
 * set only on the last (or only) packet of a SEND and of an RDMA WRITE with immediate; a plain RDMA WRITE and an
 * RDMA READ request never carry it, even when their WR asks for a solicited event (issue 18).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SolicitedEventWireTest {

    @Test
    void shouldSetTheSolicitedBitOnlyOnTheLastPacketOfSendsAndWritesWithImmediate() {
        List<String> sent = new ArrayList<>();
        try (Pair p = Pair.invoker("127.0.118.1", "127.0.118.2", 1 << 16)) {
            p.a.ctx.tap((transmit, pkt, off, len, srcIp, srcPort, dstIp, dstPort) -> {
                if (transmit) {
                    sent.add(Opcode.of(Bth.opcode(pkt, off)) + " se=" + (Bth.solicited(pkt, off) ? 1 : 0));
                }
            });
            for (int i = 0; i < 4; i++) { // two SENDs, a SEND and a WRITE with immediate
                p.b.qp.postRecv(new RecvWr().wrId(100 + i).sg(new Sge(p.b.addr(32768), 4096, p.b.mr.lkey())));
            }
            WrOpcode[] ops = {WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ,
                WrOpcode.SEND_WITH_IMM};
            long id = 1;
            for (WrOpcode op : ops) {
                SendWr wr = new SendWr().wrId(id++).opcode(op).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                        .sg(new Sge(p.a.addr(0), op == WrOpcode.SEND_WITH_IMM ? 100 : 2500, p.a.mr.lkey()));
                if (op != WrOpcode.SEND && op != WrOpcode.SEND_WITH_IMM) {
                    wr.remoteAddr(p.b.addr(8192)).rkey(p.b.mr.rkey());
                }
                p.a.qp.postSend(wr);
                assertEquals(WcStatus.SUCCESS, p.await(p.a.cq).status(), op.toString());
            }
            // one SEND not asking for a solicited event: no bit anywhere
            p.a.qp.postSend(new SendWr().wrId(id).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(p.a.addr(0), 2500, p.a.mr.lkey())));
            assertEquals(WcStatus.SUCCESS, p.await(p.a.cq).status());
            List<String> expected = List.of(
                    "RC_SEND_FIRST se=0", "RC_SEND_MIDDLE se=0", "RC_SEND_LAST se=1",
                    "RC_RDMA_WRITE_FIRST se=0", "RC_RDMA_WRITE_MIDDLE se=0", "RC_RDMA_WRITE_LAST se=0",
                    "RC_RDMA_WRITE_FIRST se=0", "RC_RDMA_WRITE_MIDDLE se=0",
                    "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE se=1",
                    "RC_RDMA_READ_REQUEST se=0",
                    "RC_SEND_ONLY_WITH_IMMEDIATE se=1",
                    "RC_SEND_FIRST se=0", "RC_SEND_MIDDLE se=0", "RC_SEND_LAST se=0");
            assertEquals(expected, sent, "requester packets, in order");
        }
    }
}
