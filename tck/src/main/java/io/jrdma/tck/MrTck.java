package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Memory regions (ibv_reg_mr, ibv_dereg_mr), as rdma-core's tests/test_mr.py: every legal access combination
 * registers, REMOTE_WRITE/REMOTE_ATOMIC without LOCAL_WRITE and unknown bits do not, keys are distinct and die with
 * their region, and a region is only usable by QPs of its own PD.
 */
public abstract class MrTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected MrTck() {
    }

    private static final int[] FLAGS = {Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
        Access.REMOTE_ATOMIC, Access.MW_BIND};

    private static boolean legal(int access) {
        return (access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) == 0 || (access & Access.LOCAL_WRITE) != 0;
    }

    private static int combination(int bits) {
        int access = 0;
        for (int i = 0; i < FLAGS.length; i++) {
            if ((bits & (1 << i)) != 0) {
                access |= FLAGS[i];
            }
        }
        return access;
    }

    @Test
    public void everyLegalAccessCombinationRegisters() {
        ProtectionDomain pd = closeLater(a.allocPd());
        MemorySegment seg = buffer(8192);
        int registered = 0;
        for (int bits = 0; bits < 1 << FLAGS.length; bits++) {
            int access = combination(bits);
            if (!legal(access)) {
                continue;
            }
            try (MemoryRegion mr = pd.registerMemory(seg, access)) {
                assertEquals(access, mr.access(), () -> Access.describe(access));
                assertEquals(seg.address(), mr.address());
                assertEquals(8192, mr.length());
                assertSame(pd, mr.pd());
                assertEquals(seg.address(), mr.segment().address());
                registered++;
            }
        }
        assertEquals(20, registered, "32 combinations of 5 flags, 12 of them illegal");
    }

    @Test
    public void everyIllegalAccessCombinationIsEinvalBadFlow() {
        ProtectionDomain pd = closeLater(a.allocPd());
        MemorySegment seg = buffer(4096);
        int refused = 0;
        for (int bits = 0; bits < 1 << FLAGS.length; bits++) {
            int access = combination(bits);
            if (legal(access)) {
                continue;
            }
            VerbsException e = assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(seg, access));
            assertTrue(e.getMessage().contains("LOCAL_WRITE"), e::getMessage);
            refused++;
        }
        assertEquals(12, refused);
    }

    @Test
    public void remoteWriteWithoutLocalWriteIsEinvalBadFlow() {
        ProtectionDomain pd = closeLater(a.allocPd());
        assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(buffer(64), Access.REMOTE_WRITE));
        assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(buffer(64), Access.REMOTE_WRITE | Access.REMOTE_READ));
    }

    @Test
    public void remoteAtomicWithoutLocalWriteIsEinvalBadFlow() {
        ProtectionDomain pd = closeLater(a.allocPd());
        assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(buffer(64), Access.REMOTE_ATOMIC));
    }

    @Test
    public void unknownAccessBitsAreEinvalBadFlow() {
        ProtectionDomain pd = closeLater(a.allocPd());
        for (int bit : new int[] {1 << 8, 1 << 15, 1 << 30, 1 << 31}) {
            assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(buffer(64), Access.LOCAL_WRITE | bit));
        }
    }

    @Test
    public void heapMemoryIsRefusedBadFlow() {
        ProtectionDomain pd = closeLater(a.allocPd());
        assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(MemorySegment.ofArray(new byte[4096]),
                Access.LOCAL_WRITE));
        assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(ByteBuffer.allocate(4096), Access.LOCAL_WRITE));
    }

    @Test
    public void confinedMemoryIsRefusedBadFlow() {
        ProtectionDomain pd = closeLater(a.allocPd());
        try (Arena confined = Arena.ofConfined()) {
            assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(confined.allocate(4096), Access.LOCAL_WRITE));
        }
    }

    @Test
    public void directByteBufferRegistersItsWholeCapacity() {
        ProtectionDomain pd = closeLater(a.allocPd());
        ByteBuffer direct = ByteBuffer.allocateDirect(5000).position(100).limit(200);
        try (MemoryRegion mr = pd.registerMemory(direct, Access.LOCAL_WRITE)) {
            assertEquals(5000, mr.length());
        }
    }

    @Test
    public void zeroLengthRegionIsEinvalBadFlow() {
        ProtectionDomain pd = closeLater(a.allocPd());
        MemorySegment empty = buffer(4096).asSlice(0, 0);
        assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(empty, Access.LOCAL_WRITE));
    }

    @Test
    public void keysAreDistinctAcrossRegions() {
        ProtectionDomain pd = closeLater(a.allocPd());
        MemorySegment seg = buffer(4096);
        Set<Integer> lkeys = new HashSet<>();
        Set<Integer> rkeys = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            MemoryRegion mr = closeLater(pd.registerMemory(seg, ALL_ACCESS)); // the same memory, 64 regions
            assertTrue(lkeys.add(mr.lkey()), "lkey reused while registered");
            assertTrue(rkeys.add(mr.rkey()), "rkey reused while registered");
        }
    }

    @Test
    public void keysOfADeregisteredRegionAreNotReissuedAtOnce() {
        ProtectionDomain pd = closeLater(a.allocPd());
        MemorySegment seg = buffer(4096);
        MemoryRegion first = pd.registerMemory(seg, Access.LOCAL_WRITE);
        int lkey = first.lkey();
        first.close();
        MemoryRegion second = closeLater(pd.registerMemory(seg, Access.LOCAL_WRITE));
        assertTrue(second.lkey() != lkey, "a new registration must not revive a dead key");
    }

    @Test
    public void subRangeRegistrationBoundsTheSges() {
        Side[] p = rcPair(8192);
        MemorySegment slice = p[0].buf.asSlice(1001, 999);
        MemoryRegion mr = closeLater(p[0].pd.registerMemory(slice, Access.LOCAL_WRITE));
        assertEquals(slice.address(), mr.address());
        assertEquals(999, mr.length());
        var e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 1, 0, 8)
                .sg(sge(mr, 992, 8))));
        assertEquals(0, e.badWrIndex());
        assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 1, 0, 8)
                .sg(new Sge(mr.address() - 1, 8, mr.lkey()))));
        p[1].postRecv(5, 0, 999);
        fill(slice, 9);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 0).sg(sge(mr, 0, 999)));
        assertEquals(999, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, slice.mismatch(p[1].buf.asSlice(0, 999)));
    }

    @Test
    public void regionWithoutAnyAccessFlagIsAValidSendSource() {
        Side[] p = rcPair(8192);
        MemorySegment src = buffer(256);
        fill(src, 4);
        MemoryRegion readOnly = closeLater(p[0].pd.registerMemory(src, 0)); // local read is always granted
        p[1].postRecv(1, 0, 256);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 0).sg(sge(readOnly, 0, 256)));
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(256, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, src.mismatch(p[1].buf.asSlice(0, 256)));
    }

    @Test
    public void deregisteredLkeyIsRefusedAtPostBadFlow() {
        Side[] p = rcPair(8192);
        MemoryRegion mr = p[0].pd.registerMemory(buffer(4096), Access.LOCAL_WRITE);
        var sge = sge(mr, 0, 16);
        mr.close();
        var send = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 1, 0, 0).sg(sge)));
        assertEquals(0, send.badWrIndex());
        var recv = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postRecv(new RecvWr().wrId(2).sg(sge)));
        assertEquals(0, recv.badWrIndex());
        assertEquals(QpState.RTS, p[0].qp.state(), "a refused post changes nothing");
    }

    @Test
    public void regionDeregisteredAfterPostingIsALocalProtectionErrorBadFlow() {
        Side[] p = rcPair(8192);
        MemoryRegion mr = p[0].pd.registerMemory(buffer(4096), Access.LOCAL_WRITE);
        p[1].postRecv(10, 0, 64);
        moveTo(p[0].qp, QpState.SQD); // requests posted now wait: nothing new starts in SQD
        p[0].qp.postSend(sendWr(p[0], 1, 0, 0).sg(sge(mr, 0, 64)));
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        mr.close();
        moveTo(p[0].qp, QpState.RTS);
        WorkCompletion wc = await(p[0].cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc::toString);
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
        assertNoCompletion(p[1].cq, 20);
    }

    @Test
    public void deregisteredRkeyIsARemoteAccessErrorBadFlow() {
        Side[] p = rcPair(8192);
        MemoryRegion mr = p[1].pd.registerMemory(buffer(4096), ALL_ACCESS);
        long addr = mr.address();
        int rkey = mr.rkey();
        mr.close();
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 64, p[1], 0).remote(addr, rkey),
                WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void deregisterTwiceIsHarmless() {
        ProtectionDomain pd = closeLater(a.allocPd());
        MemoryRegion mr = pd.registerMemory(buffer(64), Access.LOCAL_WRITE);
        mr.close();
        mr.close();
        pd.close(); // the region no longer holds the PD
    }

    @Test
    public void largeRegionIsAddressableToItsLastByte() {
        long size = 64L << 20;
        Side[] p = rcPair(4096);
        MemorySegment big = buffer(size);
        MemoryRegion mr = closeLater(p[1].pd.registerMemory(big, ALL_ACCESS));
        assertEquals(size, mr.length());
        fill(p[0].buf.asSlice(0, 3000), 6);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 3000, p[1], 0).remote(mr.address() + size - 3000, mr.rkey()));
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(-1, p[0].buf.asSlice(0, 3000).mismatch(big.asSlice(size - 3000, 3000)));
        assertEquals(0, big.get(ValueLayout.JAVA_BYTE, size - 3001), "nothing before the target range changed");
    }

    @Test
    public void sgeOfAnotherPdIsEinvalForSendsAndReceivesBadFlow() {
        Side[] p = rcPair(8192);
        ProtectionDomain other = closeLater(a.allocPd());
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        var sge = sge(foreign, 0, 32);
        assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 1, 0, 0).sg(sge)));
        assertVerbsError(Errno.EINVAL, () -> p[0].qp.postRecv(new RecvWr().wrId(2).sg(sge)));
    }

    @Test
    public void sgeReachingPastItsRegionIsEinvalBadFlow() {
        Side[] p = rcPair(8192);
        var e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postRecv(new RecvWr().wrId(2)
                .sg(p[0].sge(8192 - 16, 17))));
        assertEquals(0, e.badWrIndex());
        p[0].qp.postRecv(new RecvWr().wrId(3).sg(p[0].sge(8192 - 16, 16))); // exactly to the end is fine
    }

    @Test
    public void twoRegionsOverTheSameMemoryBothWork() {
        Side[] p = rcPair(8192);
        MemoryRegion second = closeLater(p[1].pd.registerMemory(p[1].buf, ALL_ACCESS));
        fill(p[0].buf.asSlice(0, 128), 8);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 64, p[1], 0));
        p[0].qp.postSend(writeWr(p[0], 2, 64, 64, p[1], 0).remote(second.address() + 64, second.rkey()));
        assertEquals(WcOpcode.RDMA_WRITE, await(p[0].cq, WcStatus.SUCCESS).opcode());
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(-1, p[0].buf.asSlice(0, 128).mismatch(p[1].buf.asSlice(0, 128)));
    }

    @Test
    public void receiveBufferDeregisteredAfterPostingBadFlow() {
        Side[] p = rcPair(8192);
        MemoryRegion mr = p[1].pd.registerMemory(buffer(4096), Access.LOCAL_WRITE);
        p[1].qp.postRecv(new RecvWr().wrId(5).sg(sge(mr, 0, 256)));
        p[1].postRecv(6, 0, 256);
        mr.close(); // the receive is queued, its memory is gone
        p[0].qp.postSend(sendWr(p[0], 7, 0, 64));
        WorkCompletion recv = await(p[1].cq);
        assertEquals(5, recv.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, recv.status(), recv::toString);
        assertEquals(6, await(p[1].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(WcStatus.REM_OP_ERR, await(p[0].cq).status());
        assertEquals(QpState.ERR, p[0].qp.state());
        assertEquals(QpState.ERR, p[1].qp.state());
    }

    @Test
    public void readTargetDeregisteredAfterPostingBadFlow() {
        Side[] p = rcPair(8192);
        MemoryRegion mr = p[0].pd.registerMemory(buffer(4096), Access.LOCAL_WRITE);
        moveTo(p[0].qp, QpState.SQD);
        p[0].qp.postSend(readWr(p[0], 1, 0, 0, p[1], 0).sg(sge(mr, 0, 100)));
        mr.close();
        moveTo(p[0].qp, QpState.RTS);
        WorkCompletion wc = await(p[0].cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc::toString);
        assertEquals(QpState.ERR, p[0].qp.state());
        assertEquals(QpState.RTS, p[1].qp.state(), "the responder served the read; the fault was local");
    }
}
