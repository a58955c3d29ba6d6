package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Affiliated and unaffiliated asynchronous events (ibv_get_async_event) and the send queue drain state: each event
 * names its resource and is raised once. COMM_EST on the first request at a QP in RTR; QP_ACCESS_ERR at a responder
 * whose QP fails on an R_Key violation no receive completion reports; CQ_ERR when a CQ overruns; SQ_DRAINED for a
 * QP moved to SQD with en_sqd_async_notify, once the message in progress is acknowledged; and SQD's rules (no new
 * message starts, SQD to SQD changes attributes, SQD to RTS resumes, no leaving SQD but for ERR while draining).
 */
public abstract class AsyncEventTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected AsyncEventTck() {
    }

    private AsyncEvent awaitEvent(io.jrdma.verbs.Context ctx) {
        return Events.await(ctx, this::drive, WAIT);
    }

    private void assertNoEvent(io.jrdma.verbs.Context ctx, long ms) {
        Events.assertNone(ctx, this::drive, ms);
    }

    private static SendWr send(Side s, long wrId, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sg(s.sge(offset, length)).signaled(true);
    }

    private static void toSqd(QueuePair qp, boolean notify) {
        qp.modify(new QpAttr().qpState(QpState.SQD).enSqdAsyncNotify(notify),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.EN_SQD_ASYNC_NOTIFY));
    }

    @Test
    public void noEventIsReportedWhenNothingHappened() {
        rcPair(4096);
        assertNull(a.pollAsyncEvent());
        assertNull(b.awaitAsyncEvent(Duration.ofMillis(10)));
    }

    // ------------------------------------------------------------------------------------------------- COMM_EST

    @Test
    public void firstRequestAtAQpInRtrRaisesCommEstOnce() {
        Side x = sideA(8192, ALL_ACCESS);
        Side y = sideB(8192, ALL_ACCESS);
        x.createQp(QpType.RC);
        y.createQp(QpType.RC);
        Link l = new Link();
        connect(x, y, l);
        // y only to RTR: it receives but does not send
        y.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(l.qpAccess),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        y.qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(l.mtu).destQpNum(x.qp.qpNum()).rqPsn(l.psn)
                .maxDestRdAtomic(l.maxRd).minRnrTimer(l.minRnrTimer).ahAttr(route(a)),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        y.postRecv(1, 0, 256);
        y.postRecv(2, 256, 256);
        x.qp.postSend(send(x, 10, 0, 64));
        AsyncEvent e = awaitEvent(b);
        assertEquals(AsyncEventType.COMM_EST, e.type());
        assertSame(y.qp, e.qp());
        assertNull(e.cq());
        assertNull(e.srq());
        assertEquals(QpState.RTR, y.qp.state());
        assertEquals(1, await(y.cq, WcStatus.SUCCESS).wrId());
        await(x.cq, WcStatus.SUCCESS);
        x.qp.postSend(send(x, 11, 0, 64));
        assertEquals(2, await(y.cq, WcStatus.SUCCESS).wrId());
        await(x.cq, WcStatus.SUCCESS);
        assertNoEvent(b, 10);
    }

    // ------------------------------------------------------------------------------------------------- QP errors

    @Test
    public void rkeyViolationAtTheResponderRaisesQpAccessErrBadFlow() {
        Side[] p = rcPair(8192);
        Side x = p[0];
        Side y = p[1];
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(x.sge(0, 64))
                .remote(y.addr(0), y.mr.rkey() ^ 0x80).signaled(true));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(x.cq).status());
        AsyncEvent e = awaitEvent(b);
        assertEquals(AsyncEventType.QP_ACCESS_ERR, e.type());
        assertSame(y.qp, e.qp());
        assertEquals(QpState.ERR, y.qp.state());
        assertNoEvent(b, 10);
        assertNoEvent(a, 1); // the requester's error is its completion, not an event
    }

    @Test
    public void errorReportedByAReceiveCompletionRaisesNoEventBadFlow() {
        Side[] p = rcPair(8192);
        Side x = p[0];
        Side y = p[1];
        y.postRecv(1, 0, 8);
        x.qp.postSend(send(x, 2, 0, 100));
        assertEquals(WcStatus.LOC_LEN_ERR, await(y.cq).status());
        assertEquals(WcStatus.REM_INV_REQ_ERR, await(x.cq).status());
        assertEquals(QpState.ERR, y.qp.state());
        assertNoEvent(b, 10);
        assertNoEvent(a, 1);
    }

    // ------------------------------------------------------------------------------------------------- CQ_ERR

    @Test
    public void overrunningACqRaisesCqErrOnceBadFlow() {
        Side x = sideA(4096, ALL_ACCESS);
        CompletionQueue small = closeLater(a.createCq(1));
        int capacity = small.capacity();
        x.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(small).recvCq(small).cap(defaultCap()));
        x.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        for (int i = 0; i < capacity + 4; i++) {
            x.qp.postRecv(new RecvWr().wrId(i).sg(x.sge(0, 8)));
        }
        moveTo(x.qp, QpState.ERR); // more flush completions than the CQ holds
        AsyncEvent e = awaitEvent(a);
        assertEquals(AsyncEventType.CQ_ERR, e.type());
        assertSame(small, e.cq());
        assertNull(e.qp());
        assertNoEvent(a, 10);
    }

    // ------------------------------------------------------------------------------------------------- SQD

    @Test
    public void sqDrainedFollowsTheAcknowledgementOfTheMessageInProgress() {
        Side[] p = rcPair(1 << 20);
        Side x = p[0];
        Side y = p[1];
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(x.sge(0, 256 * 1024))
                .remote(y.addr(0), y.mr.rkey()).signaled(true));
        toSqd(x.qp, true);
        AsyncEvent e = awaitEvent(a);
        assertEquals(AsyncEventType.SQ_DRAINED, e.type());
        assertSame(x.qp, e.qp());
        WorkCompletion[] wc = {new WorkCompletion()};
        assertEquals(1, x.cq.poll(wc, 1), "the message in progress completed before the drain was reported");
        assertEquals(1, wc[0].wrId());
        assertEquals(WcStatus.SUCCESS, wc[0].status());
        QpAttr q = x.qp.query(new QpAttr());
        assertEquals(QpState.SQD, q.qpState());
        assertFalse(q.sqDraining());
        assertNoEvent(a, 10);
    }

    @Test
    public void sqDrainedIsRaisedOnlyWhenAskedFor() {
        Side[] p = rcPair(4096);
        toSqd(p[0].qp, false);
        assertNoEvent(a, 20);
        assertFalse(p[0].qp.query(new QpAttr()).sqDraining());
    }

    @Test
    public void leavingSqdWhileDrainingIsRefusedButErrIsAllowedBadFlow() {
        Side[] p = rcPair(1 << 20);
        Side x = p[0];
        Side y = p[1];
        // nothing drives y until the checks are done, so the write cannot be acknowledged in the meantime
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(x.sge(0, 512 * 1024))
                .remote(y.addr(0), y.mr.rkey()).signaled(true));
        toSqd(x.qp, false);
        assertTrue(x.qp.query(new QpAttr()).sqDraining(), "the write is in progress");
        assertVerbsError(Errno.EINVAL, () -> moveTo(x.qp, QpState.RTS));
        assertEquals(QpState.SQD, x.qp.state());
        moveTo(x.qp, QpState.ERR);
        WorkCompletion wc = await(x.cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
    }

    @Test
    public void sqdStartsNoNewMessageAndRtsResumes() {
        Side[] p = rcPair(8192);
        Side x = p[0];
        Side y = p[1];
        toSqd(x.qp, true);
        assertEquals(AsyncEventType.SQ_DRAINED, awaitEvent(a).type());
        y.postRecv(1, 0, 256);
        x.qp.postSend(send(x, 5, 0, 100));
        assertNoCompletion(x.cq, 20);
        assertNoCompletion(y.cq, 1);
        moveTo(x.qp, QpState.RTS);
        assertEquals(5, await(x.cq, WcStatus.SUCCESS).wrId());
        assertEquals(1, await(y.cq, WcStatus.SUCCESS).wrId());
    }

    @Test
    public void sqdToSqdChangesAttributesOnceDrained() {
        Side[] p = rcPair(8192);
        Side x = p[0];
        toSqd(x.qp, true);
        assertEquals(AsyncEventType.SQ_DRAINED, awaitEvent(a).type());
        x.qp.modify(new QpAttr().qpState(QpState.SQD).retryCnt(3).timeout(16).minRnrTimer(5),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.RETRY_CNT, QpAttrMask.TIMEOUT, QpAttrMask.MIN_RNR_TIMER));
        QpAttr q = x.qp.query(new QpAttr());
        assertEquals(QpState.SQD, q.qpState());
        assertEquals(3, q.retryCnt());
        assertEquals(16, q.timeout());
        assertEquals(5, q.minRnrTimer());
        moveTo(x.qp, QpState.RTS);
        assertEquals(QpState.RTS, x.qp.state());
        assertNoEvent(a, 5);
    }
}
