package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.DeviceCapFlags;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Ieth;
import io.jrdma.wire.Opcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory windows on the soft device (rxe_mw.c): type 1 binds with ibv_bind_mw, type 2 binds with BIND_MW work
 * requests, LOCAL_INV, SEND with Invalidate on the wire, remote access through windows and its violations, and
 * protection domain isolation of regions and windows. Peer a is the requester, peer b owns the windows.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryWindowTest {

    private static final int WINDOW_OFFSET = 4096;
    private static final int WINDOW_LENGTH = 4096;
    private static final int RW = Access.REMOTE_WRITE | Access.REMOTE_READ;

    private Pair pair;
    private Peer a;
    private Peer b;
    /** b's region that windows are bound to: no remote rights of its own, only MW_BIND. */
    private MemoryRegion bindable;
    private MemorySegment bindableBuf;
    private final List<AutoCloseable> extra = new ArrayList<>();

    @BeforeEach
    void connect() {
        pair = Pair.invoker("127.0.35.1", "127.0.35.2", 1 << 16);
        a = pair.a;
        b = pair.b;
        bindableBuf = b.arena.allocate(3 * 4096, 4096);
        bindable = b.pd.registerMemory(bindableBuf, Access.LOCAL_WRITE | Access.MW_BIND);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = extra.size() - 1; i >= 0; i--) {
            extra.get(i).close();
        }
        bindable.close();
        pair.close();
    }

    private <T extends AutoCloseable> T later(T resource) {
        extra.add(resource);
        return resource;
    }

    private long windowAddr() {
        return bindable.address() + WINDOW_OFFSET;
    }

    /** Binds a type 1 window of b over the window range with {@code rights}; waits for the bind's completion. */
    private MemoryWindow boundType1(int rights) {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_1));
        int before = mw.rkey();
        MwBind bind = new MwBind().wrId(501).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(WINDOW_LENGTH).mwAccessFlags(rights);
        int rkey = b.qp.bindMw(mw, bind);
        assertEquals(SendWr.incRkey(before), rkey, "ibv_bind_mw increments the key byte");
        assertEquals(rkey, mw.rkey());
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(501, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        return mw;
    }

    /** Binds a type 2 window of b through b's QP with key byte {@code keyByte}; waits for the completion. */
    private MemoryWindow boundType2(int rights, int keyByte) {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_2));
        bindType2(mw, rights, keyByte, WcStatus.SUCCESS);
        return mw;
    }

    private void bindType2(MemoryWindow mw, int rights, int keyByte, WcStatus expected) {
        SendWr wr = new SendWr().wrId(601).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw)
                .bindRkey((mw.rkey() & ~0xFF) | keyByte);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(WINDOW_LENGTH).mwAccessFlags(rights);
        b.qp.postSend(wr);
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(601, wc.wrId());
        assertEquals(expected, wc.status(), wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
    }

    private SendWr write(long remote, int rkey, int len) {
        return new SendWr().opcode(WrOpcode.RDMA_WRITE).sg(new Sge(a.addr(0), len, a.mr.lkey()))
                .remote(remote, rkey).signaled(true);
    }

    private SendWr read(long remote, int rkey, int len) {
        return new SendWr().opcode(WrOpcode.RDMA_READ).sg(new Sge(a.addr(8192), len, a.mr.lkey()))
                .remote(remote, rkey).signaled(true);
    }

    private WorkCompletion run(SendWr wr) {
        a.qp.postSend(wr.wrId(11));
        WorkCompletion wc = pair.await(a.cq);
        assertEquals(11, wc.wrId());
        return wc;
    }

    /**
     * Posts {@code bad} and a SEND after it at a: the first fails with REM_ACCESS_ERR, the second is flushed, and
     * both QPs are in ERR (class C at the responder).
     */
    private void assertRemoteAccessError(SendWr bad) {
        SendWr after = new SendWr().wrId(13).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(a.addr(0), 8, a.mr.lkey()));
        a.qp.postSend(bad.wrId(12).signaled(true).next(after));
        WorkCompletion first = pair.await(a.cq);
        assertEquals(12, first.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, first.status(), first.toString());
        WorkCompletion second = pair.await(a.cq);
        assertEquals(13, second.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, second.status());
        assertEquals(QpState.ERR, a.qp.state());
        long deadline = System.nanoTime() + Pair.WAIT_NS;
        while (b.qp.state() != QpState.ERR && System.nanoTime() < deadline) {
            pair.drive();
        }
        assertEquals(QpState.ERR, b.qp.state(), "the responder QP goes to ERR on a remote access error");
    }

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

    /** A bind that fails when it runs: MW_BIND_ERR, the QP in ERR, the next request flushed. */
    private void assertBindError(SendWr bindWr) {
        SendWr after = new SendWr().wrId(702).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(b.addr(0), 8, b.mr.lkey()));
        b.qp.postSend(bindWr.wrId(701).signaled(true).next(after));
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(701, wc.wrId());
        assertEquals(WcStatus.MW_BIND_ERR, wc.status(), wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        WorkCompletion next = pair.await(b.cq);
        assertEquals(702, next.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, next.status());
        assertEquals(QpState.ERR, b.qp.state());
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

    // ------------------------------------------------------------------------------------------------- type 2

    @Test
    void shouldWriteAndReadThroughType2Window() {
        MemoryWindow mw = boundType2(RW, 0x5A);
        assertEquals(0x5A, mw.rkey() & 0xFF, "the consumer's key byte");
        fill(a.buf.asSlice(0, 200), 9);
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr() + 64, mw.rkey(), 200)).status());
        assertEquals(-1, a.buf.asSlice(0, 200).mismatch(bindableBuf.asSlice(WINDOW_OFFSET + 64, 200)));
        assertEquals(WcStatus.SUCCESS, run(read(windowAddr() + 64, mw.rkey(), 200)).status());
        assertEquals(-1, a.buf.asSlice(8192, 200).mismatch(bindableBuf.asSlice(WINDOW_OFFSET + 64, 200)));
    }

    @Test
    void shouldKillAType2RkeyWithLocalInvalidateBadFlow() {
        MemoryWindow mw = boundType2(RW, 0x11);
        int rkey = mw.rkey();
        b.qp.postSend(new SendWr().wrId(602).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).signaled(true));
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(602, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    void shouldRebindAType2WindowAfterInvalidation() {
        MemoryWindow mw = boundType2(RW, 0x21);
        b.qp.postSend(new SendWr().wrId(602).opcode(WrOpcode.LOCAL_INV).invalidateRkey(mw.rkey()).signaled(true));
        assertEquals(WcStatus.SUCCESS, pair.await(b.cq).status());
        bindType2(mw, RW, 0x22, WcStatus.SUCCESS);
        assertEquals(0x22, mw.rkey() & 0xFF);
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr(), mw.rkey(), 32)).status());
    }

    @Test
    void shouldFailBindingABoundType2WindowBadFlow() {
        MemoryWindow mw = boundType2(RW, 0x31);
        SendWr wr = new SendWr().opcode(WrOpcode.BIND_MW).mw(mw).bindRkey(0x32);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        assertBindError(wr);
    }

    @Test
    void shouldFailAZeroLengthType2BindBadFlow() {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().opcode(WrOpcode.BIND_MW).mw(mw).bindRkey(0x41);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(0).mwAccessFlags(RW);
        assertBindError(wr);
    }

    @Test
    void shouldFailLocalInvalidateOfAType1WindowBadFlow() {
        MemoryWindow mw = boundType1(RW);
        assertLocalInvalidateError(mw.rkey());
    }

    @Test
    void shouldFailLocalInvalidateOfARegionRkeyBadFlow() {
        assertLocalInvalidateError(bindable.rkey());
    }

    private void assertLocalInvalidateError(int rkey) {
        SendWr after = new SendWr().wrId(702).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(b.addr(0), 8, b.mr.lkey()));
        b.qp.postSend(new SendWr().wrId(701).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).signaled(true)
                .next(after));
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(701, wc.wrId());
        assertEquals(WcStatus.LOC_QP_OP_ERR, wc.status(), "rxe_do_local_ops: " + wc);
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertEquals(WcStatus.WR_FLUSH_ERR, pair.await(b.cq).status());
        assertEquals(QpState.ERR, b.qp.state());
    }

    @Test
    void shouldInvalidateWithSendWithInvalidateOnTheWire() {
        MemoryWindow mw = boundType2(RW, 0x66);
        int rkey = mw.rkey();
        List<byte[]> sent = new ArrayList<>();
        a.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (tx) {
                sent.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            }
        });
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        fill(a.buf.asSlice(0, 100), 4);
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey).signaled(true)
                .sg(new Sge(a.addr(0), 100, a.mr.lkey())));
        WorkCompletion s = pair.await(a.cq);
        assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = pair.await(b.cq);
        assertEquals(41, r.wrId());
        assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(100, r.byteLen());
        assertEquals(WcFlags.WITH_INV, r.wcFlags() & (WcFlags.WITH_INV | WcFlags.WITH_IMM));
        assertEquals(rkey, r.invalidatedRkey());
        assertEquals(-1, a.buf.asSlice(0, 100).mismatch(b.buf.asSlice(0, 100)));
        a.ctx.tap(null);

        byte[] pkt = sent.getFirst();
        MemorySegment seg = MemorySegment.ofArray(pkt);
        assertEquals(Opcode.RC_SEND_ONLY_WITH_INVALIDATE.code(), Bth.opcode(seg, 0));
        assertEquals(0x17, pkt[0] & 0xFF, "RC SEND Only with Invalidate");
        assertEquals(rkey, Ieth.rkey(seg, 12), "IETH right after the BTH");
        assertEquals((byte) (rkey >>> 24), pkt[12], "big-endian R_Key");
        assertEquals((byte) rkey, pkt[15]);
        assertEquals(12 + 4 + 100 + 4, pkt.length, "BTH, IETH, payload, ICRC");
        assertEquals(-1, a.buf.asSlice(0, 100).mismatch(seg.asSlice(16, 100)));

        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    void shouldPutIethOnlyOnTheLastPacketOfAMultiPacketSendWithInvalidate() {
        MemoryWindow mw = boundType2(RW, 0x67);
        List<Integer> opcodes = new ArrayList<>();
        a.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (tx) {
                opcodes.add(Bth.opcode(p, off));
            }
        });
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 4096, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(mw.rkey()).signaled(true)
                .sg(new Sge(a.addr(0), 2500, a.mr.lkey())));
        assertEquals(WcStatus.SUCCESS, pair.await(a.cq).status());
        WorkCompletion r = pair.await(b.cq);
        assertEquals(2500, r.byteLen());
        assertEquals(mw.rkey(), r.invalidatedRkey());
        a.ctx.tap(null);
        assertEquals(List.of(Opcode.RC_SEND_FIRST.code(), Opcode.RC_SEND_MIDDLE.code(),
                Opcode.RC_SEND_LAST_WITH_INVALIDATE.code()), opcodes);
    }

    @Test
    void shouldFailSendWithInvalidateOfARegionRkeyAtTheReceiverBadFlow() {
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        b.qp.postRecv(new RecvWr().wrId(42).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(bindable.rkey())
                .signaled(true).sg(new Sge(a.addr(0), 100, a.mr.lkey())));
        WorkCompletion r = pair.await(b.cq);
        assertEquals(41, r.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, r.status(), "rxe: RESPST_ERR_INVALIDATE_RKEY, class J: " + r);
        WorkCompletion flushed = pair.await(b.cq);
        assertEquals(42, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        assertEquals(QpState.ERR, b.qp.state());
        WorkCompletion s = pair.await(a.cq);
        assertEquals(WcStatus.SUCCESS, s.status(), "rxe acknowledges the SEND itself: " + s);
    }

    @Test
    void shouldFailSendWithInvalidateOfAType1WindowBadFlow() {
        MemoryWindow mw = boundType1(RW);
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(mw.rkey())
                .signaled(true).sg(new Sge(a.addr(0), 10, a.mr.lkey())));
        assertEquals(WcStatus.REM_INV_REQ_ERR, pair.await(b.cq).status());
        assertEquals(QpState.ERR, b.qp.state());
    }

    // ------------------------------------------------------------------------------------------------- PDs

    /** A second RC connection between a and b whose b end is in {@code bPd}. */
    private QueuePair[] secondConnection(ProtectionDomain bPd) {
        QueuePair qa = later(a.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(a.cq).recvCq(a.cq)
                .cap(Peer.defaultCap())));
        QueuePair qb = later(bPd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(b.cq).recvCq(b.cq)
                .cap(Peer.defaultCap())));
        connect(qa, qb.qpNum(), b.ctx);
        connect(qb, qa.qpNum(), a.ctx);
        return new QueuePair[] {qa, qb};
    }

    private static void connect(QueuePair qp, int remoteQpn, SoftContext remote) {
        Peer.connect(qp, remoteQpn, remote.queryGid(1, 1), new Peer.Link());
    }

    @Test
    void shouldRefuseAnRkeyOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryRegion foreign = later(other.registerMemory(b.arena.allocate(4096, 4096), Peer.ALL_ACCESS));
        assertRemoteAccessError(write(foreign.address(), foreign.rkey(), 32));
    }

    @Test
    void shouldRefuseAWindowOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryRegion mr = later(other.registerMemory(b.arena.allocate(4096, 4096), Access.LOCAL_WRITE
                | Access.MW_BIND));
        QueuePair[] second = secondConnection(other);
        MemoryWindow mw = later(other.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind().wrId(1).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(mr).addr(mr.address()).length(4096).mwAccessFlags(RW);
        int rkey = second[1].bindMw(mw, bind);
        assertEquals(WcStatus.SUCCESS, pair.await(b.cq).status());
        // usable through the connection whose responder is in the window's PD ...
        second[0].postSend(write(mr.address(), rkey, 32).wrId(5));
        WorkCompletion ok = pair.await(a.cq);
        assertEquals(5, ok.wrId());
        assertEquals(WcStatus.SUCCESS, ok.status(), ok.toString());
        // ... but not through one in another PD
        assertRemoteAccessError(write(mr.address(), rkey, 32));
    }

    @Test
    void shouldOnlyLetTheBindingQpUseAType2WindowBadFlow() {
        QueuePair[] second = secondConnection(b.pd);
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().wrId(3).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw).bindRkey(0x77);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(WINDOW_LENGTH).mwAccessFlags(RW);
        second[1].postSend(wr); // bound by b's second QP
        assertEquals(WcStatus.SUCCESS, pair.await(b.cq).status());
        second[0].postSend(write(windowAddr(), mw.rkey(), 32).wrId(6));
        WorkCompletion ok = pair.await(a.cq);
        assertEquals(6, ok.wrId());
        assertEquals(WcStatus.SUCCESS, ok.status(), ok.toString());
        assertRemoteAccessError(write(windowAddr(), mw.rkey(), 32)); // through b's first QP
    }

    @Test
    void shouldRefuseIbvBindMwWithARegionOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryWindow mw = later(other.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind();
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        VerbsException e = assertThrows(VerbsException.class, () -> b.qp.bindMw(mw, bind));
        assertEquals(Errno.EPERM, e.errno(), "rxe's provider: MR and MW of different PDs");
    }

    @Test
    void shouldFailType2BindThroughAQpOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryWindow mw = later(other.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().opcode(WrOpcode.BIND_MW).mw(mw).bindRkey(0x12);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        assertBindError(wr); // C10-72
    }

    @Test
    void shouldRefuseAWindowRkeyAsAnLkeyBadFlow() {
        MemoryWindow mw = boundType1(RW);
        VerbsException e = assertThrows(VerbsException.class, () -> b.qp.postSend(new SendWr().opcode(
                WrOpcode.SEND).sg(new Sge(windowAddr(), 8, mw.rkey()))));
        assertEquals(Errno.EINVAL, e.errno());
    }

    @Test
    void shouldReportMemoryWindowsInQueryDevice() {
        DeviceAttr attr = b.ctx.queryDevice();
        assertTrue(attr.maxMw() > 0);
        assertEquals(DeviceCapFlags.MEM_WINDOW, attr.deviceCapFlags() & DeviceCapFlags.MEM_WINDOW);
        assertEquals(DeviceCapFlags.MEM_WINDOW_TYPE_2B, attr.deviceCapFlags() & DeviceCapFlags.MEM_WINDOW_TYPE_2B);
    }

    @Test
    void shouldGiveWindowsKeysOutsideTheRegionsKeySpace() {
        MemoryWindow w1 = later(b.pd.allocMw(MwType.TYPE_1));
        MemoryWindow w2 = later(b.pd.allocMw(MwType.TYPE_2));
        assertNotEquals(w1.rkey() >>> 8, w2.rkey() >>> 8);
        assertTrue(w1.rkey() >>> 8 >= SoftLimits.MAX_MR, "window slots follow the region slots");
        assertEquals(MwType.TYPE_2, w2.type());
        assertEquals(b.pd, w2.pd());
    }

    private static void fill(MemorySegment seg, int seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7));
        }
    }
}
