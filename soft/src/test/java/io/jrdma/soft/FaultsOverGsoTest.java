package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.soft.link.FaultyLink;
import io.jrdma.soft.link.NativeLink;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A faulty device on Linux is faulty over the native link: its engine sends GSO batches (payload gathered from
 * registered memory), faults hit packets inside them, and retransmission recovers every byte. The fault injector
 * counts the batches that went out whole and those a fault split, and checks each split packet's ICRC under its
 * index in the batch.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultsOverGsoTest {

    private static final String A = "127.0.41.7";
    private static final String B = "127.0.41.8";
    private static final int CHUNK = 128 << 10;
    private static final int CHUNKS = 8;
    private static final long HALF = (long) CHUNK * CHUNKS;

    @Test
    void shouldHitPacketsInsideGsoBatchesOfANativeDeviceAndRecoverEveryByte() {
        FaultConfig faultsA = FaultConfig.builder().seed(21).drop(0.02).duplicate(0.01).reorder(0.01, 4)
                .corrupt(0.005).build();
        FaultConfig faultsB = FaultConfig.builder().seed(22).drop(0.02).duplicate(0.01).reorder(0.01, 4)
                .corrupt(0.005).build();
        Peer.Link l = new Peer.Link();
        try (FaultPair pair = new FaultPair(A, B, 2 * HALF, Peer.ALL_ACCESS, l, faultsA, faultsB,
                LinkKind.NATIVE.assume())) {
            FaultyLink fa = assertInstanceOf(FaultyLink.class, pair.a.ctx.link);
            FaultyLink fb = assertInstanceOf(FaultyLink.class, pair.b.ctx.link);
            assertInstanceOf(NativeLink.class, fa.inner());
            assertInstanceOf(NativeLink.class, fb.inner());
            assertTrue(fa.maxSegments() > 1, "the engine batches for GSO");
            fill(pair.a.buf, 1);
            fill(pair.b.buf, 2);
            for (int i = 0; i < CHUNKS; i++) { // writes a -> b in the first half, reads b -> a in the second
                long off = (long) i * CHUNK;
                pair.a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(pair.a.addr(off), CHUNK, pair.a.mr.lkey())).remoteAddr(pair.b.addr(off))
                        .rkey(pair.b.mr.rkey()));
                pair.a.qp.postSend(new SendWr().wrId(100 + i).opcode(WrOpcode.RDMA_READ)
                        .sendFlags(SendFlags.SIGNALED).sg(new Sge(pair.a.addr(HALF + off), CHUNK, pair.a.mr.lkey()))
                        .remoteAddr(pair.b.addr(HALF + off)).rkey(pair.b.mr.rkey()));
            }
            List<WorkCompletion> done = pair.completions(pair.a.cq, 2 * CHUNKS);
            for (WorkCompletion wc : done) {
                assertEquals(WcStatus.SUCCESS, wc.status(), () -> wc + "\n" + pair.counters());
            }
            pair.settle(TimeUnit.MILLISECONDS.toNanos(5));
            String why = pair.counters() + "\na: whole " + fa.wholeBatches() + ", split " + fa.splitBatches()
                    + "\nb: whole " + fb.wholeBatches() + ", split " + fb.splitBatches();
            assertEquals(-1L, pair.a.buf.asSlice(0, HALF).mismatch(pair.b.buf.asSlice(0, HALF)), "written bytes");
            assertEquals(-1L, pair.a.buf.asSlice(HALF, HALF).mismatch(pair.b.buf.asSlice(HALF, HALF)), "read bytes");
            // GSO batches went out whole, and faults hit packets inside others, on both sides
            assertTrue(fa.wholeBatches() > 0 && fa.splitBatches() > 0, why);
            assertTrue(fb.wholeBatches() > 0 && fb.splitBatches() > 0, why);
            assertTrue(fa.count(FaultyLink.Fault.DROPPED) > 0 && fb.count(FaultyLink.Fault.DROPPED) > 0, why);
            assertTrue(pair.count(pair.a, Counter.RETRANSMITTED_PKTS) > 0, why);
            // every split packet's ICRC matched its place in the batch and was resealed for a single send: no
            // receiver had to solve for an IPv4 ID, and only corrupted packets failed the ICRC
            assertEquals(0, fa.icrcMismatches() + fb.icrcMismatches(), why);
            assertEquals(0, pair.count(pair.a, Counter.ICRC_ID_SOLVED) + pair.count(pair.b, Counter.ICRC_ID_SOLVED),
                    why);
            long corrupted = fa.count(FaultyLink.Fault.CORRUPTED) + fb.count(FaultyLink.Fault.CORRUPTED);
            long icrcErrors = pair.count(pair.a, Counter.ICRC_ERR) + pair.count(pair.b, Counter.ICRC_ERR);
            assertTrue(icrcErrors <= corrupted + fa.count(FaultyLink.Fault.DUPLICATED)
                    + fb.count(FaultyLink.Fault.DUPLICATED), why);
            assertTrue(corrupted == 0 || icrcErrors > 0, why);
            pair.assertHealthy();
        }
    }

    private static void fill(MemorySegment s, long seed) {
        Random r = new Random(seed);
        for (long off = 0; off + 8 <= s.byteSize(); off += 8) {
            s.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off, r.nextLong());
        }
    }
}
