package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.DeviceCapFlags;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.SrqAttrMask;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.EnumSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shared receive queues (ibv_create_srq, ibv_modify_srq, ibv_query_srq, ibv_post_srq_recv, ibv_destroy_srq, and
 * QPs created with ibv_qp_init_attr.srq): one SRQ feeding several RC QPs, RNR NAK while it is empty, the limit
 * event, QP_LAST_WQE_REACHED when a QP on an SRQ fails, and the verbs' argument and destruction-order checks.
 * Endpoint 1 ({@code b}) receives through the SRQ; endpoint 0 ({@code a}) sends.
 */
public abstract class SrqTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected SrqTck() {
    }

    private Side rx;
    private Side tx;

    @BeforeEach
    void sides() {
        rx = sideB(1 << 20, ALL_ACCESS);
        tx = sideA(1 << 20, ALL_ACCESS);
    }

    private SharedReceiveQueue srq(int maxWr, int maxSge) {
        return closeLater(rx.pd.createSrq(new SrqAttr().maxWr(maxWr).maxSge(maxSge)));
    }

    /** A receiving QP on {@code srq}. */
    private QueuePair srqQp(SharedReceiveQueue srq) {
        return closeLater(rx.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(rx.cq).recvCq(rx.cq)
                .cap(defaultCap()).srq(srq)));
    }

    /** A sending QP at endpoint 0. */
    private QueuePair txQp() {
        return closeLater(tx.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(tx.cq).recvCq(tx.cq)
                .cap(defaultCap())));
    }

    /** Connects receiving QP {@code r} and sending QP {@code t} to each other. */
    private void link(QueuePair r, QueuePair t) {
        rx.qp = r;
        tx.qp = t;
        Link l = new Link();
        connect(rx, tx, l);
        connect(tx, rx, l);
    }

    private void postSrq(SharedReceiveQueue srq, long wrId, long offset, int length) {
        srq.postRecv(new RecvWr().wrId(wrId).sg(rx.sge(offset, length)));
    }

    private SendWr send(long wrId, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sg(tx.sge(offset, length)).signaled(true);
    }

    private AsyncEvent awaitEvent() {
        return Events.await(b, this::drive, WAIT);
    }

    private void assertNoEvent(long ms) {
        Events.assertNone(b, this::drive, ms);
    }

    // ------------------------------------------------------------------------------------------------- create

    @Test
    public void deviceReportsSrqCapabilities() {
        DeviceAttr d = b.queryDevice();
        assertTrue(d.maxSrq() > 0, "max_srq");
        assertTrue(d.maxSrqWr() > 0, "max_srq_wr");
        assertTrue(d.maxSrqSge() > 0, "max_srq_sge");
    }

    @Test
    public void createdSrqHoldsAtLeastWhatWasAsked() {
        SharedReceiveQueue s = srq(16, 2);
        SrqAttr q = s.query(new SrqAttr());
        assertTrue(q.maxWr() >= 16, () -> "max_wr " + q.maxWr());
        assertTrue(q.maxSge() >= 2, () -> "max_sge " + q.maxSge());
        assertEquals(0, q.srqLimit(), "the limit is not armed");
        assertSame(rx.pd, s.pd());
    }

    @Test
    public void createRejectsZeroMaxWrBadFlow() {
        assertVerbsError(Errno.EINVAL, () -> closeLater(rx.pd.createSrq(new SrqAttr().maxWr(0).maxSge(1))));
    }

    @Test
    public void createRejectsMoreWrsThanTheDeviceAllowsBadFlow() {
        int max = b.queryDevice().maxSrqWr();
        assertVerbsError(Errno.EINVAL, () -> closeLater(rx.pd.createSrq(new SrqAttr().maxWr(max + 1).maxSge(1))));
    }

    @Test
    public void createRejectsMoreSgesThanTheDeviceAllowsBadFlow() {
        int max = b.queryDevice().maxSrqSge();
        assertVerbsError(Errno.EINVAL, () -> closeLater(rx.pd.createSrq(new SrqAttr().maxWr(4).maxSge(max + 1))));
    }

    // ------------------------------------------------------------------------------------------------- data path

    @Test
    public void sendsOnTwoQpsLandInOneSharedQueue() {
        SharedReceiveQueue s = srq(16, 1);
        QueuePair r1 = srqQp(s);
        QueuePair r2 = srqQp(s);
        QueuePair t1 = txQp();
        QueuePair t2 = txQp();
        link(r1, t1);
        link(r2, t2);
        for (int i = 0; i < 4; i++) {
            postSrq(s, i, i * 8192L, 8192);
        }
        fill(tx.buf.asSlice(0, 5000), 1);
        fill(tx.buf.asSlice(8192, 300), 2);
        t1.postSend(send(11, 0, 5000));
        t2.postSend(send(21, 8192, 300));
        WorkCompletion first = await(rx.cq, WcStatus.SUCCESS);
        int firstQp = first.qpNum();
        long firstWr = first.wrId();
        int firstLen = first.byteLen();
        WorkCompletion second = await(rx.cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RECV, second.opcode());
        assertTrue(firstWr != second.wrId(), "each message takes its own WQE");
        for (int k = 0; k < 2; k++) {
            int qpNum = k == 0 ? firstQp : second.qpNum();
            long wrId = k == 0 ? firstWr : second.wrId();
            int len = k == 0 ? firstLen : second.byteLen();
            long src = qpNum == r1.qpNum() ? 0 : 8192;
            assertEquals(qpNum == r1.qpNum() ? 5000 : 300, len, "byte_len on QP " + qpNum);
            assertEquals(-1, tx.buf.asSlice(src, len).mismatch(rx.buf.asSlice(wrId * 8192, len)));
        }
        assertTrue(firstQp != second.qpNum(), "the completions name both QPs");
        await(tx.cq, WcStatus.SUCCESS);
        await(tx.cq, WcStatus.SUCCESS);
    }

    @Test
    public void emptySrqNaksRnrUntilAReceiveIsPosted() {
        SharedReceiveQueue s = srq(4, 1);
        QueuePair r1 = srqQp(s);
        QueuePair t1 = txQp();
        link(r1, t1); // rnr_retry 7: retry forever
        fill(tx.buf.asSlice(0, 100), 3);
        t1.postSend(send(1, 0, 100));
        assertNoCompletion(tx.cq, 30);
        assertNoCompletion(rx.cq, 1);
        postSrq(s, 5, 0, 4096);
        WorkCompletion r = await(rx.cq, WcStatus.SUCCESS);
        assertEquals(5, r.wrId());
        assertEquals(100, r.byteLen());
        assertEquals(r1.qpNum(), r.qpNum());
        assertEquals(1, await(tx.cq, WcStatus.SUCCESS).wrId());
        assertEquals(-1, tx.buf.asSlice(0, 100).mismatch(rx.buf.asSlice(0, 100)));
    }

    @Test
    public void tooSmallSrqWqeFailsTheMessageAndTheQpBadFlow() {
        SharedReceiveQueue s = srq(4, 1);
        QueuePair r1 = srqQp(s);
        QueuePair t1 = txQp();
        link(r1, t1);
        postSrq(s, 1, 0, 16);
        t1.postSend(send(2, 0, 100));
        WorkCompletion r = await(rx.cq, WcStatus.LOC_LEN_ERR);
        assertEquals(1, r.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, await(tx.cq).status());
        assertEquals(QpState.ERR, r1.state());
        AsyncEvent e = awaitEvent();
        assertEquals(AsyncEventType.QP_LAST_WQE_REACHED, e.type());
        assertSame(r1, e.qp());
    }

    // ------------------------------------------------------------------------------------------------- events

    @Test
    public void limitEventIsRaisedOnceAndDisarms() {
        SharedReceiveQueue s = srq(16, 1);
        QueuePair r1 = srqQp(s);
        QueuePair t1 = txQp();
        link(r1, t1);
        for (int i = 0; i < 3; i++) {
            postSrq(s, i, i * 64L, 64);
        }
        s.modify(new SrqAttr().srqLimit(2), EnumSet.of(SrqAttrMask.LIMIT));
        assertEquals(2, s.query(new SrqAttr()).srqLimit());
        exchange(t1, 1); // 2 left
        assertNoEvent(10);
        exchange(t1, 2); // 1 left: below the limit
        AsyncEvent e = awaitEvent();
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
        assertSame(s, e.srq());
        assertNull(e.qp());
        assertEquals(0, s.query(new SrqAttr()).srqLimit(), "the event disarms the limit");
        exchange(t1, 3); // 0 left, disarmed
        assertNoEvent(10);
    }

    @Test
    public void limitEventFiresAgainAfterRearming() {
        SharedReceiveQueue s = srq(16, 1);
        QueuePair r1 = srqQp(s);
        QueuePair t1 = txQp();
        link(r1, t1);
        for (int i = 0; i < 2; i++) {
            postSrq(s, i, i * 64L, 64);
        }
        s.modify(new SrqAttr().srqLimit(2), EnumSet.of(SrqAttrMask.LIMIT));
        exchange(t1, 1);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, awaitEvent().type());
        for (int i = 2; i < 5; i++) {
            postSrq(s, i, i * 64L, 64);
        }
        s.modify(new SrqAttr().srqLimit(3), EnumSet.of(SrqAttrMask.LIMIT));
        exchange(t1, 2); // 3 left
        assertNoEvent(10);
        exchange(t1, 3); // 2 left: below 3
        AsyncEvent e = awaitEvent();
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, e.type());
        assertSame(s, e.srq());
        assertNoEvent(10);
    }

    /** One small SEND on {@code t}, both completions awaited. */
    private void exchange(QueuePair t, long wrId) {
        t.postSend(send(wrId, 0, 8));
        await(rx.cq, WcStatus.SUCCESS);
        await(tx.cq, WcStatus.SUCCESS);
    }

    @Test
    public void qpOnSrqEnteringErrorRaisesLastWqeReachedAndLeavesTheSrqAlone() {
        SharedReceiveQueue s = srq(8, 1);
        QueuePair r1 = srqQp(s);
        QueuePair r2 = srqQp(s);
        QueuePair t1 = txQp();
        QueuePair t2 = txQp();
        link(r1, t1);
        link(r2, t2);
        postSrq(s, 7, 0, 64);
        moveTo(r1, QpState.ERR);
        AsyncEvent e = awaitEvent();
        assertEquals(AsyncEventType.QP_LAST_WQE_REACHED, e.type());
        assertSame(r1, e.qp());
        assertNoCompletion(rx.cq, 10); // the SRQ's WQE is not flushed with r1
        assertNoEvent(1);
        t2.postSend(send(8, 0, 32));
        WorkCompletion r = await(rx.cq, WcStatus.SUCCESS);
        assertEquals(7, r.wrId());
        assertEquals(r2.qpNum(), r.qpNum());
        await(tx.cq, WcStatus.SUCCESS);
    }

    @Test
    public void qpOnSrqFlushesItsOwnSendQueue() {
        SharedReceiveQueue s = srq(8, 1);
        QueuePair r1 = srqQp(s);
        QueuePair t1 = txQp();
        link(r1, t1);
        postSrq(s, 7, 0, 64);
        // r1 sends to t1, which has no receive posted: the SEND waits on RNR until r1 is moved to ERR
        r1.postSend(new SendWr().wrId(70).opcode(WrOpcode.SEND).sg(rx.sge(4096, 8)).signaled(true));
        moveTo(r1, QpState.ERR);
        WorkCompletion f = await(rx.cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(70, f.wrId());
        assertEquals(r1.qpNum(), f.qpNum());
        assertEquals(AsyncEventType.QP_LAST_WQE_REACHED, awaitEvent().type());
        assertNoCompletion(rx.cq, 10);
    }

    // ------------------------------------------------------------------------------------------------- verbs

    @Test
    public void postRecvOnAQpWithAnSrqFailsBadFlow() {
        SharedReceiveQueue s = srq(4, 1);
        QueuePair r1 = srqQp(s);
        QueuePair t1 = txQp();
        link(r1, t1);
        assertVerbsError(Errno.EINVAL, () -> r1.postRecv(new RecvWr().wrId(1).sg(rx.sge(0, 8))));
    }

    @Test
    public void srqOfAnotherPdIsRefusedBadFlow() {
        ProtectionDomain other = closeLater(b.allocPd());
        SharedReceiveQueue foreign = closeLater(other.createSrq(new SrqAttr().maxWr(4).maxSge(1)));
        assertVerbsError(Errno.EINVAL, () -> closeLater(rx.pd.createQp(new QpInitAttr().qpType(QpType.RC)
                .sendCq(rx.cq).recvCq(rx.cq).cap(defaultCap()).srq(foreign))));
    }

    @Test
    public void srqInUseAndItsPdCannotBeDestroyedBadFlow() {
        ProtectionDomain pd = b.allocPd();
        SharedReceiveQueue s = pd.createSrq(new SrqAttr().maxWr(4).maxSge(1));
        QueuePair qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(rx.cq).recvCq(rx.cq)
                .cap(defaultCap()).srq(s));
        assertVerbsError(Errno.EBUSY, s::close);
        qp.close();
        assertVerbsError(Errno.EBUSY, pd::close);
        s.close();
        pd.close();
    }

    @Test
    public void postingBeyondTheQueueFailsBadFlow() {
        SharedReceiveQueue s = srq(8, 1);
        int capacity = s.query(new SrqAttr()).maxWr();
        for (int i = 0; i < capacity; i++) {
            postSrq(s, i, 0, 8);
        }
        VerbsException e = assertVerbsError(Errno.ENOMEM, () -> postSrq(s, capacity, 0, 8));
        assertEquals(0, e.badWrIndex());
    }

    @Test
    public void postingMoreSgesThanTheSrqHoldsFailsBadFlow() {
        SharedReceiveQueue s = srq(8, 1);
        int maxSge = s.query(new SrqAttr()).maxSge();
        RecvWr wr = new RecvWr().wrId(1);
        Sge[] sges = new Sge[maxSge + 1];
        for (int i = 0; i < sges.length; i++) {
            sges[i] = rx.sge(i * 16L, 16);
        }
        wr.sg(sges);
        assertVerbsError(Errno.EINVAL, () -> s.postRecv(wr));
    }

    @Test
    public void limitAboveTheQueueSizeIsRefusedBadFlow() {
        SharedReceiveQueue s = srq(8, 1);
        int capacity = s.query(new SrqAttr()).maxWr();
        assertVerbsError(Errno.EINVAL,
                () -> s.modify(new SrqAttr().srqLimit(capacity + 1), EnumSet.of(SrqAttrMask.LIMIT)));
        assertEquals(0, s.query(new SrqAttr()).srqLimit());
    }

    @Test
    public void resizingKeepsPostedWqesInOrder() {
        assumeTrue((b.queryDevice().deviceCapFlags() & DeviceCapFlags.SRQ_RESIZE) != 0, "the device cannot resize SRQs");
        SharedReceiveQueue s = srq(4, 1);
        int before = s.query(new SrqAttr()).maxWr();
        for (int i = 0; i < before; i++) {
            postSrq(s, i, i * 64L, 64);
        }
        s.modify(new SrqAttr().maxWr(before + 8), EnumSet.of(SrqAttrMask.MAX_WR));
        int after = s.query(new SrqAttr()).maxWr();
        assertTrue(after >= before + 8, () -> "max_wr after resize " + after);
        for (int i = before; i < before + 8; i++) {
            postSrq(s, i, i * 64L, 64);
        }
        QueuePair r1 = srqQp(s);
        QueuePair t1 = txQp();
        link(r1, t1);
        for (int i = 0; i < before + 8; i++) {
            t1.postSend(send(i, 0, 8));
            assertEquals(i, await(rx.cq, WcStatus.SUCCESS).wrId(), "WQEs are consumed in posting order");
            await(tx.cq, WcStatus.SUCCESS);
        }
    }

    @Test
    public void resizingBelowWhatIsPostedFailsBadFlow() {
        assumeTrue((b.queryDevice().deviceCapFlags() & DeviceCapFlags.SRQ_RESIZE) != 0, "the device cannot resize SRQs");
        SharedReceiveQueue s = srq(8, 1);
        for (int i = 0; i < 6; i++) {
            postSrq(s, i, 0, 8);
        }
        assertVerbsError(Errno.EINVAL, () -> s.modify(new SrqAttr().maxWr(3), EnumSet.of(SrqAttrMask.MAX_WR)));
        assertVerbsError(Errno.EINVAL, () -> s.modify(new SrqAttr().maxWr(0), EnumSet.of(SrqAttrMask.MAX_WR)));
    }
    // ------------------------------------------------------------------------------------------------- other QP types

    /** A QP of {@code type} on each side, the receiving one on {@code srq}, brought to RTS (UC: connected). */
    private void linkOfType(QpType type, SharedReceiveQueue srq) {
        rx.qp = closeLater(rx.pd.createQp(new QpInitAttr().qpType(type).sendCq(rx.cq).recvCq(rx.cq)
                .cap(defaultCap()).srq(srq)));
        tx.qp = closeLater(tx.pd.createQp(new QpInitAttr().qpType(type).sendCq(tx.cq).recvCq(tx.cq)
                .cap(defaultCap())));
        Link l = new Link();
        connect(rx, tx, l);
        connect(tx, rx, l);
    }

    @Test
    public void udQpOnAnSrqReceivesWithTheGrhFirst() {
        SharedReceiveQueue srq = srq(8, 1);
        linkOfType(QpType.UD, srq);
        postSrq(srq, 31, 0, 40 + 100);
        fill(tx.buf.asSlice(0, 100), 7);
        io.jrdma.verbs.AddressHandle ah = closeLater(tx.pd.createAh(route(b)));
        tx.qp.postSend(send(32, 0, 100).ud(ah, rx.qp.qpNum(), new Link().qkey));
        assertEquals(32, await(tx.cq, WcStatus.SUCCESS).wrId());
        WorkCompletion wc = await(rx.cq, WcStatus.SUCCESS);
        assertEquals(31, wc.wrId());
        assertEquals(40 + 100, wc.byteLen());
        assertEquals(tx.qp.qpNum(), wc.srcQp());
        assertTrue((wc.wcFlags() & io.jrdma.verbs.WcFlags.GRH) != 0, "GRH flag");
        assertEquals(-1, tx.buf.asSlice(0, 100).mismatch(rx.buf.asSlice(40, 100)));
    }

    @Test
    public void ucQpOnAnSrqReceivesMultiPacketSends() {
        SharedReceiveQueue srq = srq(8, 1);
        linkOfType(QpType.UC, srq);
        postSrq(srq, 41, 0, 8192);
        fill(tx.buf.asSlice(0, 5000), 9);
        tx.qp.postSend(send(42, 0, 5000));
        assertEquals(42, await(tx.cq, WcStatus.SUCCESS).wrId());
        WorkCompletion wc = await(rx.cq, WcStatus.SUCCESS);
        assertEquals(41, wc.wrId());
        assertEquals(5000, wc.byteLen());
        assertEquals(-1, tx.buf.asSlice(0, 5000).mismatch(rx.buf.asSlice(0, 5000)));
    }
}
