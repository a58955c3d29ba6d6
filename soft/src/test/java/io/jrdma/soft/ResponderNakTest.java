package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.Bth;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NAK code the responder puts on the wire for each refused request is the one kernel rxe sends: an RDMA
 * operation the QP's access flags do not enable, or a READ at a QP without responder resources (check_op_valid,
 * check_resource), is an Invalid Request; a bad rkey is a Remote Access Error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResponderNakTest {

    /** Connects a pair, taps what b sends, posts {@code wr} at a; returns the NAK codes b sent. */
    private static List<NakCode> naksFor(Peer.Link link, SendWr wr, WcStatus expected) {
        try (Pair pair = new Pair("127.0.21.1", "127.0.21.2", Threading.INVOKER, NanoClock.SYSTEM, 1 << 16,
                Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            List<NakCode> naks = new CopyOnWriteArrayList<>();
            pair.b.ctx.tap((tx, p, off, len, sip, sp, dip, dp) -> {
                Opcode op = Opcode.of(Bth.opcode(p, off));
                if (tx && op == Opcode.RC_ACKNOWLEDGE) {
                    int syndrome = Aeth.syndrome(p, off + op.aethOffset());
                    if (AethSyndrome.isNak(syndrome)) {
                        naks.add(AethSyndrome.nakCode(syndrome));
                    }
                }
            });
            pair.b.qp.postRecv(new RecvWr().wrId(9).sg(new Sge(pair.b.addr(0), 64, pair.b.mr.lkey())));
            pair.a.qp.postSend(wr.wrId(1).sendFlags(SendFlags.SIGNALED).sg(new Sge(pair.a.addr(0), 64,
                    pair.a.mr.lkey())));
            assertEquals(expected, pair.await(pair.a.cq).status());
            assertEquals(QpState.ERR, pair.b.qp.state());
            assertEquals(WcStatus.WR_FLUSH_ERR, pair.await(pair.b.cq).status(), "no receive was consumed");
            return naks;
        }
    }

    @Test
    void writeToAQpWithoutRemoteWriteIsNakedInvalidRequest() {
        Peer.Link link = new Peer.Link();
        link.qpAccess = Access.REMOTE_READ;
        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE_WITH_IMM).remote(0, 0); // the rkey is never looked at
        assertEquals(List.of(NakCode.INVALID_REQUEST), naksFor(link, wr, WcStatus.REM_INV_REQ_ERR));
    }

    @Test
    void readFromAQpWithoutRemoteReadIsNakedInvalidRequest() {
        Peer.Link link = new Peer.Link();
        link.qpAccess = Access.REMOTE_WRITE;
        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_READ).remote(0, 0);
        assertEquals(List.of(NakCode.INVALID_REQUEST), naksFor(link, wr, WcStatus.REM_INV_REQ_ERR));
    }

    @Test
    void readWithoutResponderResourcesIsNakedInvalidRequest() {
        Peer.Link link = new Peer.Link();
        link.maxRd = 0;
        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_READ).remote(0, 0);
        assertEquals(List.of(NakCode.INVALID_REQUEST), naksFor(link, wr, WcStatus.REM_INV_REQ_ERR));
    }

    @Test
    void writeWithABadRkeyIsNakedRemoteAccessError() {
        SendWr wr = new SendWr().opcode(WrOpcode.RDMA_WRITE).remote(0x1000, 0x5500);
        assertEquals(List.of(NakCode.REMOTE_ACCESS_ERROR), naksFor(new Peer.Link(), wr, WcStatus.REM_ACCESS_ERR));
    }
}
