package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.Access;
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
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

/**
 * Protection domain isolation of memory regions and memory windows (IBA 10.2.3, 10.6.3): keys of one PD are useless
 * to a QP of another, locally (an lkey: refused at post) and remotely (an rkey: NAK remote access error), and a
 * window binds only to a region, and through a QP, of its own PD. Endpoint x is the requester, y the responder.
 */
public abstract class IsolationTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected IsolationTck() {
    }

    private static final int RW = Access.REMOTE_WRITE | Access.REMOTE_READ;

    private Side x;
    private Side y;
    /** A second PD on y's context. */
    private ProtectionDomain other;
    /** y's QP in {@link #other}, once {@link #connectTo} made it. */
    private QueuePair otherQp;

    private void connectPair() {
        Side[] p = rcPair(8192);
        x = p[0];
        y = p[1];
        other = closeLater(y.ctx.allocPd());
    }

    private SendWr write(Side from, long remote, int rkey) {
        return new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(from.sge(0, 32)).remote(remote, rkey)
                .signaled(true);
    }

    /** {@code bad} fails with REM_ACCESS_ERR at x, the SEND after it is flushed, and both QPs end in ERR. */
    private void assertRemoteAccessError(SendWr bad) {
        SendWr after = new SendWr().wrId(902).opcode(WrOpcode.SEND).sg(x.sge(0, 8)).signaled(true);
        x.qp.postSend(bad.wrId(901).signaled(true).next(after));
        assertEquals(901, await(x.cq, WcStatus.REM_ACCESS_ERR).wrId());
        assertEquals(902, await(x.cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, x.qp.state());
        awaitCondition("the responder QP in ERR", () -> y.qp.state() == QpState.ERR);
    }

    /** A new side on x's context connected to a new RC QP of {@code pd} on y's context ({@link #otherQp}). */
    private Side connectTo(ProtectionDomain pd) {
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
        otherQp = q;
        return x2;
    }

    @Test
    public void sendWithAnLkeyOfAnotherPdIsRefusedAtPost() {
        connectPair();
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        assertVerbsError(Errno.EINVAL, () -> y.qp.postSend(new SendWr().opcode(WrOpcode.SEND)
                .sg(new Sge(foreign.address(), 8, foreign.lkey()))));
    }

    @Test
    public void receiveWithAnLkeyOfAnotherPdIsRefusedAtPost() {
        connectPair();
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        assertVerbsError(Errno.EINVAL, () -> y.qp.postRecv(new RecvWr().sg(new Sge(foreign.address(), 8,
                foreign.lkey()))));
    }

    @Test
    public void rkeyOfARegionOfAnotherPdIsARemoteAccessError() {
        connectPair();
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        assertRemoteAccessError(write(x, foreign.address(), foreign.rkey()));
    }

    @Test
    public void rkeyOfARegionOfAnotherPdIsARemoteAccessErrorForReads() {
        connectPair();
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        assertRemoteAccessError(new SendWr().opcode(WrOpcode.RDMA_READ).sg(x.sge(0, 32))
                .remote(foreign.address(), foreign.rkey()));
    }

    @Test
    public void regionIsUsableThroughAQpOfItsOwnPd() {
        connectPair();
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        Side x2 = connectTo(other);
        fill(x2.buf.asSlice(0, 32), 31);
        x2.qp.postSend(write(x2, foreign.address(), foreign.rkey()).wrId(3));
        assertEquals(3, await(x2.cq, WcStatus.SUCCESS).wrId());
        assertEquals(-1, x2.buf.asSlice(0, 32).mismatch(foreign.segment().asSlice(0, 32)));
    }

    @Test
    public void windowOfAnotherPdIsARemoteAccessError() {
        connectPair();
        MemoryRegion mr = closeLater(other.registerMemory(buffer(4096), Access.LOCAL_WRITE | Access.MW_BIND));
        Side x2 = connectTo(other);
        MemoryWindow mw = closeLater(other.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind().wrId(4).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(mr).addr(mr.address()).length(4096).mwAccessFlags(RW);
        int rkey = otherQp.bindMw(mw, bind);
        WorkCompletion wc = await(y.cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        x2.qp.postSend(write(x2, mr.address(), rkey).wrId(5));
        assertEquals(5, await(x2.cq, WcStatus.SUCCESS).wrId(), "through a QP of the window's PD");
        assertRemoteAccessError(write(x, mr.address(), rkey));
    }

    @Test
    public void bindMwWithARegionOfAnotherPdIsEperm() {
        connectPair();
        MemoryRegion mr = closeLater(y.pd.registerMemory(buffer(4096), Access.LOCAL_WRITE | Access.MW_BIND));
        MemoryWindow mw = closeLater(other.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind();
        bind.bindInfo().mr(mr).addr(mr.address()).length(64).mwAccessFlags(RW);
        assertVerbsError(Errno.EPERM, () -> y.qp.bindMw(mw, bind));
    }

    @Test
    public void type2BindThroughAQpOfAnotherPdFails() {
        connectPair();
        MemoryRegion mr = closeLater(other.registerMemory(buffer(4096), Access.LOCAL_WRITE | Access.MW_BIND));
        MemoryWindow mw = closeLater(other.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().wrId(6).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw).bindRkey(0x10);
        wr.bindInfo().mr(mr).addr(mr.address()).length(64).mwAccessFlags(RW);
        SendWr after = new SendWr().wrId(7).opcode(WrOpcode.SEND).sg(y.sge(0, 8)).signaled(true);
        y.qp.postSend(wr.next(after)); // y's QP is in y.pd, the window in the other PD (C10-72)
        WorkCompletion wc = await(y.cq, WcStatus.MW_BIND_ERR);
        assertEquals(6, wc.wrId());
        assertEquals(WcOpcode.BIND_MW, wc.opcode());
        assertEquals(7, await(y.cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, y.qp.state());
    }

    @Test
    public void windowRkeyIsNotAnLkey() {
        connectPair();
        MemoryRegion mr = closeLater(y.pd.registerMemory(buffer(4096), Access.LOCAL_WRITE | Access.MW_BIND));
        MemoryWindow mw = closeLater(y.pd.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind().wrId(8).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(mr).addr(mr.address()).length(64).mwAccessFlags(RW);
        int rkey = y.qp.bindMw(mw, bind);
        await(y.cq, WcStatus.SUCCESS);
        assertVerbsError(Errno.EINVAL, () -> y.qp.postSend(new SendWr().opcode(WrOpcode.SEND)
                .sg(new Sge(mr.address(), 8, rkey))));
    }

    @Test
    public void pdWithAWindowCannotBeDeallocated() {
        connectPair();
        MemoryWindow mw = other.allocMw(MwType.TYPE_2);
        assertVerbsError(Errno.EBUSY, other::close);
        mw.close();
    }

    @Test
    public void sendWithInvalidateOfAWindowOfAnotherPdFails() {
        connectPair();
        MemoryRegion mr = closeLater(other.registerMemory(buffer(4096), Access.LOCAL_WRITE | Access.MW_BIND));
        connectTo(other);
        MemoryWindow mw = closeLater(other.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().wrId(9).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw).bindRkey(0x20);
        wr.bindInfo().mr(mr).addr(mr.address()).length(64).mwAccessFlags(RW);
        otherQp.postSend(wr);
        assertEquals(9, await(y.cq, WcStatus.SUCCESS).wrId());
        y.postRecv(10, 0, 64);
        x.qp.postSend(new SendWr().wrId(11).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(mw.rkey())
                .sg(x.sge(0, 16)).signaled(true));
        assertEquals(10, await(y.cq, WcStatus.REM_INV_REQ_ERR).wrId(), "y's QP is not in the window's PD");
        assertEquals(QpState.ERR, y.qp.state());
    }
}
