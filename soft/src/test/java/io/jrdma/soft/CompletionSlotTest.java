package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A completion the application has polled has freed its queue slot: rxe's completer advances the send queue's
 * consumer before it posts the CQE, and its responder the receive queue's, so perftest (which keeps exactly
 * tx_depth sends, or rx_depth receives, posted and posts again the moment it polls a completion) never finds the
 * queue full. Found against kernel rxe with perftest's ib_read_lat -e and ib_write_bw -D, where jrdma's engine
 * thread made the CQE visible a moment before it freed the slot and the next post failed with ENOMEM.
 *
 * <p>Both tests run dedicated engine threads (the race needs the engine on another thread than the poller), with
 * queues of depth 1, and post again as soon as the completion is polled.
 */
class CompletionSlotTest {

    private static final int ROUNDS = 2000;
    private static final QpCap DEPTH_ONE = new QpCap().maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1);

    private static Pair dedicated(String ipA, String ipB) {
        return new Pair(ipA, ipB, Threading.DEDICATED, NanoClock.SYSTEM, 4096, Peer.ALL_ACCESS, DEPTH_ONE,
                new Peer.Link());
    }

    /** Spins (the engine threads do the work) until {@code cq} yields one completion, failing after 20 s. */
    private static WorkCompletion spin(CompletionQueue cq, WorkCompletion[] wcs) {
        long deadline = System.nanoTime() + Pair.WAIT_NS;
        while (cq.poll(wcs, 1) == 0) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for a completion");
            }
            Thread.onSpinWait();
        }
        return wcs[0];
    }

    @Test
    void aPolledSendCompletionShouldHaveFreedItsSendQueueSlot() {
        try (Pair p = dedicated("127.0.46.1", "127.0.46.2")) {
            SendWr write = new SendWr().wrId(7).opcode(io.jrdma.verbs.WrOpcode.RDMA_WRITE)
                    .sendFlags(SendFlags.SIGNALED).sg(new Sge(p.a.addr(0), 8, p.a.mr.lkey()))
                    .remote(p.b.addr(64), p.b.mr.rkey());
            WorkCompletion[] wcs = {new WorkCompletion()};
            for (int i = 0; i < ROUNDS; i++) {
                p.a.buf.set(ValueLayout.JAVA_LONG, 0, i);
                try {
                    p.a.qp.postSend(write); // the queue holds one request: the previous one must be gone
                } catch (VerbsException e) {
                    fail("round " + i + ": posting right after polling the previous completion: " + e.getMessage());
                }
                WorkCompletion wc = spin(p.a.cq, wcs);
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(), wc.toString());
                assertEquals(7, wc.wrId());
            }
            assertEquals(ROUNDS - 1, p.b.buf.get(ValueLayout.JAVA_LONG, 64), "the last write's data");
        }
    }

    @Test
    void aPolledReceiveCompletionShouldHaveFreedItsReceiveQueueSlot() {
        try (Pair p = dedicated("127.0.46.3", "127.0.46.4")) {
            SendWr send = new SendWr().wrId(1).opcode(io.jrdma.verbs.WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(p.a.addr(0), 16, p.a.mr.lkey()));
            RecvWr recv = new RecvWr().wrId(2).sg(new Sge(p.b.addr(0), 16, p.b.mr.lkey()));
            WorkCompletion[] wcs = {new WorkCompletion()};
            p.b.qp.postRecv(recv);
            for (int i = 0; i < ROUNDS; i++) {
                p.a.buf.set(ValueLayout.JAVA_LONG, 0, i);
                try {
                    p.a.qp.postSend(send);
                } catch (VerbsException e) {
                    fail("round " + i + ": posting right after polling the previous send: " + e.getMessage());
                }
                WorkCompletion r = spin(p.b.cq, wcs);
                assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
                assertEquals(WcOpcode.RECV, r.opcode(), r.toString());
                assertEquals(16, r.byteLen());
                assertEquals(i, p.b.buf.get(ValueLayout.JAVA_LONG, 0), "round " + i + "'s data");
                try {
                    p.b.qp.postRecv(recv); // the queue holds one receive: the one just completed must be gone
                } catch (VerbsException e) {
                    fail("round " + i + ": posting right after polling the previous receive: " + e.getMessage());
                }
                WorkCompletion s = spin(p.a.cq, wcs);
                assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
                assertEquals(WcOpcode.SEND, s.opcode(), s.toString());
            }
        }
    }
}
