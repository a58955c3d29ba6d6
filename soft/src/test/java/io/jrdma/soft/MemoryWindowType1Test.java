package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Type 1 memory windows on the soft device: binds with ibv_bind_mw, remote access through the window and its
 * violations, rebinding and unbinding, the checks of a bind and its order in the send queue.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryWindowType1Test extends MemoryWindowFixture {

    // ------------------------------------------------------------------------------------------------- type 1

    @Test
    void shouldWriteAndReadThroughType1Window() {
        MemoryWindow mw = boundType1(RW);
        fill(a.buf.asSlice(0, 300), 3);
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr() + 100, mw.rkey(), 300)).status());
        assertEquals(-1, a.buf.asSlice(0, 300).mismatch(bindableBuf.asSlice(WINDOW_OFFSET + 100, 300)),
                "the WRITE landed in the window although the MR itself grants no remote rights");
        WorkCompletion rd = run(read(windowAddr() + 100, mw.rkey(), 300));
        assertEquals(WcStatus.SUCCESS, rd.status());
        assertEquals(WcOpcode.RDMA_READ, rd.opcode());
        assertEquals(-1, a.buf.asSlice(8192, 300).mismatch(bindableBuf.asSlice(WINDOW_OFFSET + 100, 300)));
    }

    @Test
    void shouldReachBothEndsOfTheWindowExactly() {
        MemoryWindow mw = boundType1(RW);
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr(), mw.rkey(), 64)).status());
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr() + WINDOW_LENGTH - 64, mw.rkey(), 64)).status());
    }

    @Test
    void shouldSendNoPacketForABind() {
        long sentBefore = b.ctx.counters().get(Counter.SENT_PKTS);
        boundType1(RW);
        assertEquals(sentBefore, b.ctx.counters().get(Counter.SENT_PKTS), "a bind is a local operation");
    }

    @Test
    void shouldFailWritePastTheWindowInsideTheRegionBadFlow() {
        MemoryWindow mw = boundType1(RW);
        assertRemoteAccessError(write(windowAddr() + WINDOW_LENGTH - 32, mw.rkey(), 64));
    }

    @Test
    void shouldFailWriteBeforeTheWindowBadFlow() {
        MemoryWindow mw = boundType1(RW);
        assertRemoteAccessError(write(windowAddr() - 8, mw.rkey(), 16));
    }

    @Test
    void shouldFailReadThroughAWriteOnlyWindowBadFlow() {
        MemoryWindow mw = boundType1(Access.REMOTE_WRITE);
        assertRemoteAccessError(read(windowAddr(), mw.rkey(), 64));
    }

    @Test
    void shouldFailWriteThroughAReadOnlyWindowBadFlow() {
        MemoryWindow mw = boundType1(Access.REMOTE_READ);
        assertRemoteAccessError(write(windowAddr(), mw.rkey(), 64));
    }

    @Test
    void shouldKillTheOldRkeyWhenRebindingBadFlow() {
        MemoryWindow mw = boundType1(RW);
        int old = mw.rkey();
        MwBind bind = new MwBind().wrId(502).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(WINDOW_LENGTH).mwAccessFlags(RW);
        int fresh = b.qp.bindMw(mw, bind);
        assertEquals(SendWr.incRkey(old), fresh);
        assertEquals(WcStatus.SUCCESS, pair.await(b.cq).status());
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr(), fresh, 32)).status());
        assertRemoteAccessError(write(windowAddr(), old, 32));
    }

    @Test
    void shouldUnbindWithAZeroLengthBindBadFlow() {
        MemoryWindow mw = boundType1(RW);
        int rkey = b.qp.bindMw(mw, new MwBind().wrId(503).sendFlags(SendFlags.SIGNALED));
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        bindable.close(); // nothing is bound to the region any more
        bindable = b.pd.registerMemory(bindableBuf, Access.LOCAL_WRITE | Access.MW_BIND);
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    void shouldKillTheRkeyWhenTheWindowIsDeallocatedBadFlow() {
        MemoryWindow mw = boundType1(RW);
        int rkey = mw.rkey();
        mw.close();
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    void shouldRefuseToDeregisterARegionWithBoundWindowsBadFlow() {
        MemoryWindow mw = boundType1(RW);
        VerbsException e = assertThrows(VerbsException.class, () -> bindable.close());
        assertEquals(Errno.EINVAL, e.errno(), "rxe_dereg_mr refuses a region with bound windows");
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr(), mw.rkey(), 32)).status(), "still registered");
        mw.close();
        bindable.close();
        bindable = b.pd.registerMemory(bindableBuf, Access.LOCAL_WRITE | Access.MW_BIND);
    }

    @Test
    void shouldRefuseToDeallocateAPdWithAWindowBadFlow() {
        ProtectionDomain pd = later(b.ctx.allocPd());
        MemoryWindow mw = pd.allocMw(MwType.TYPE_1);
        VerbsException e = assertThrows(VerbsException.class, pd::close);
        assertEquals(Errno.EBUSY, e.errno());
        mw.close();
    }

    @Test
    void shouldRefuseIbvBindMwOnAType2WindowBadFlow() {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_2));
        MwBind bind = new MwBind();
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        VerbsException e = assertThrows(VerbsException.class, () -> b.qp.bindMw(mw, bind));
        assertEquals(Errno.EINVAL, e.errno());
    }

    @Test
    void shouldRefuseARangeWithoutARegionBadFlow() {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind();
        bind.bindInfo().addr(windowAddr()).length(64).mwAccessFlags(RW);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> b.qp.bindMw(mw, bind)).errno());
    }

    private void assertType1BindError(MemoryRegion mr, long addr, long len, int rights) {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_1));
        int before = mw.rkey();
        MwBind bind = new MwBind().wrId(701).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(mr).addr(addr).length(len).mwAccessFlags(rights);
        b.qp.bindMw(mw, bind);
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(701, wc.wrId());
        assertEquals(WcStatus.MW_BIND_ERR, wc.status(), wc.toString());
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(before, mw.rkey(), "a failed bind leaves the window's rkey as it was");
    }

    @Test
    void shouldFailBindToARegionWithoutMwBindBadFlow() {
        assertType1BindError(b.mr, b.addr(0), 64, RW);
    }

    @Test
    void shouldFailBindOutsideTheRegionBadFlow() {
        assertType1BindError(bindable, bindable.address() + bindable.length() - 32, 64, RW);
    }

    @Test
    void shouldFailWritableBindOnARegionWithoutLocalWriteBadFlow() {
        MemoryRegion ro = later(b.pd.registerMemory(b.arena.allocate(4096, 4096), Access.MW_BIND
                | Access.REMOTE_READ));
        assertType1BindError(ro, ro.address(), 64, Access.REMOTE_WRITE);
    }

    @Test
    void shouldCompleteAFailedBindAfterTheRequestsBeforeItBadFlow() {
        // the bind runs (and fails) while the SEND before it is still unacknowledged; the SEND still completes first
        a.qp.postRecv(new RecvWr().wrId(1).sg(new Sge(a.addr(0), 64, a.mr.lkey())));
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_1));
        SendWr send = new SendWr().wrId(700).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(b.addr(0), 16, b.mr.lkey()));
        SendWr bindWr = new SendWr().wrId(701).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw)
                .bindRkey(SendWr.incRkey(mw.rkey()));
        bindWr.bindInfo().mr(b.mr).addr(b.addr(0)).length(64).mwAccessFlags(RW); // b.mr has no MW_BIND
        SendWr after = new SendWr().wrId(702).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(b.addr(0), 8, b.mr.lkey()));
        b.qp.postSend(send.next(bindWr.next(after)));
        List<WorkCompletion> wcs = pair.awaitN(b.cq, 3);
        assertEquals(700, wcs.get(0).wrId());
        assertEquals(WcStatus.SUCCESS, wcs.get(0).status(), wcs.toString());
        assertEquals(701, wcs.get(1).wrId());
        assertEquals(WcStatus.MW_BIND_ERR, wcs.get(1).status());
        assertEquals(702, wcs.get(2).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(2).status());
        assertEquals(QpState.ERR, b.qp.state());
        assertEquals(WcStatus.SUCCESS, pair.await(a.cq).status(), "the SEND was delivered");
    }

    @Test
    void shouldCompleteABindInSendQueueOrder() {
        a.qp.postRecv(new RecvWr().wrId(1).sg(new Sge(a.addr(0), 64, a.mr.lkey())));
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_1));
        b.qp.postSend(new SendWr().wrId(800).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(b.addr(0), 16, b.mr.lkey())));
        MwBind bind = new MwBind().wrId(801).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        int rkey = b.qp.bindMw(mw, bind);
        List<WorkCompletion> wcs = pair.awaitN(b.cq, 2);
        assertEquals(800, wcs.get(0).wrId());
        assertEquals(WcOpcode.SEND, wcs.get(0).opcode());
        assertEquals(801, wcs.get(1).wrId());
        assertEquals(WcOpcode.BIND_MW, wcs.get(1).opcode());
        assertEquals(WcStatus.SUCCESS, wcs.get(1).status());
        assertEquals(1, pair.await(a.cq).wrId(), "a received the SEND");
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr(), rkey, 64)).status());
    }

    @Test
    void shouldNotCompleteAnUnsignaledBind() {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind().wrId(900);
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        int rkey = b.qp.bindMw(mw, bind);
        pair.assertNoCompletion(b.cq, TimeUnit.MILLISECONDS.toNanos(50));
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr(), rkey, 64)).status(), "the bind ran all the same");
    }
}
