package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Opcode;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RC atomics on the soft device (IBA 9.4.5, kernel rxe): CmpSwap and FetchAdd on a host-order u64 with the
 * original value in the requester's 8-byte buffer, the device's atomic capability, max_rd_atomic outstanding,
 * fences, and no allocation on the atomic path. The wire format is in {@link AtomicWireTest}, exactly-once
 * execution in {@link AtomicDuplicateTest}, the checks in {@link AtomicBadFlowTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicTest extends AtomicFixture {

    // ------------------------------------------------------------------------------------------------- results

    @Test
    void shouldSwapWhenTheCompareValueMatches() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 64, 5);
            a.buf.set(U64, 0, 0x1111);
            a.buf.set(U64, 16, 0x2222);
            a.qp.postSend(cas(1, a, 8, b.addr(64), b.mr.rkey(), 5, 0x0123456789ABCDEFL));
            assertAtomicDone(pair.await(a.cq), 1, WcOpcode.COMP_SWAP);
            assertEquals(5, a.buf.get(U64, 8), "the original value lands in the local buffer");
            assertEquals(0x0123456789ABCDEFL, b.buf.get(U64, 64), "swapped");
            assertEquals(0x1111, a.buf.get(U64, 0), "nothing before the local buffer is touched");
            assertEquals(0x2222, a.buf.get(U64, 16), "nothing after the local buffer is touched");
            assertEquals(0, b.buf.get(U64, 56));
            assertEquals(0, b.buf.get(U64, 72));
        }
    }

    @Test
    void shouldLeaveTheTargetWhenTheCompareValueDiffers() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 64, 0x8000000000000000L);
            a.qp.postSend(cas(2, a, 8, b.addr(64), b.mr.rkey(), 0x7FFFFFFFFFFFFFFFL, 42));
            assertAtomicDone(pair.await(a.cq), 2, WcOpcode.COMP_SWAP);
            assertEquals(0x8000000000000000L, a.buf.get(U64, 8));
            assertEquals(0x8000000000000000L, b.buf.get(U64, 64), "no swap on a miss");
        }
    }

    @Test
    void shouldFetchAndAddModulo2To64() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 128, 0xFFFFFFFFFFFFFFFEL);
            a.qp.postSend(faa(3, a, 0, b.addr(128), b.mr.rkey(), 3));
            assertAtomicDone(pair.await(a.cq), 3, WcOpcode.FETCH_ADD);
            assertEquals(0xFFFFFFFFFFFFFFFEL, a.buf.get(U64, 0));
            assertEquals(1, b.buf.get(U64, 128), "wrapped around");
            a.qp.postSend(faa(4, a, 8, b.addr(128), b.mr.rkey(), -2));
            assertAtomicDone(pair.await(a.cq), 4, WcOpcode.FETCH_ADD);
            assertEquals(1, a.buf.get(U64, 8));
            assertEquals(-1, b.buf.get(U64, 128), "an addend of 2^64 - 2 subtracts 2");
        }
    }

    @Test
    void shouldScatterTheOriginalValueOverTwoSgesInHostOrder() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 0, 0x1122334455667788L);
            // rxe takes any list of 8 bytes in total; the value is copied as its 8 host-order bytes
            a.qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(100), 4, a.mr.lkey()), new Sge(a.addr(200), 4, a.mr.lkey()))
                    .remoteAddr(b.addr(0)).rkey(b.mr.rkey()).compareAdd(1));
            assertAtomicDone(pair.await(a.cq), 5, WcOpcode.FETCH_ADD);
            byte[] host = new byte[8];
            MemorySegment.copy(MemorySegment.ofArray(new long[] {0x1122334455667788L}), 0,
                    MemorySegment.ofArray(host), 0, 8);
            byte[] got = new byte[8];
            MemorySegment.copy(a.buf, 100, MemorySegment.ofArray(got), 0, 4);
            MemorySegment.copy(a.buf, 200, MemorySegment.ofArray(got), 4, 4);
            assertArrayEquals(host, got);
        }
    }

    @Test
    void shouldReportAtomicCapHcaAsRxe() {
        try (Pair pair = pair(link())) {
            assertEquals(AtomicCap.HCA, pair.a.ctx.queryDevice().atomicCap());
        }
    }

    // ------------------------------------------------------------------------------------------------- limits

    @Test
    void shouldKeepAtMostMaxRdAtomicAtomicsOutstanding() {
        Peer.Link link = link();
        link.maxRd = 2;
        try (Pair pair = pair(link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atA = record(a.ctx);
            for (int i = 0; i < 5; i++) {
                a.qp.postSend(faa(i, a, 8L * i, b.addr(0), b.mr.rkey(), 1)); // b is not driven yet
            }
            assertEquals(2, only(atA, true, Opcode.RC_FETCH_ADD.code()).size(), "max_rd_atomic 2");
            List<WorkCompletion> wcs = pair.awaitN(a.cq, 5);
            for (int i = 0; i < 5; i++) {
                assertAtomicDone(wcs.get(i), i, WcOpcode.FETCH_ADD);
                assertEquals(i, a.buf.get(U64, 8L * i));
            }
            assertEquals(5, b.buf.get(U64, 0));
            assertEquals(5, only(atA, true, Opcode.RC_FETCH_ADD.code()).size(), "none retransmitted");
        }
    }

    @Test
    void shouldHoldAFencedRequestUntilTheAtomicIsAcknowledged() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atA = record(a.ctx);
            b.buf.set(U64, 0, 7);
            a.qp.postSend(faa(1, a, 0, b.addr(0), b.mr.rkey(), 1).sendFlags(0));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ)
                    .sendFlags(SendFlags.SIGNALED | SendFlags.FENCE).sg(new Sge(a.addr(64), 8, a.mr.lkey()))
                    .remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
            assertEquals(0, only(atA, true, Opcode.RC_RDMA_READ_REQUEST.code()).size(),
                    "the fenced READ waits while the atomic is outstanding");
            WorkCompletion wc = pair.await(a.cq);
            assertEquals(2, wc.wrId(), "the unsignaled atomic completes silently");
            assertEquals(WcOpcode.RDMA_READ, wc.opcode());
            assertEquals(8, a.buf.get(U64, 64), "the READ sees the atomic's result");
            assertEquals(7, a.buf.get(U64, 0));
            int ackAt = -1;
            int readAt = -1;
            for (int i = 0; i < atA.size(); i++) {
                Seen s = atA.get(i);
                if (!s.tx() && s.opcode() == Opcode.RC_ATOMIC_ACKNOWLEDGE.code()) {
                    ackAt = i;
                } else if (s.tx() && s.opcode() == Opcode.RC_RDMA_READ_REQUEST.code() && readAt < 0) {
                    readAt = i;
                }
            }
            assertTrue(ackAt >= 0 && readAt > ackAt, "READ request sent after the ATOMIC ACKNOWLEDGE arrived");
        }
    }

    @Test
    void shouldNotAllocateOnTheAtomicPathAfterWarmUp() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            SendWr add = faa(1, a, 0, b.addr(0), b.mr.rkey(), 1);
            SendWr swap = cas(2, a, 8, b.addr(8), b.mr.rkey(), 0, 0);
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
            int iterations = 2000;
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 4; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < iterations; i++) {
                    a.qp.postSend(add);
                    a.qp.postSend(swap);
                    int done = 0;
                    for (long spins = 0; done < 2; spins++) {
                        b.ctx.progress();
                        int n = a.cq.poll(wcs);
                        for (int k = 0; k < n; k++) {
                            if (wcs[k].status() != WcStatus.SUCCESS) {
                                throw new AssertionError(wcs[k].toString());
                            }
                        }
                        done += n;
                        if (spins > 50_000_000L) {
                            throw new AssertionError("stuck at iteration " + i);
                        }
                    }
                }
                if (round > 0) { // round 0 is the warm-up
                    best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
                }
            }
            assertTrue(best < 256, "atomic path allocated " + best + " bytes in " + iterations + " iterations");
            assertEquals(4L * iterations, b.buf.get(U64, 0));
            assertEquals(4L * iterations - 1, a.buf.get(U64, 0));
        }
    }
}
