package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * In invoker mode a receiver holds the ACK of a SEND it just completed for a moment, so that the application's answer
 * carries it. A program that polls that last receive and then destroys its QP (rc_pingpong's last iteration) sends no
 * answer and drives the device no more: the held ACK must go out when the QP is destroyed, or the sender's last
 * SEND fails with RETRY_EXC_ERR although it was received (found as `jrdma rc_pingpong` with invoker threading:
 * the server exited 1).
 */
class HeldAckOnDestroyTest {

    @Test
    void theAckHeldForAnAnswerGoesOutWhenTheQpIsDestroyed() {
        Peer.Link link = new Peer.Link();
        link.timeout = 10; // 4 ms: without the ACK the sender fails fast
        link.retryCnt = 2;
        try (Pair p = new Pair("127.0.95.1", "127.0.95.2", Threading.INVOKER, NanoClock.SYSTEM, 4096,
                Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            p.b.qp.postRecv(new RecvWr().wrId(1).sg(new Sge(p.b.addr(0), 64, p.b.mr.lkey())));
            p.a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(p.a.addr(0), 8, p.a.mr.lkey())));
            WorkCompletion got = pollDrivingOther(p.b.cq, p.a);
            assertEquals(WcStatus.SUCCESS, got.status());
            assertEquals(1, got.wrId());
            long sentBefore = p.b.ctx.counters().get(Counter.SENT_PKTS);
            p.b.qp.close(); // no answer, no further call into b's device
            assertTrue(p.b.ctx.counters().get(Counter.SENT_PKTS) > sentBefore, "the held ACK went out at destroy");
            WorkCompletion sent = pollDrivingOther(p.a.cq, p.b);
            assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
            assertEquals(0, p.a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR), p.a.ctx.counters().toString());
        }
    }

    /** Polls {@code cq} (each poll runs its device's pass) until one completion, also driving {@code other}. */
    private static WorkCompletion pollDrivingOther(CompletionQueue cq, Peer other) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + Pair.WAIT_NS;
        while (cq.poll(wc) == 0) {
            other.ctx.progress();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within " + Pair.WAIT_NS + " ns");
            }
        }
        return wc[0];
    }
}
