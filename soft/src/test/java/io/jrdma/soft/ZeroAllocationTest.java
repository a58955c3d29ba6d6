package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hot path (post, poll, requester, responder, completer, link send and receive, ICRC) allocates nothing per
 * work request, packet or completion after warm-up. In invoker mode all of it runs on the test thread, so the
 * thread's allocation counter sees everything.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZeroAllocationTest {

    private static final int ROUNDS = 5;
    private static final int ITERATIONS = 2000;

    @Test
    void shouldNotAllocateOnTheDataPathAfterWarmUp() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        try (Pair pair = Pair.invoker("127.0.7.1", "127.0.7.2", 1 << 20)) {
            Peer a = pair.a;
            Peer b = pair.b;
            Sge recvSge = new Sge(b.addr(0), 4096, b.mr.lkey());
            RecvWr recv = new RecvWr().wrId(1).sg(recvSge);
            Sge sendSge = new Sge(a.addr(0), 2500, a.mr.lkey()); // 3 packets at MTU 1024
            SendWr send = new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(5)
                    .sendFlags(SendFlags.SIGNALED).sg(sendSge);
            SendWr write = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(8192), 3000, a.mr.lkey())).remoteAddr(b.addr(8192)).rkey(b.mr.rkey());
            SendWr read = new SendWr().wrId(4).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(16384), 2000, a.mr.lkey())).remoteAddr(b.addr(16384)).rkey(b.mr.rkey());
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};

            long best = Long.MAX_VALUE;
            for (int round = 0; round < ROUNDS + 1; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < ITERATIONS; i++) {
                    b.qp.postRecv(recv);
                    a.qp.postSend(send);
                    a.qp.postSend(write);
                    a.qp.postSend(read);
                    int sendDone = 0;
                    int recvDone = 0;
                    long spins = 0;
                    while (sendDone < 3 || recvDone < 1) {
                        b.ctx.progress();
                        int n = a.cq.poll(wcs);
                        for (int k = 0; k < n; k++) {
                            if (wcs[k].status() != WcStatus.SUCCESS) {
                                throw new AssertionError(wcs[k].toString());
                            }
                        }
                        sendDone += n;
                        recvDone += b.cq.poll(wcs);
                        if (++spins > 50_000_000L) {
                            throw new AssertionError("stuck at iteration " + i);
                        }
                    }
                }
                long allocated = mx.getThreadAllocatedBytes(tid) - before;
                if (round > 0) { // round 0 is the warm-up
                    best = Math.min(best, allocated);
                }
            }
            // 2000 iterations x 4 WRs x ~11 packets: one allocation per packet would show as >= 350 KB
            assertTrue(best < 256, "data path allocated " + best + " bytes in " + ITERATIONS + " iterations");
            assertEquals(0, a.ctx.counters().get(Counter.RCVD_DROPPED) + b.ctx.counters().get(Counter.RCVD_DROPPED));
        }
    }
}
