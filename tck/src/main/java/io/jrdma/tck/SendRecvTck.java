package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/** SEND and RECV on RC (ibv_post_send with IBV_WR_SEND*, ibv_post_recv). */
public abstract class SendRecvTck extends Tck {

    @Test
    public void sendLandsInPostedReceive() {
        Side[] p = rcPair(8192);
        Side x = p[0];
        Side y = p[1];
        fill(x.buf.asSlice(0, 3000), 5);
        y.qp.postRecv(new RecvWr().wrId(7).sg(y.sge(4096, 4096)));
        x.qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sg(x.sge(0, 3000)).signaled(true));
        WorkCompletion s = await(x.cq, WcStatus.SUCCESS);
        assertEquals(9, s.wrId());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = await(y.cq, WcStatus.SUCCESS);
        assertEquals(7, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(3000, r.byteLen());
        assertEquals(-1, x.buf.asSlice(0, 3000).mismatch(y.buf.asSlice(4096, 3000)));
    }
}
