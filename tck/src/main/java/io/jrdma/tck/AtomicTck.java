package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RC atomics (ibv_post_send with IBV_WR_ATOMIC_CMP_AND_SWP and IBV_WR_ATOMIC_FETCH_AND_ADD): 64-bit operations on
 * a host-order {@code uint64_t} in the responder's memory, the original value returned into the requester's 8-byte
 * buffer, the limits of max_rd_atomic and max_dest_rd_atomic, FENCE, ordering with READ and WRITE, and the errors:
 * EINVAL at post for a misaligned remote address, REM_ACCESS_ERR and REM_INV_REQ_ERR with both QPs in ERR and the
 * later requests flushed.
 */
public abstract class AtomicTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected AtomicTck() {
    }

    /** Host order, as libibverbs atomics see their target. */
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private static SendWr fetchAdd(long wrId, Side local, long localOff, long remoteAddr, int rkey, long add) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).signaled(true)
                .sg(local.sge(localOff, 8)).remoteAddr(remoteAddr).rkey(rkey).compareAdd(add);
    }

    private static SendWr compareSwap(long wrId, Side local, long localOff, long remoteAddr, int rkey, long compare,
            long swap) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                .sg(local.sge(localOff, 8)).remoteAddr(remoteAddr).rkey(rkey).compareAdd(compare).swap(swap);
    }

    private WorkCompletion awaitAtomic(Side side, long wrId, WcOpcode opcode) {
        WorkCompletion wc = await(side.cq, WcStatus.SUCCESS);
        assertEquals(wrId, wc.wrId());
        assertEquals(opcode, wc.opcode());
        assertEquals(8, wc.byteLen());
        return wc;
    }

    /**
     * Posts {@code bad} followed by an atomic and a WRITE that are valid; asserts {@code status} for the first, the
     * flush of both others, and both QPs in ERR.
     */
    private void assertRemoteFailure(Side x, Side y, SendWr bad, WcStatus status) {
        SendWr after = fetchAdd(2, x, 64, y.addr(0), y.mr.rkey(), 1)
                .next(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).signaled(true).sg(x.sge(128, 8))
                        .remoteAddr(y.addr(0)).rkey(y.mr.rkey()));
        x.qp.postSend(bad.wrId(1).signaled(true).next(after));
        WorkCompletion first = await(x.cq, status);
        assertEquals(1, first.wrId());
        assertEquals(bad.opcode().completionOpcode(), first.opcode());
        WorkCompletion second = await(x.cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(2, second.wrId());
        WorkCompletion third = await(x.cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(3, third.wrId());
        assertEquals(QpState.ERR, x.qp.state());
        awaitCondition("the responder QP to enter ERR", () -> y.qp.state() == QpState.ERR);
    }

    // ------------------------------------------------------------------------------------------------- results

    @Test
    public void compareAndSwapHitStoresSwapAndReturnsOriginal() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        y.buf.set(U64, 256, 0x1122334455667788L);
        x.buf.set(U64, 0, -1);
        x.buf.set(U64, 16, -1);
        x.qp.postSend(compareSwap(1, x, 8, y.addr(256), y.mr.rkey(), 0x1122334455667788L, 0x0AL));
        awaitAtomic(x, 1, WcOpcode.COMP_SWAP);
        assertEquals(0x1122334455667788L, x.buf.get(U64, 8));
        assertEquals(0x0AL, y.buf.get(U64, 256));
        assertEquals(-1, x.buf.get(U64, 0), "only the 8-byte buffer is written");
        assertEquals(-1, x.buf.get(U64, 16), "only the 8-byte buffer is written");
        assertEquals(0, y.buf.get(U64, 248));
        assertEquals(0, y.buf.get(U64, 264));
    }

    @Test
    public void compareAndSwapMissLeavesTargetAndReturnsOriginal() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        y.buf.set(U64, 0, 0x8000000000000001L);
        x.qp.postSend(compareSwap(1, x, 0, y.addr(0), y.mr.rkey(), 1, 2));
        awaitAtomic(x, 1, WcOpcode.COMP_SWAP);
        assertEquals(0x8000000000000001L, x.buf.get(U64, 0));
        assertEquals(0x8000000000000001L, y.buf.get(U64, 0));
    }

    @Test
    public void fetchAndAddAddsToHostOrderValueAndReturnsOriginal() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        y.buf.set(U64, 8, 0x00000001000000FFL); // a carry across a byte: a byte-swapped add would differ
        x.qp.postSend(fetchAdd(1, x, 0, y.addr(8), y.mr.rkey(), 1));
        awaitAtomic(x, 1, WcOpcode.FETCH_ADD);
        assertEquals(0x00000001000000FFL, x.buf.get(U64, 0));
        assertEquals(0x0000000100000100L, y.buf.get(U64, 8));
    }

    @Test
    public void fetchAndAddWrapsModulo2To64() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        y.buf.set(U64, 0, -2L);
        x.qp.postSend(fetchAdd(1, x, 0, y.addr(0), y.mr.rkey(), 5));
        awaitAtomic(x, 1, WcOpcode.FETCH_ADD);
        assertEquals(-2L, x.buf.get(U64, 0));
        assertEquals(3, y.buf.get(U64, 0));
    }

    @Test
    public void atomicOnTheFirstEightBytesOfARegion() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        y.buf.set(U64, 0, 41);
        x.qp.postSend(fetchAdd(1, x, 0, y.mr.address(), y.mr.rkey(), 1));
        awaitAtomic(x, 1, WcOpcode.FETCH_ADD);
        assertEquals(41, x.buf.get(U64, 0));
        assertEquals(42, y.buf.get(U64, 0));
    }

    @Test
    public void atomicOnTheLastEightBytesOfARegion() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        long last = y.mr.length() - 8;
        y.buf.set(U64, last, 7);
        x.qp.postSend(compareSwap(1, x, 0, y.mr.address() + last, y.mr.rkey(), 7, 70));
        awaitAtomic(x, 1, WcOpcode.COMP_SWAP);
        assertEquals(7, x.buf.get(U64, 0));
        assertEquals(70, y.buf.get(U64, last));
    }

    @Test
    public void unsignaledAtomicStillReturnsItsOriginalValue() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        x.qp.postSend(fetchAdd(1, x, 0, y.addr(0), y.mr.rkey(), 3).signaled(false)
                .next(fetchAdd(2, x, 8, y.addr(0), y.mr.rkey(), 3)));
        awaitAtomic(x, 2, WcOpcode.FETCH_ADD);
        assertNoCompletion(x.cq, 20);
        assertEquals(0, x.buf.get(U64, 0));
        assertEquals(3, x.buf.get(U64, 8));
        assertEquals(6, y.buf.get(U64, 0));
    }

    @Test
    public void deviceReportsAtomicSupport() {
        DeviceAttr attr = a.queryDevice();
        assertNotEquals(AtomicCap.NONE, attr.atomicCap(), "a device that runs atomics reports atomic_cap");
        assertTrue(attr.maxQpRdAtom() >= 1, "max_qp_rd_atom");
        assertTrue(attr.maxQpInitRdAtom() >= 1, "max_qp_init_rd_atom");
    }

    // ------------------------------------------------------------------------------------------------- limits

    @Test
    public void atomicsUpToMaxRdAtomicOutstandingCompleteInOrder() {
        Link link = new Link();
        link.maxRd = 4;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        Side x = p[0];
        Side y = p[1];
        SendWr chain = null;
        for (int i = 11; i >= 0; i--) {
            chain = fetchAdd(i, x, 8L * i, y.addr(0), y.mr.rkey(), 1).next(chain);
        }
        x.qp.postSend(chain);
        for (int i = 0; i < 12; i++) {
            awaitAtomic(x, i, WcOpcode.FETCH_ADD);
            assertEquals(i, x.buf.get(U64, 8L * i), "the i-th atomic saw the value after i increments");
        }
        assertEquals(12, y.buf.get(U64, 0));
    }

    @Test
    public void moreAtomicsThanTheResponderResourcesAreHandled() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        y.createQp(QpType.RC);
        Link initiator = new Link();
        initiator.maxRd = 4;
        Link responder = new Link();
        responder.maxRd = 1; // max_dest_rd_atomic 1 at y while x may have 4 outstanding
        connect(x, y, initiator);
        connect(y, x, responder);
        SendWr chain = null;
        for (int i = 3; i >= 0; i--) {
            chain = fetchAdd(i, x, 8L * i, y.addr(0), y.mr.rkey(), 1).next(chain);
        }
        x.qp.postSend(chain);
        List<WorkCompletion> wcs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            WorkCompletion wc = await(x.cq);
            assertEquals(i, wc.wrId(), "completions in order");
            WorkCompletion copy = new WorkCompletion();
            copy.copyFrom(wc);
            wcs.add(copy);
        }
        // a provider may serve the excess (rxe recycles its resources) or NAK it as an invalid request; either
        // way every atomic completes once, no increment is lost or doubled, and an error ends the connection
        int ok = 0;
        while (ok < 4 && wcs.get(ok).status() == WcStatus.SUCCESS) {
            assertEquals(ok, x.buf.get(U64, 8L * ok));
            ok++;
        }
        if (ok < 4) {
            assertEquals(WcStatus.REM_INV_REQ_ERR, wcs.get(ok).status(), wcs.get(ok).toString());
            for (int i = ok + 1; i < 4; i++) {
                assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status());
            }
            assertEquals(QpState.ERR, x.qp.state());
        }
        assertEquals(ok, y.buf.get(U64, 0), "each successful atomic ran exactly once, no other one ran");
    }

    @Test
    public void manyQpsIncrementOneCounterExactlyOnceEach() {
        int qps = 4;
        int each = 40;
        Side y = sideB(4096, ALL_ACCESS);
        Side[] xs = new Side[qps];
        QueuePair[] ys = new QueuePair[qps];
        Link link = new Link();
        for (int i = 0; i < qps; i++) {
            xs[i] = sideA(8L * each, ALL_ACCESS);
            xs[i].createQp(QpType.RC);
            ys[i] = y.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(y.cq).recvCq(y.cq).cap(defaultCap()));
            connect(y, xs[i], link); // y.qp is ys[i] now: every responder QP shares y's PD and counter
            connect(xs[i], y, link);
        }
        for (int k = 0; k < each; k += 4) {
            for (int i = 0; i < qps; i++) {
                SendWr chain = null;
                for (int j = Math.min(each, k + 4) - 1; j >= k; j--) {
                    chain = fetchAdd(j, xs[i], 8L * j, y.addr(0), y.mr.rkey(), 1).next(chain);
                }
                xs[i].qp.postSend(chain);
            }
            for (int i = 0; i < qps; i++) {
                for (int j = k; j < Math.min(each, k + 4); j++) {
                    awaitAtomic(xs[i], j, WcOpcode.FETCH_ADD);
                }
            }
        }
        int total = qps * each;
        assertEquals(total, y.buf.get(U64, 0));
        BitSet seen = new BitSet(total);
        for (Side x : xs) {
            for (int j = 0; j < each; j++) {
                long v = x.buf.get(U64, 8L * j);
                assertTrue(v >= 0 && v < total && !seen.get((int) v), "original value " + v + " unique");
                seen.set((int) v);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- ordering

    @Test
    public void fencedReadAfterAtomicSeesItsResult() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        y.buf.set(U64, 0, 99);
        x.qp.postSend(fetchAdd(1, x, 0, y.addr(0), y.mr.rkey(), 1)
                .next(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sg(x.sge(64, 8)).remoteAddr(y.addr(0))
                        .rkey(y.mr.rkey()).sendFlags(SendFlags.SIGNALED | SendFlags.FENCE)));
        awaitAtomic(x, 1, WcOpcode.FETCH_ADD);
        WorkCompletion read = await(x.cq, WcStatus.SUCCESS);
        assertEquals(2, read.wrId());
        assertEquals(WcOpcode.RDMA_READ, read.opcode());
        assertEquals(99, x.buf.get(U64, 0));
        assertEquals(100, x.buf.get(U64, 64));
    }

    @Test
    public void atomicsInterleaveWithWritesAndReadsInOrder() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        x.buf.set(U64, 512, 100);
        x.buf.set(U64, 520, 1000);
        SendWr write = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).signaled(true).sg(x.sge(512, 8))
                .remoteAddr(y.addr(0)).rkey(y.mr.rkey());
        SendWr add = fetchAdd(2, x, 0, y.addr(0), y.mr.rkey(), 5);
        SendWr swap = compareSwap(3, x, 8, y.addr(0), y.mr.rkey(), 105, 7).sendFlags(SendFlags.SIGNALED
                | SendFlags.FENCE);
        SendWr read = new SendWr().wrId(4).opcode(WrOpcode.RDMA_READ).sg(x.sge(16, 8)).remoteAddr(y.addr(0))
                .rkey(y.mr.rkey()).sendFlags(SendFlags.SIGNALED | SendFlags.FENCE);
        SendWr overwrite = new SendWr().wrId(5).opcode(WrOpcode.RDMA_WRITE).signaled(true).sg(x.sge(520, 8))
                .remoteAddr(y.addr(0)).rkey(y.mr.rkey()).sendFlags(SendFlags.SIGNALED | SendFlags.FENCE);
        SendWr last = fetchAdd(6, x, 24, y.addr(0), y.mr.rkey(), 1);
        x.qp.postSend(write.next(add.next(swap.next(read.next(overwrite.next(last))))));
        WcOpcode[] opcodes = {WcOpcode.RDMA_WRITE, WcOpcode.FETCH_ADD, WcOpcode.COMP_SWAP, WcOpcode.RDMA_READ,
            WcOpcode.RDMA_WRITE, WcOpcode.FETCH_ADD};
        for (int i = 0; i < opcodes.length; i++) {
            WorkCompletion wc = await(x.cq, WcStatus.SUCCESS);
            assertEquals(i + 1, wc.wrId());
            assertEquals(opcodes[i], wc.opcode());
        }
        assertEquals(100, x.buf.get(U64, 0), "the add saw the WRITE before it");
        assertEquals(105, x.buf.get(U64, 8), "the swap saw the add");
        assertEquals(7, x.buf.get(U64, 16), "the READ saw the swap");
        assertEquals(1000, x.buf.get(U64, 24), "the last add saw the overwrite");
        assertEquals(1001, y.buf.get(U64, 0));
    }

    // ------------------------------------------------------------------------------------------------- bad flow

    @Test
    public void misalignedRemoteAddressIsRejectedAtPostWithEinval() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        assertVerbsError(Errno.EINVAL, () -> x.qp.postSend(fetchAdd(1, x, 0, y.addr(4), y.mr.rkey(), 1)));
        assertVerbsError(Errno.EINVAL, () -> x.qp.postSend(compareSwap(2, x, 0, y.addr(1), y.mr.rkey(), 0, 1)));
        assertNoCompletion(x.cq, 20);
        assertEquals(QpState.RTS, x.qp.state(), "a refused post leaves the QP as it was");
        assertEquals(0, y.buf.get(U64, 0));
        x.qp.postSend(fetchAdd(3, x, 0, y.addr(8), y.mr.rkey(), 1));
        awaitAtomic(x, 3, WcOpcode.FETCH_ADD);
        assertEquals(1, y.buf.get(U64, 8));
    }

    @Test
    public void atomicOnARegionWithoutRemoteAtomicFailsWithRemoteAccessError() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        MemorySegment seg = buffer(4096);
        seg.set(U64, 0, 5);
        MemoryRegion noAtomic = closeLater(y.pd.registerMemory(seg,
                Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE));
        assertRemoteFailure(x, y, compareSwap(1, x, 0, noAtomic.address(), noAtomic.rkey(), 5, 6),
                WcStatus.REM_ACCESS_ERR);
        assertEquals(5, seg.get(U64, 0), "not executed");
    }

    @Test
    public void atomicToAQpWithoutRemoteAtomicFailsWithInvalidRequest() {
        Link link = new Link();
        link.qpAccess = Access.REMOTE_READ | Access.REMOTE_WRITE;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        Side x = p[0];
        Side y = p[1];
        assertRemoteFailure(x, y, fetchAdd(1, x, 0, y.addr(0), y.mr.rkey(), 1), WcStatus.REM_INV_REQ_ERR);
        assertEquals(0, y.buf.get(U64, 0), "not executed");
    }

    @Test
    public void atomicWithABadRkeyFailsWithRemoteAccessError() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        assertRemoteFailure(x, y, fetchAdd(1, x, 0, y.addr(0), y.mr.rkey() ^ 0x00A5A500, 1),
                WcStatus.REM_ACCESS_ERR);
        assertEquals(0, y.buf.get(U64, 0), "not executed");
    }

    @Test
    public void atomicJustPastTheEndOfARegionFailsWithRemoteAccessError() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        assertRemoteFailure(x, y, fetchAdd(1, x, 0, y.mr.address() + y.mr.length(), y.mr.rkey(), 1),
                WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void atomicJustBeforeARegionFailsWithRemoteAccessError() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        Side y = p[1];
        assertRemoteFailure(x, y, compareSwap(1, x, 0, y.mr.address() - 8, y.mr.rkey(), 0, 1),
                WcStatus.REM_ACCESS_ERR);
    }
}
