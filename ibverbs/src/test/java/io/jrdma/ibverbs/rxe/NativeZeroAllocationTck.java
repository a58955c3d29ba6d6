package io.jrdma.ibverbs.rxe;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.tck.Tck;
import io.jrdma.verbs.QueuePair;
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
 * The native data path (post_send, post_recv, poll_cq through the ops table, and the translation of requests and
 * completions) allocates nothing per work request or completion after warm-up: the thread's allocation counter
 * (com.sun.management.ThreadMXBean) over SEND with immediate, RDMA WRITE and RDMA READ between two contexts on
 * kernel rxe, as soft's ZeroAllocationTest does for the soft device. Counts stay small: the guest is emulated.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
public class NativeZeroAllocationTck extends Tck {

    private static final int WARM_UP = Integer.getInteger("jrdma.zeroalloc.warmup", 3000);
    private static final int ITERATIONS = Integer.getInteger("jrdma.zeroalloc.iterations", 500);
    private static final int ROUNDS = 2;

    @Test
    public void dataPathAllocatesNothingAfterWarmUp() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        Side[] p = rcPair(1 << 16);
        Side a = p[0];
        Side b = p[1];
        RecvWr recv = new RecvWr().wrId(1).sg(new Sge(b.addr(0), 4096, b.mr.lkey()));
        SendWr send = new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(5).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 2500, a.mr.lkey()));
        SendWr write = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(8192), 3000, a.mr.lkey())).remoteAddr(b.addr(8192)).rkey(b.mr.rkey());
        SendWr read = new SendWr().wrId(4).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(16384), 2000, a.mr.lkey())).remoteAddr(b.addr(16384)).rkey(b.mr.rkey());
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};

        run(a, b, recv, send, write, read, wcs, WARM_UP);
        long best = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            run(a, b, recv, send, write, read, wcs, ITERATIONS);
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        System.out.println("     zero-allocation: best of " + ROUNDS + " rounds of " + ITERATIONS + " iterations "
                + "(4 work requests, 4 completions each) allocated " + best + " bytes");
        // one allocation per work request or completion would show as >= 8 x 16 bytes x ITERATIONS
        assertTrue(best < 256, "data path allocated " + best + " bytes in " + ITERATIONS + " iterations");
    }

    private static void run(Side a, Side b, RecvWr recv, SendWr send, SendWr write, SendWr read,
            WorkCompletion[] wcs, int iterations) {
        QueuePair qa = a.qp;
        QueuePair qb = b.qp;
        for (int i = 0; i < iterations; i++) {
            qb.postRecv(recv);
            qa.postSend(send);
            qa.postSend(write);
            qa.postSend(read);
            int sendDone = 0;
            int recvDone = 0;
            long spins = 0;
            while (sendDone < 3 || recvDone < 1) {
                int n = a.cq.poll(wcs);
                for (int k = 0; k < n; k++) {
                    if (wcs[k].status() != WcStatus.SUCCESS) {
                        throw new AssertionError(wcs[k].toString());
                    }
                }
                sendDone += n;
                recvDone += b.cq.poll(wcs);
                if (++spins > 500_000_000L) {
                    throw new AssertionError("stuck at iteration " + i);
                }
            }
        }
    }
}
