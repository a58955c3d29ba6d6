package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.SrqAttrMask;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared receive queue verbs on the soft device: limits reported like rxe, the checks of modify, resize,
 * posting and of a QP that uses an SRQ, another PD or context, and destruction order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SrqVerbsTest extends SrqFixture {

    // ------------------------------------------------------------------------------------------------- verbs

    @Test
    void shouldReportSrqLimitsLikeRxeAndCheckThemBadFlow() {
        DeviceAttr d = r.ctx.queryDevice();
        assertEquals(SoftLimits.MAX_SRQ, d.maxSrq());
        assertEquals(SoftLimits.MAX_SRQ_WR, d.maxSrqWr());
        assertEquals(27, d.maxSrqSge());
        assertNotEquals(0, d.deviceCapFlags() & io.jrdma.verbs.DeviceCapFlags.SRQ_RESIZE, "rxe resizes SRQs");
        ProtectionDomain pd = r.pd;
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(0).maxSge(1))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(d.maxSrqWr() + 1).maxSge(1))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(8).maxSge(d.maxSrqSge() + 1))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> pd.createSrq(new SrqAttr().maxWr(8).maxSge(1).srqLimit(9))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> pd.createSrq(null)).errno());
        SharedReceiveQueue s = later(pd.createSrq(new SrqAttr().maxWr(d.maxSrqWr()).maxSge(0)));
        SrqAttr q = s.query(new SrqAttr());
        assertEquals(d.maxSrqWr(), q.maxWr());
        assertEquals(1, q.maxSge(), "max_sge 0 is raised to 1 (RXE_MIN_SRQ_SGE)");
        assertEquals(0, q.srqLimit());
        assertSame(pd, s.pd());
        SharedReceiveQueue armed = later(pd.createSrq(new SrqAttr().maxWr(8).maxSge(1).srqLimit(2)));
        assertEquals(2, armed.query(new SrqAttr()).srqLimit(), "as rxe_srq_from_init, a limit given at creation arms");
    }

    @Test
    void shouldCheckModifyAndResizeKeepingPostedWqesBadFlow() {
        SharedReceiveQueue srq = srq(4, 1);
        for (int i = 0; i < 4; i++) {
            postSrqRecv(srq, i, i * 1024L, 1024);
        }
        VerbsException full = assertThrows(VerbsException.class, () -> postSrqRecv(srq, 4, 0, 8));
        assertEquals(Errno.ENOMEM, full.errno());
        assertEquals(0, full.badWrIndex());
        assertModifyFails(srq, new SrqAttr().srqLimit(5), SrqAttrMask.LIMIT); // above max_wr 4
        assertModifyFails(srq, new SrqAttr().srqLimit(-1), SrqAttrMask.LIMIT);
        assertModifyFails(srq, new SrqAttr().maxWr(0), SrqAttrMask.MAX_WR);
        assertModifyFails(srq, new SrqAttr().maxWr(3), SrqAttrMask.MAX_WR); // below the 4 posted
        assertModifyFails(srq, new SrqAttr().maxWr(SoftLimits.MAX_SRQ_WR + 1), SrqAttrMask.MAX_WR);
        assertEquals(4, srq.query(new SrqAttr()).maxWr(), "a refused modify changes nothing");

        srq.modify(new SrqAttr().maxWr(8).srqLimit(6), EnumSet.of(SrqAttrMask.MAX_WR, SrqAttrMask.LIMIT));
        SrqAttr q = srq.query(new SrqAttr());
        assertEquals(8, q.maxWr());
        assertEquals(6, q.srqLimit());
        assertModifyFails(srq, new SrqAttr().maxWr(5), SrqAttrMask.MAX_WR); // below the armed limit 6
        for (int i = 4; i < 8; i++) {
            postSrqRecv(srq, i, i * 1024L, 1024);
        }
        assertEquals(Errno.ENOMEM, assertThrows(VerbsException.class, () -> postSrqRecv(srq, 8, 0, 8)).errno());

        QueuePair r1 = srqQp(srq);
        QueuePair a1 = qpOn(s1, Peer.defaultCap());
        link(r1, r, a1, s1);
        for (int i = 0; i < 8; i++) {
            a1.postSend(send(s1, i, 0, 32));
        }
        List<WorkCompletion> got = awaitN(r.cq, 8);
        for (int i = 0; i < 8; i++) {
            assertEquals(i, got.get(i).wrId(), "the WQEs kept their order across the resize");
            assertEquals(WcStatus.SUCCESS, got.get(i).status());
        }
        AsyncEvent e = Wiring.awaitEvent(r.ctx, r.ctx, s1.ctx);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
    }

    private static void assertModifyFails(SharedReceiveQueue srq, SrqAttr attr, SrqAttrMask mask) {
        VerbsException e = assertThrows(VerbsException.class, () -> srq.modify(attr, EnumSet.of(mask)));
        assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
    }

    @Test
    void shouldCheckPostedReceivesBadFlow() {
        SharedReceiveQueue srq = srq(8, 2);
        Sge ok = new Sge(r.addr(0), 64, r.mr.lkey());
        VerbsException tooMany = assertThrows(VerbsException.class,
                () -> srq.postRecv(new RecvWr().wrId(1).sg(ok, ok, ok)));
        assertEquals(Errno.EINVAL, tooMany.errno());
        assertTrue(tooMany.getMessage().contains("max_sge"), tooMany.getMessage());
        ProtectionDomain other = later(r.ctx.allocPd());
        var foreignMr = later(other.registerMemory(r.buf.asSlice(0, 4096), Peer.ALL_ACCESS));
        VerbsException foreign = assertThrows(VerbsException.class, () -> srq.postRecv(new RecvWr().wrId(1)
                .sg(ok).next(new RecvWr().wrId(2).sg(new Sge(foreignMr.address(), 64, foreignMr.lkey())))));
        assertEquals(Errno.EINVAL, foreign.errno());
        assertEquals(1, foreign.badWrIndex(), "the first WR of the chain stays posted");
        assertTrue(foreign.getMessage().contains("protection domain"), foreign.getMessage());
    }

    @Test
    void shouldRefusePostRecvOnAQpThatUsesAnSrqBadFlow() {
        SharedReceiveQueue srq = srq(8, 1);
        QueuePair r1 = later(r.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq)
                .cap(new QpCap().maxSendWr(4).maxSendSge(1).maxRecvWr(1_000_000).maxRecvSge(1000)).srq(srq)));
        assertEquals(0, r1.cap().maxRecvWr(), "receive caps are ignored with an SRQ");
        assertEquals(0, r1.cap().maxRecvSge());
        r1.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        VerbsException e = assertThrows(VerbsException.class,
                () -> r1.postRecv(new RecvWr().wrId(1).sg(new Sge(r.addr(0), 8, r.mr.lkey()))));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("shared receive queue"), e.getMessage());
    }

    @Test
    void shouldRefuseAnSrqOfAnotherPdOrContextBadFlow() {
        ProtectionDomain other = later(r.ctx.allocPd());
        SharedReceiveQueue foreignPd = later(other.createSrq(new SrqAttr().maxWr(4).maxSge(1)));
        VerbsException e = assertThrows(VerbsException.class, () -> r.pd.createQp(new QpInitAttr()
                .qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq).cap(Peer.defaultCap()).srq(foreignPd)));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("protection domain"), e.getMessage());
        SharedReceiveQueue foreignCtx = later(s1.pd.createSrq(new SrqAttr().maxWr(4).maxSge(1)));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> r.pd.createQp(new QpInitAttr()
                .qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq).cap(Peer.defaultCap()).srq(foreignCtx))).errno());
        SharedReceiveQueue gone = r.pd.createSrq(new SrqAttr().maxWr(4).maxSge(1));
        gone.close();
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> r.pd.createQp(new QpInitAttr()
                .qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq).cap(Peer.defaultCap()).srq(gone))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> postSrqRecv(gone, 1, 0, 8)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> gone.modify(new SrqAttr().srqLimit(1), EnumSet.of(SrqAttrMask.LIMIT))).errno());
    }

    @Test
    void shouldDestroyInOrderOnlyBadFlow() {
        ProtectionDomain pd = r.ctx.allocPd();
        SharedReceiveQueue srq = pd.createSrq(new SrqAttr().maxWr(4).maxSge(1));
        QueuePair qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq)
                .cap(Peer.defaultCap()).srq(srq));
        VerbsException busy = assertThrows(VerbsException.class, srq::close);
        assertEquals(Errno.EBUSY, busy.errno());
        assertTrue(busy.getMessage().contains("1 QP"), busy.getMessage());
        assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, pd::close).errno());
        qp.close();
        VerbsException pdBusy = assertThrows(VerbsException.class, pd::close);
        assertEquals(Errno.EBUSY, pdBusy.errno());
        assertTrue(pdBusy.getMessage().contains("SRQ"), pdBusy.getMessage());
        srq.close();
        srq.close(); // a second close is a no-op
        pd.close();
    }
}
