package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * Memory windows (ibv_alloc_mw, ibv_bind_mw, IBV_WR_BIND_MW, IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV) on RC, as
 * kernel rxe implements them: type 1 windows bound with {@link QueuePair#bindMw}, type 2B windows bound with a
 * work request and usable only through the QP that bound them, remote access checked against the window's range
 * and rights, and invalidation. Endpoint x is the requester, endpoint y owns the windows.
 */
public abstract class MwTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected MwTck() {
    }

    private static final int RW = Access.REMOTE_WRITE | Access.REMOTE_READ;
    private static final int WINDOW_OFFSET = 4096;
    private static final int WINDOW_LENGTH = 4096;

    private Side x;
    private Side y;
    private MemorySegment bindBuf;
    /** y's region that windows are bound to: MW_BIND and LOCAL_WRITE, but no remote rights of its own. */
    private MemoryRegion bindable;

    private void connectPair() {
        Side[] p = rcPair(16384);
        x = p[0];
        y = p[1];
        bindBuf = buffer(3 * 4096);
        bindable = closeLater(y.pd.registerMemory(bindBuf, Access.LOCAL_WRITE | Access.MW_BIND));
    }

    private long windowAddr() {
        return bindable.address() + WINDOW_OFFSET;
    }

    private MwBind bindOf(long wrId, MemoryRegion mr, long addr, long length, int rights) {
        MwBind bind = new MwBind().wrId(wrId).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(mr).addr(addr).length(length).mwAccessFlags(rights);
        return bind;
    }

    /** A type 1 window of y bound over the window range with {@code rights}, its bind completed. */
    private MemoryWindow type1(int rights) {
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_1));
        y.qp.bindMw(mw, bindOf(51, bindable, windowAddr(), WINDOW_LENGTH, rights));
        WorkCompletion wc = await(y.cq, WcStatus.SUCCESS);
        assertEquals(51, wc.wrId());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        return mw;
    }

    private SendWr bindWr(long wrId, MemoryWindow mw, int keyByte, long length, int rights) {
        SendWr wr = new SendWr().wrId(wrId).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw)
                .bindRkey((mw.rkey() & ~0xFF) | keyByte);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(length).mwAccessFlags(rights);
        return wr;
    }

    /** A type 2 window of y bound by y's QP with key byte {@code keyByte}, its bind completed. */
    private MemoryWindow type2(int rights, int keyByte) {
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_2));
        y.qp.postSend(bindWr(61, mw, keyByte, WINDOW_LENGTH, rights));
        WorkCompletion wc = await(y.cq, WcStatus.SUCCESS);
        assertEquals(61, wc.wrId());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        return mw;
    }

    private SendWr write(long remote, int rkey, int len) {
        return write(x, remote, rkey, len);
    }

    private static SendWr write(Side from, long remote, int rkey, int len) {
        return new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(from.sge(0, len)).remote(remote, rkey)
                .signaled(true);
    }

    private SendWr read(long remote, int rkey, int len) {
        return new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sg(x.sge(8192, len)).remote(remote, rkey)
                .signaled(true);
    }

    private WorkCompletion complete(SendWr wr) {
        x.qp.postSend(wr);
        WorkCompletion wc = await(x.cq);
        assertEquals(wr.wrId(), wc.wrId());
        return wc;
    }

    /** {@code bad} fails with REM_ACCESS_ERR, the SEND after it is flushed, and both QPs end in ERR. */
    private void assertRemoteAccessError(SendWr bad) {
        SendWr after = new SendWr().wrId(902).opcode(WrOpcode.SEND).sg(x.sge(0, 8)).signaled(true);
        x.qp.postSend(bad.wrId(901).signaled(true).next(after));
        WorkCompletion first = await(x.cq, WcStatus.REM_ACCESS_ERR);
        assertEquals(901, first.wrId());
        WorkCompletion second = await(x.cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(902, second.wrId());
        assertEquals(QpState.ERR, x.qp.state());
        awaitCondition("the responder QP in ERR", () -> y.qp.state() == QpState.ERR);
    }

    /** y's {@code wr} (a bind) completes with MW_BIND_ERR, the SEND after it is flushed, y's QP is in ERR. */
    private void assertBindError(SendWr wr) {
        SendWr after = new SendWr().wrId(702).opcode(WrOpcode.SEND).sg(y.sge(0, 8)).signaled(true);
        y.qp.postSend(wr.wrId(701).signaled(true).next(after));
        assertType1BindErrorCompletion();
    }

    private void assertType1BindErrorCompletion() {
        WorkCompletion wc = await(y.cq, WcStatus.MW_BIND_ERR);
        assertEquals(701, wc.wrId());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        WorkCompletion next = await(y.cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(702, next.wrId());
        assertEquals(QpState.ERR, y.qp.state());
    }

    /** ibv_bind_mw of a type 1 window that fails when it runs; the SEND after it is flushed. */
    private void assertType1BindError(MemoryRegion mr, long addr, long len, int rights) {
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_1));
        y.qp.bindMw(mw, bindOf(701, mr, addr, len, rights));
        y.qp.postSend(new SendWr().wrId(702).opcode(WrOpcode.SEND).sg(y.sge(0, 8)).signaled(true));
        assertType1BindErrorCompletion();
    }

    /** A second RC connection: a new side on x's context, and a new QP of {@code pd} on y's context sharing y's CQ. */
    private Connection secondConnection(ProtectionDomain pd) {
        Side x2 = sideA(4096, ALL_ACCESS);
        x2.createQp(QpType.RC);
        QueuePair q = closeLater(pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(y.cq).recvCq(y.cq)
                .cap(defaultCap())));
        QueuePair first = y.qp;
        y.qp = q;
        try {
            connect(x2, y, new Link());
            connect(y, x2, new Link());
        } finally {
            y.qp = first;
        }
        return new Connection(x2, q);
    }

    /** A requester side and the responder QP it is connected to. */
    private record Connection(Side requester, QueuePair responder) {
    }

    // --------------------------------------------------------------------------------------------- type 1

    @Test
    public void allocatesWindowsOfBothTypes() {
        connectPair();
        MemoryWindow w1 = closeLater(y.pd.allocMw(MwType.TYPE_1));
        MemoryWindow w2 = closeLater(y.pd.allocMw(MwType.TYPE_2));
        assertEquals(MwType.TYPE_1, w1.type());
        assertEquals(MwType.TYPE_2, w2.type());
        assertEquals(y.pd, w1.pd());
        assertNotEquals(w1.rkey() >>> 8, w2.rkey() >>> 8, "each window has its own key index");
    }

    @Test
    public void type1BindReturnsTheIncrementedRkeyAndCompletesAsBindMw() {
        connectPair();
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_1));
        int before = mw.rkey();
        int rkey = y.qp.bindMw(mw, bindOf(52, bindable, windowAddr(), 64, RW));
        assertEquals(SendWr.incRkey(before), rkey);
        assertEquals(rkey, mw.rkey());
        WorkCompletion wc = await(y.cq, WcStatus.SUCCESS);
        assertEquals(52, wc.wrId());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertEquals(y.qp.qpNum(), wc.qpNum());
    }

    @Test
    public void type1WindowCarriesWritesAndReads() {
        connectPair();
        MemoryWindow mw = type1(RW);
        fill(x.buf.asSlice(0, 700), 21);
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr() + 300, mw.rkey(), 700)).status());
        assertEquals(-1, x.buf.asSlice(0, 700).mismatch(bindBuf.asSlice(WINDOW_OFFSET + 300, 700)),
                "the window grants REMOTE_WRITE although its region does not");
        WorkCompletion rd = complete(read(windowAddr() + 300, mw.rkey(), 700));
        assertEquals(WcStatus.SUCCESS, rd.status());
        assertEquals(WcOpcode.RDMA_READ, rd.opcode());
        assertEquals(700, rd.byteLen());
        assertEquals(-1, x.buf.asSlice(8192, 700).mismatch(bindBuf.asSlice(WINDOW_OFFSET + 300, 700)));
    }

    @Test
    public void type1WindowRefusesAWritePastItsEnd() {
        connectPair();
        MemoryWindow mw = type1(RW);
        assertRemoteAccessError(write(windowAddr() + WINDOW_LENGTH - 16, mw.rkey(), 32));
    }

    @Test
    public void type1WindowRefusesAReadBeforeItsStart() {
        connectPair();
        MemoryWindow mw = type1(RW);
        assertRemoteAccessError(read(windowAddr() - 16, mw.rkey(), 32));
    }

    @Test
    public void windowWithoutRemoteReadRefusesReads() {
        connectPair();
        MemoryWindow mw = type1(Access.REMOTE_WRITE);
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr(), mw.rkey(), 32)).status());
        assertRemoteAccessError(read(windowAddr(), mw.rkey(), 32));
    }

    @Test
    public void rebindingAType1WindowRetiresItsOldRkey() {
        connectPair();
        MemoryWindow mw = type1(RW);
        int old = mw.rkey();
        int fresh = y.qp.bindMw(mw, bindOf(53, bindable, windowAddr(), WINDOW_LENGTH, RW));
        assertNotEquals(old, fresh);
        await(y.cq, WcStatus.SUCCESS);
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr(), fresh, 32)).status());
        assertRemoteAccessError(write(windowAddr(), old, 32));
    }

    @Test
    public void zeroLengthBindUnbindsAType1Window() {
        connectPair();
        MemoryWindow mw = type1(RW);
        int rkey = y.qp.bindMw(mw, new MwBind().wrId(54).sendFlags(SendFlags.SIGNALED));
        WorkCompletion wc = await(y.cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    public void deallocatedWindowsRkeyIsDead() {
        connectPair();
        MemoryWindow mw = type1(RW);
        int rkey = mw.rkey();
        mw.close();
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    public void regionWithABoundWindowCannotBeDeregistered() {
        connectPair();
        MemoryWindow mw = type1(RW);
        assertVerbsError(Errno.EINVAL, bindable::close);
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr(), mw.rkey(), 32)).status(), "still registered");
        mw.close();
        bindable.close();
    }

    @Test
    public void bindMwRefusesAType2Window() {
        connectPair();
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_2));
        assertVerbsError(Errno.EINVAL, () -> y.qp.bindMw(mw, bindOf(1, bindable, windowAddr(), 64, RW)));
    }

    @Test
    public void bindToARegionWithoutMwBindFails() {
        connectPair();
        assertType1BindError(y.mr, y.addr(0), 64, RW);
    }

    @Test
    public void bindReachingPastTheRegionFails() {
        connectPair();
        assertType1BindError(bindable, bindable.address() + bindable.length() - 32, 64, RW);
    }

    @Test
    public void writableWindowNeedsLocalWriteOnTheRegion() {
        connectPair();
        MemoryRegion noLocalWrite = closeLater(y.pd.registerMemory(buffer(4096), Access.MW_BIND
                | Access.REMOTE_READ));
        assertType1BindError(noLocalWrite, noLocalWrite.address(), 64, Access.REMOTE_WRITE);
    }

    @Test
    public void bindCompletesAfterTheRequestsPostedBeforeIt() {
        connectPair();
        x.postRecv(5, 0, 64);
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_1));
        y.qp.postSend(new SendWr().wrId(55).opcode(WrOpcode.SEND).sg(y.sge(0, 16)).signaled(true));
        int rkey = y.qp.bindMw(mw, bindOf(56, bindable, windowAddr(), 64, RW));
        WorkCompletion first = await(y.cq, WcStatus.SUCCESS);
        assertEquals(55, first.wrId());
        assertEquals(WcOpcode.SEND, first.opcode());
        WorkCompletion second = await(y.cq, WcStatus.SUCCESS);
        assertEquals(56, second.wrId());
        assertEquals(WcOpcode.BIND_MW, second.opcode());
        assertEquals(5, await(x.cq, WcStatus.SUCCESS).wrId());
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr(), rkey, 64)).status());
    }

    // --------------------------------------------------------------------------------------------- type 2

    @Test
    public void type2BindGivesTheConsumersKeyAndCarriesWritesAndReads() {
        connectPair();
        MemoryWindow mw = type2(RW, 0x3C);
        assertEquals(0x3C, mw.rkey() & 0xFF);
        fill(x.buf.asSlice(0, 100), 22);
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr() + 8, mw.rkey(), 100)).status());
        assertEquals(-1, x.buf.asSlice(0, 100).mismatch(bindBuf.asSlice(WINDOW_OFFSET + 8, 100)));
        assertEquals(WcStatus.SUCCESS, complete(read(windowAddr() + 8, mw.rkey(), 100)).status());
        assertEquals(-1, x.buf.asSlice(8192, 100).mismatch(bindBuf.asSlice(WINDOW_OFFSET + 8, 100)));
    }

    @Test
    public void type2WindowServesOnlyTheQpThatBoundIt() {
        connectPair();
        Connection second = secondConnection(y.pd);
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_2));
        second.responder().postSend(bindWr(62, mw, 0x45, WINDOW_LENGTH, RW));
        assertEquals(62, await(y.cq, WcStatus.SUCCESS).wrId());
        Side x2 = second.requester();
        fill(x2.buf.asSlice(0, 32), 24);
        x2.qp.postSend(write(x2, windowAddr(), mw.rkey(), 32).wrId(63));
        assertEquals(63, await(x2.cq, WcStatus.SUCCESS).wrId(), "through the QP that bound the window");
        assertEquals(-1, x2.buf.asSlice(0, 32).mismatch(bindBuf.asSlice(WINDOW_OFFSET, 32)));
        assertRemoteAccessError(write(windowAddr(), mw.rkey(), 32)); // through y's first QP, same PD
    }

    @Test
    public void localInvalidateKillsAType2Rkey() {
        connectPair();
        MemoryWindow mw = type2(RW, 0x4D);
        int rkey = mw.rkey();
        y.qp.postSend(new SendWr().wrId(64).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).signaled(true));
        WorkCompletion wc = await(y.cq, WcStatus.SUCCESS);
        assertEquals(64, wc.wrId());
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    public void type2WindowCanBeBoundAgainAfterInvalidation() {
        connectPair();
        MemoryWindow mw = type2(RW, 0x50);
        y.qp.postSend(new SendWr().wrId(65).opcode(WrOpcode.LOCAL_INV).invalidateRkey(mw.rkey()).signaled(true));
        await(y.cq, WcStatus.SUCCESS);
        y.qp.postSend(bindWr(66, mw, 0x51, WINDOW_LENGTH, RW));
        assertEquals(66, await(y.cq, WcStatus.SUCCESS).wrId());
        assertEquals(0x51, mw.rkey() & 0xFF);
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr(), mw.rkey(), 32)).status());
    }

    @Test
    public void boundType2WindowCannotBeBoundAgain() {
        connectPair();
        MemoryWindow mw = type2(RW, 0x60);
        assertBindError(bindWr(0, mw, 0x61, 64, RW));
    }

    @Test
    public void zeroLengthType2BindFails() {
        connectPair();
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_2));
        assertBindError(bindWr(0, mw, 0x62, 0, RW));
    }

    @Test
    public void localInvalidateOfAType1WindowFails() {
        connectPair();
        MemoryWindow mw = type1(RW);
        SendWr after = new SendWr().wrId(67).opcode(WrOpcode.SEND).sg(y.sge(0, 8)).signaled(true);
        y.qp.postSend(new SendWr().wrId(68).opcode(WrOpcode.LOCAL_INV).invalidateRkey(mw.rkey()).signaled(true)
                .next(after));
        WorkCompletion wc = await(y.cq, WcStatus.LOC_QP_OP_ERR);
        assertEquals(68, wc.wrId());
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertEquals(67, await(y.cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, y.qp.state());
    }

    @Test
    public void sendWithInvalidateInvalidatesTheReceiversWindow() {
        connectPair();
        MemoryWindow mw = type2(RW, 0x70);
        int rkey = mw.rkey();
        y.postRecv(71, 0, 256);
        fill(x.buf.asSlice(0, 123), 23);
        x.qp.postSend(new SendWr().wrId(72).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey)
                .sg(x.sge(0, 123)).signaled(true));
        WorkCompletion s = await(x.cq, WcStatus.SUCCESS);
        assertEquals(72, s.wrId());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = await(y.cq, WcStatus.SUCCESS);
        assertEquals(71, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(123, r.byteLen());
        assertTrue((r.wcFlags() & WcFlags.WITH_INV) != 0, "WITH_INV: " + r);
        assertEquals(0, r.wcFlags() & WcFlags.WITH_IMM);
        assertEquals(rkey, r.invalidatedRkey());
        assertEquals(-1, x.buf.asSlice(0, 123).mismatch(y.buf.asSlice(0, 123)));
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    public void sendWithInvalidateOfARegionsRkeyFailsAtTheReceiver() {
        connectPair();
        y.postRecv(73, 0, 256);
        y.postRecv(74, 0, 256);
        x.qp.postSend(new SendWr().wrId(75).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(bindable.rkey())
                .sg(x.sge(0, 16)).signaled(true));
        assertEquals(73, await(y.cq, WcStatus.REM_INV_REQ_ERR).wrId());
        assertEquals(74, await(y.cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, y.qp.state());
    }

    @Test
    public void deviceReportsMemoryWindows() {
        DeviceAttr attr = a.queryDevice();
        assertTrue(attr.maxMw() > 0, "max_mw");
        assertEquals(DeviceCapFlags.MEM_WINDOW, attr.deviceCapFlags() & DeviceCapFlags.MEM_WINDOW);
        assertEquals(DeviceCapFlags.MEM_WINDOW_TYPE_2B, attr.deviceCapFlags() & DeviceCapFlags.MEM_WINDOW_TYPE_2B);
    }

    @Test
    public void unsignaledBindRunsWithoutACompletion() {
        connectPair();
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_1));
        int rkey = y.qp.bindMw(mw, bindOf(76, bindable, windowAddr(), 64, RW).sendFlags(0));
        assertEquals(WcStatus.SUCCESS, complete(write(windowAddr(), rkey, 64)).status());
        assertNoCompletion(y.cq, 20);
    }

    @Test
    public void plainSendCarriesNoInvalidateFlag() {
        connectPair();
        type1(RW);
        y.qp.postRecv(new RecvWr().wrId(77).sg(y.sge(0, 64)));
        x.qp.postSend(new SendWr().wrId(78).opcode(WrOpcode.SEND).sg(x.sge(0, 64)).signaled(true));
        assertEquals(78, await(x.cq, WcStatus.SUCCESS).wrId());
        WorkCompletion r = await(y.cq, WcStatus.SUCCESS);
        assertEquals(77, r.wrId());
        assertEquals(0, r.wcFlags() & WcFlags.WITH_INV, "a plain SEND invalidates nothing");
    }
    @Test
    public void atomicsWorkThroughAWindowThatGrantsThem() {
        connectPair();
        MemoryWindow mw = type1(Access.REMOTE_ATOMIC);
        bindBuf.set(ValueLayout.JAVA_LONG, WINDOW_OFFSET + 8, 40);
        SendWr faa = new SendWr().wrId(81).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sg(x.sge(64, 8))
                .remote(windowAddr() + 8, mw.rkey()).compareAdd(2).signaled(true);
        WorkCompletion wc = complete(faa);
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.FETCH_ADD, wc.opcode());
        assertEquals(40, x.buf.get(ValueLayout.JAVA_LONG, 64), "the original value");
        assertEquals(42, bindBuf.get(ValueLayout.JAVA_LONG, WINDOW_OFFSET + 8));
    }

    @Test
    public void windowWithoutRemoteAtomicRefusesAtomics() {
        connectPair();
        MemoryWindow mw = type1(RW);
        assertRemoteAccessError(new SendWr().opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sg(x.sge(64, 8))
                .remote(windowAddr(), mw.rkey()).compareAdd(0).swap(1));
        assertEquals(0, bindBuf.get(ValueLayout.JAVA_LONG, WINDOW_OFFSET), "memory untouched");
    }
}
