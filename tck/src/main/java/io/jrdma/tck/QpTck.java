package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * RC queue pairs (ibv_create_qp, ibv_modify_qp, ibv_query_qp, ibv_destroy_qp, posting), as rdma-core's
 * tests/test_qp.py and test_qpex.py: creation within and beyond the device's limits, the IBTA state machine with
 * its required and optional attributes, posting per state, queue overflow, and what ERR, RESET and destroy do to
 * outstanding work requests.
 */
public abstract class QpTck extends Tck {

    private static final EnumSet<QpAttrMask> INIT_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
            QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS);
    private static final EnumSet<QpAttrMask> RTR_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
            QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC,
            QpAttrMask.MIN_RNR_TIMER);
    private static final EnumSet<QpAttrMask> RTS_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN,
            QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC);

    private QueuePair newQp(QpCap cap) {
        CompletionQueue cq = closeLater(a.createCq(64));
        return closeLater(closeLater(a.allocPd()).createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq)
                .recvCq(cq).cap(cap)));
    }

    private static QpAttr initAttr() {
        return new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(Access.REMOTE_WRITE);
    }

    private QpAttr rtrAttr(int destQpn) {
        return new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(destQpn).rqPsn(0x11)
                .maxDestRdAtomic(2).minRnrTimer(3).ahAttr(route(b));
    }

    private static QpAttr rtsAttr() {
        return new QpAttr().qpState(QpState.RTS).sqPsn(0x22).timeout(14).retryCnt(6).rnrRetry(5).maxRdAtomic(2);
    }

    /** A QP of context a brought to {@code target} (RESET, INIT, RTR, RTS, SQD or ERR) aimed at a dummy QPN. */
    private QueuePair qpIn(QpState target) {
        QueuePair qp = newQp(defaultCap());
        walk(qp, target);
        return qp;
    }

    private void walk(QueuePair qp, QpState target) {
        if (target == QpState.RESET) {
            return;
        }
        if (target == QpState.ERR) {
            qp.modify(initAttr(), INIT_MASK);
            moveTo(qp, QpState.ERR);
            return;
        }
        qp.modify(initAttr(), INIT_MASK);
        if (target == QpState.INIT) {
            return;
        }
        qp.modify(rtrAttr(0x77), RTR_MASK);
        if (target == QpState.RTR) {
            return;
        }
        qp.modify(rtsAttr(), RTS_MASK);
        if (target == QpState.SQD) {
            moveTo(qp, QpState.SQD);
        }
    }

    /** Asserts that modifying to each of {@code targets} is EINVAL and leaves the QP where it was. */
    private static void assertIllegal(QueuePair qp, QpState... targets) {
        QpState before = qp.state();
        String attrs = qp.query(new QpAttr()).toString();
        for (QpState t : targets) {
            VerbsException e = assertVerbsError(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(t),
                    EnumSet.of(QpAttrMask.STATE)));
            assertTrue(e.getMessage().contains(before + " -> " + t), e::getMessage);
            assertEquals(before, qp.state(), "a refused modify leaves the QP unchanged");
            assertEquals(attrs, qp.query(new QpAttr()).toString(), "a refused modify changes no attribute");
        }
    }

    /** Asserts that {@code change} (a modify) is EINVAL and changes neither the state nor any queried attribute. */
    private static void assertRefusedUnchanged(QueuePair qp, Runnable change) {
        String before = qp.query(new QpAttr()).toString();
        QpState state = qp.state();
        assertVerbsError(Errno.EINVAL, change::run);
        assertEquals(state, qp.state());
        assertEquals(before, qp.query(new QpAttr()).toString(), "a refused modify changes no attribute");
    }

    // --------------------------------------------------------------------------------------------- creation

    @Test
    public void newRcQpIsInResetWithAtLeastItsCaps() {
        QpCap asked = new QpCap(10, 20, 3, 2, 40);
        QueuePair qp = newQp(asked);
        assertEquals(QpState.RESET, qp.state());
        assertEquals(QpType.RC, qp.type());
        QpCap got = qp.cap();
        assertTrue(got.maxSendWr() >= 10 && got.maxRecvWr() >= 20, got::toString);
        assertTrue(got.maxSendSge() >= 3 && got.maxRecvSge() >= 2, got::toString);
        assertTrue(got.maxInlineData() >= 40, got::toString);
        assertTrue(qp.qpNum() > 1 && qp.qpNum() <= 0xFFFFFF, "QPN 0 and 1 are special; QPNs have 24 bits");
    }

    @Test
    public void queryAfterCreateReportsResetAndTheCaps() {
        QueuePair qp = newQp(new QpCap(16, 16, 2, 2, 0));
        QpAttr q = qp.query(new QpAttr());
        assertEquals(QpState.RESET, q.qpState());
        assertEquals(QpState.RESET, q.curQpState());
        assertTrue(q.cap().maxSendWr() >= 16 && q.cap().maxRecvSge() >= 2, q::toString);
        assertEquals(qp.cap().maxSendWr(), q.cap().maxSendWr(), "query and cap() agree");
    }

    @Test
    public void qpNumbersAreDistinct() {
        Set<Integer> qpns = new HashSet<>();
        for (int i = 0; i < 16; i++) {
            assertTrue(qpns.add(newQp(defaultCap()).qpNum()));
        }
    }

    @Test
    public void qpBelongsToItsPd() {
        Side x = sideA(64, ALL_ACCESS);
        assertSame(x.pd, x.createQp(QpType.RC).pd());
    }

    @Test
    public void capsAtTheDeviceLimitsAreGranted() {
        DeviceAttr d = a.queryDevice();
        QpCap max = new QpCap(d.maxQpWr(), d.maxQpWr(), d.maxSge(), d.maxSge(), d.maxInlineData());
        QueuePair qp = newQp(max);
        assertTrue(qp.cap().maxSendWr() >= d.maxQpWr() && qp.cap().maxSendSge() >= d.maxSge());
        assertTrue(qp.cap().maxInlineData() >= d.maxInlineData());
    }

    private void assertCapRefused(Consumer<QpCap> overLimit, String name) {
        QpCap cap = defaultCap();
        overLimit.accept(cap);
        CompletionQueue cq = closeLater(a.createCq(8));
        var pd = closeLater(a.allocPd());
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> pd.createQp(new QpInitAttr().qpType(QpType.RC)
                .sendCq(cq).recvCq(cq).cap(cap)));
        assertTrue(e.getMessage().contains(name), e::getMessage);
    }

    @Test
    public void maxSendWrBeyondTheDeviceIsEinvalBadFlow() {
        int max = a.queryDevice().maxQpWr();
        assertCapRefused(c -> c.maxSendWr(max + 1), "max_send_wr");
    }

    @Test
    public void maxRecvWrBeyondTheDeviceIsEinvalBadFlow() {
        int max = a.queryDevice().maxQpWr();
        assertCapRefused(c -> c.maxRecvWr(max + 1), "max_recv_wr");
    }

    @Test
    public void maxSendSgeBeyondTheDeviceIsEinvalBadFlow() {
        int max = a.queryDevice().maxSge();
        assertCapRefused(c -> c.maxSendSge(max + 1), "max_send_sge");
    }

    @Test
    public void maxRecvSgeBeyondTheDeviceIsEinvalBadFlow() {
        int max = a.queryDevice().maxSge();
        assertCapRefused(c -> c.maxRecvSge(max + 1), "max_recv_sge");
    }

    @Test
    public void maxInlineDataBeyondTheDeviceIsEinvalBadFlow() {
        int max = a.queryDevice().maxInlineData();
        assertCapRefused(c -> c.maxInlineData(max + 1), "max_inline_data");
    }

    @Test
    public void negativeCapsAreEinvalBadFlow() {
        assertCapRefused(c -> c.maxSendWr(-1), "max_send_wr");
    }

    @Test
    public void qpWithoutCqsIsEinvalBadFlow() {
        var pd = closeLater(a.allocPd());
        CompletionQueue cq = closeLater(a.createCq(8));
        assertVerbsError(Errno.EINVAL, () -> pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq)
                .cap(defaultCap())));
        assertVerbsError(Errno.EINVAL, () -> pd.createQp(new QpInitAttr().qpType(QpType.RC).recvCq(cq)
                .cap(defaultCap())));
    }

    @Test
    public void cqOfAnotherContextIsEinvalBadFlow() {
        var pd = closeLater(a.allocPd());
        CompletionQueue mine = closeLater(a.createCq(8));
        CompletionQueue theirs = closeLater(b.createCq(8));
        assertVerbsError(Errno.EINVAL, () -> pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(mine)
                .recvCq(theirs).cap(defaultCap())));
    }

    // --------------------------------------------------------------------------------------------- state machine

    @Test
    public void everyLegalRcTransitionInOrder() {
        QueuePair qp = newQp(defaultCap());
        qp.modify(initAttr(), INIT_MASK);
        assertEquals(QpState.INIT, qp.state());
        qp.modify(new QpAttr().qpState(QpState.INIT).qpAccessFlags(0), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.ACCESS_FLAGS)); // INIT -> INIT
        qp.modify(rtrAttr(0x77), RTR_MASK);
        assertEquals(QpState.RTR, qp.state());
        qp.modify(rtsAttr(), RTS_MASK);
        assertEquals(QpState.RTS, qp.state());
        qp.modify(new QpAttr().qpState(QpState.RTS).minRnrTimer(4), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.MIN_RNR_TIMER)); // RTS -> RTS
        moveTo(qp, QpState.SQD);
        assertEquals(QpState.SQD, qp.state());
        qp.modify(new QpAttr().qpState(QpState.SQD).timeout(10).retryCnt(3), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT)); // SQD -> SQD may change path attributes
        assertEquals(10, qp.query(new QpAttr()).timeout());
        moveTo(qp, QpState.RTS);
        moveTo(qp, QpState.ERR);
        assertEquals(QpState.ERR, qp.state());
        moveTo(qp, QpState.ERR); // ERR -> ERR
        moveTo(qp, QpState.RESET);
        assertEquals(QpState.RESET, qp.state());
        qp.modify(initAttr(), INIT_MASK);
        assertEquals(QpState.INIT, qp.state(), "a QP starts over after RESET");
    }

    @Test
    public void everyStateCanGoToReset() {
        for (QpState s : new QpState[] {QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD,
            QpState.ERR}) {
            QueuePair qp = qpIn(s);
            assertEquals(s, qp.state());
            moveTo(qp, QpState.RESET);
            assertEquals(QpState.RESET, qp.state(), () -> s + " -> RESET");
        }
    }

    @Test
    public void everyStateButResetCanGoToErr() {
        for (QpState s : new QpState[] {QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD}) {
            QueuePair qp = qpIn(s);
            moveTo(qp, QpState.ERR);
            assertEquals(QpState.ERR, qp.state(), () -> s + " -> ERR");
        }
    }

    @Test
    public void illegalTransitionsFromResetBadFlow() {
        assertIllegal(qpIn(QpState.RESET), QpState.RTR, QpState.RTS, QpState.SQD, QpState.ERR);
    }

    @Test
    public void illegalTransitionsFromInitBadFlow() {
        assertIllegal(qpIn(QpState.INIT), QpState.RTS, QpState.SQD);
    }

    @Test
    public void illegalTransitionsFromRtrBadFlow() {
        assertIllegal(qpIn(QpState.RTR), QpState.INIT, QpState.SQD);
    }

    @Test
    public void illegalTransitionsFromRtsBadFlow() {
        assertIllegal(qpIn(QpState.RTS), QpState.INIT, QpState.RTR);
    }

    @Test
    public void illegalTransitionsFromSqdBadFlow() {
        assertIllegal(qpIn(QpState.SQD), QpState.INIT, QpState.RTR);
    }

    @Test
    public void illegalTransitionsFromErrBadFlow() {
        assertIllegal(qpIn(QpState.ERR), QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD);
    }

    /** Drops each required attribute of a transition in turn: each is EINVAL naming it, the QP unchanged. */
    private static void assertEachRequired(QueuePair qp, QpAttr attr, EnumSet<QpAttrMask> mask) {
        for (QpAttrMask m : mask) {
            if (m == QpAttrMask.STATE) {
                continue;
            }
            EnumSet<QpAttrMask> less = EnumSet.copyOf(mask);
            less.remove(m);
            QpState before = qp.state();
            VerbsException e = assertVerbsError(Errno.EINVAL, () -> qp.modify(attr, less));
            assertTrue(e.getMessage().contains(m.name()), () -> m + " missing: " + e.getMessage());
            assertEquals(before, qp.state());
        }
        qp.modify(attr, mask); // and with all of them it goes
    }

    @Test
    public void resetToInitRequiresPkeyPortAndAccessBadFlow() {
        QueuePair qp = qpIn(QpState.RESET);
        assertEachRequired(qp, initAttr(), INIT_MASK);
        assertEquals(QpState.INIT, qp.state());
    }

    @Test
    public void initToRtrRequiresThePathAndResponderAttributesBadFlow() {
        QueuePair qp = qpIn(QpState.INIT);
        assertEachRequired(qp, rtrAttr(0x77), RTR_MASK);
        assertEquals(QpState.RTR, qp.state());
    }

    @Test
    public void rtrToRtsRequiresTheRequesterAttributesBadFlow() {
        QueuePair qp = qpIn(QpState.RTR);
        assertEachRequired(qp, rtsAttr(), RTS_MASK);
        assertEquals(QpState.RTS, qp.state());
    }

    @Test
    public void attributesNotAllowedInATransitionAreEinvalBadFlow() {
        QueuePair qp = qpIn(QpState.RESET);
        EnumSet<QpAttrMask> withMtu = EnumSet.copyOf(INIT_MASK);
        withMtu.add(QpAttrMask.PATH_MTU);
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> qp.modify(initAttr().pathMtu(Mtu.MTU_1024),
                withMtu));
        assertTrue(e.getMessage().contains("PATH_MTU"), e::getMessage);
        assertEquals(QpState.RESET, qp.state());
        qp.modify(initAttr(), INIT_MASK);
        EnumSet<QpAttrMask> withSqPsn = EnumSet.copyOf(RTR_MASK);
        withSqPsn.add(QpAttrMask.SQ_PSN);
        assertVerbsError(Errno.EINVAL, () -> qp.modify(rtrAttr(0x77).sqPsn(5), withSqPsn));
        assertEquals(QpState.INIT, qp.state());
    }

    @Test
    public void rtsToRtsRefusesPathMtuBadFlow() {
        QueuePair qp = qpIn(QpState.RTS);
        assertRefusedUnchanged(qp, () -> qp.modify(new QpAttr().qpState(QpState.RTS).pathMtu(Mtu.MTU_256),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PATH_MTU)));
    }

    @Test
    public void optionalAttributesAreAppliedAndQueried() {
        QueuePair qp = qpIn(QpState.INIT);
        EnumSet<QpAttrMask> rtr = EnumSet.copyOf(RTR_MASK);
        rtr.add(QpAttrMask.ACCESS_FLAGS);
        qp.modify(rtrAttr(0x77).qpAccessFlags(Access.REMOTE_READ), rtr);
        EnumSet<QpAttrMask> rts = EnumSet.copyOf(RTS_MASK);
        rts.add(QpAttrMask.MIN_RNR_TIMER);
        qp.modify(rtsAttr().minRnrTimer(12), rts);
        QpAttr q = qp.query(new QpAttr());
        assertEquals(Access.REMOTE_READ, q.qpAccessFlags());
        assertEquals(12, q.minRnrTimer());
    }

    @Test
    public void modifyWithoutStateKeepsTheState() {
        QueuePair qp = qpIn(QpState.RTS);
        qp.modify(new QpAttr().qpState(QpState.ERR).minRnrTimer(9), EnumSet.of(QpAttrMask.MIN_RNR_TIMER));
        assertEquals(QpState.RTS, qp.state(), "qp_state counts only with STATE in the mask");
        assertEquals(9, qp.query(new QpAttr()).minRnrTimer());
    }

    @Test
    public void curStateMustMatchBadFlow() {
        QueuePair qp = qpIn(QpState.RTS);
        assertRefusedUnchanged(qp, () -> qp.modify(new QpAttr().qpState(QpState.RTS).curQpState(QpState.RESET),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.CUR_STATE)));
        qp.modify(new QpAttr().qpState(QpState.RTS).curQpState(QpState.RTS), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.CUR_STATE));
        assertEquals(QpState.RTS, qp.state());
    }

    @Test
    public void queryReportsTheConnectionAttributes() {
        Side[] p = rcPair(4096);
        QpAttr q = p[0].qp.query(new QpAttr());
        Link l = new Link();
        assertEquals(QpState.RTS, q.qpState());
        assertEquals(l.mtu, q.pathMtu());
        assertEquals(p[1].qp.qpNum(), q.destQpNum());
        assertEquals(l.psn, q.rqPsn());
        assertEquals(l.psn, q.sqPsn());
        assertEquals(l.timeout, q.timeout());
        assertEquals(l.retryCnt, q.retryCnt());
        assertEquals(l.rnrRetry, q.rnrRetry());
        assertEquals(l.minRnrTimer, q.minRnrTimer());
        assertEquals(l.maxRd, q.maxRdAtomic());
        assertEquals(l.maxRd, q.maxDestRdAtomic());
        assertEquals(l.qpAccess, q.qpAccessFlags());
        assertEquals(1, q.portNum());
        assertEquals(0, q.pkeyIndex());
        assertEquals(gid(b), q.ahAttr().dgid());
    }

    @Test
    public void badPortAndPkeyIndexAreEinvalBadFlow() {
        QueuePair qp = qpIn(QpState.RESET);
        int ports = a.queryDevice().physPortCnt();
        assertRefusedUnchanged(qp, () -> qp.modify(initAttr().portNum(ports + 1), INIT_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(initAttr().portNum(0), INIT_MASK));
        int pkeys = a.queryPort(1).pkeyTblLen();
        assertRefusedUnchanged(qp, () -> qp.modify(initAttr().pkeyIndex(pkeys), INIT_MASK));
    }

    @Test
    public void outOfRangeRtrValuesAreEinvalBadFlow() {
        QueuePair qp = qpIn(QpState.INIT);
        int maxRd = a.queryDevice().maxQpRdAtom();
        assertRefusedUnchanged(qp, () -> qp.modify(rtrAttr(0x77).minRnrTimer(32), RTR_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtrAttr(0x77).maxDestRdAtomic(maxRd + 1), RTR_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtrAttr(0x77).rqPsn(1 << 24), RTR_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtrAttr(1 << 24), RTR_MASK));
        int gids = a.queryPort(1).gidTblLen();
        assertRefusedUnchanged(qp, () -> qp.modify(rtrAttr(0x77).ahAttr(new AhAttr().isGlobal(true).dgid(gid(b))
                .sgidIndex(gids).portNum(1)), RTR_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtrAttr(0x77).pathMtu(null), RTR_MASK));
    }

    @Test
    public void outOfRangeRtsValuesAreEinvalBadFlow() {
        QueuePair qp = qpIn(QpState.RTR);
        int maxInit = a.queryDevice().maxQpInitRdAtom();
        assertRefusedUnchanged(qp, () -> qp.modify(rtsAttr().timeout(32), RTS_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtsAttr().retryCnt(8), RTS_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtsAttr().rnrRetry(8), RTS_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtsAttr().maxRdAtomic(maxInit + 1), RTS_MASK));
        assertRefusedUnchanged(qp, () -> qp.modify(rtsAttr().sqPsn(1 << 24), RTS_MASK));
        qp.modify(rtsAttr(), RTS_MASK);
        assertEquals(QpState.RTS, qp.state(), "the QP is still good for a correct modify");
    }

    // --------------------------------------------------------------------------------------------- posting

    @Test
    public void postSendBeforeRtsIsEinvalBadFlow() {
        for (QpState s : new QpState[] {QpState.RESET, QpState.INIT, QpState.RTR}) {
            Side x = sideA(4096, ALL_ACCESS);
            x.createQp(QpType.RC);
            walk(x.qp, s);
            VerbsException e = assertVerbsError(Errno.EINVAL, () -> x.qp.postSend(sendWr(x, 1, 0, 8)));
            assertEquals(0, e.badWrIndex(), () -> "in " + s);
            assertNoCompletion(x.cq, 5);
        }
    }

    @Test
    public void postRecvInResetIsEinvalButAllowedFromInitBadFlow() {
        Side x = sideA(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> x.postRecv(1, 0, 8));
        assertEquals(0, e.badWrIndex());
        walk(x.qp, QpState.INIT);
        x.postRecv(2, 0, 8);
        x.qp.modify(rtrAttr(0x77), RTR_MASK);
        x.postRecv(3, 64, 8);
        moveTo(x.qp, QpState.ERR);
        List<WorkCompletion> flushed = awaitN(x.cq, 2);
        assertEquals(List.of(2L, 3L), flushed.stream().map(WorkCompletion::wrId).toList(),
                "receives posted in INIT and RTR were queued");
    }

    @Test
    public void sendQueueFullIsEnomemWithTheBadWrIndexBadFlow() {
        Link link = new Link();
        link.timeout = 12; // about 17 ms until the requester tries again
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        moveTo(p[1].qp, QpState.RESET); // the peer drops everything: nothing is acknowledged, no slot frees up
        int depth = p[0].qp.cap().maxSendWr();
        SendWr chain = null;
        for (int i = depth + 1; i >= 0; i--) {
            chain = writeWr(p[0], i, 0, 8, p[1], 0).signaled(false).next(chain);
        }
        SendWr head = chain;
        VerbsException e = assertVerbsError(Errno.ENOMEM, () -> p[0].qp.postSend(head));
        assertEquals(depth, e.badWrIndex(), "the first request that did not fit");
        VerbsException again = assertVerbsError(Errno.ENOMEM, () -> p[0].qp.postSend(sendWr(p[0], 99, 0, 8)));
        assertEquals(0, again.badWrIndex());
        assertEquals(QpState.RTS, p[0].qp.state(), "a full queue is no error of the QP");
        // the peer comes back with the same PSNs: the posted requests are retransmitted and drain the queue
        connect(p[1], p[0], link);
        awaitCondition("the send queue drains", () -> {
            try {
                p[0].qp.postSend(writeWr(p[0], 500, 0, 8, p[1], 0));
                return true;
            } catch (VerbsException full) {
                assertEquals(Errno.ENOMEM, full.errno());
                return false;
            }
        });
        assertEquals(500, await(p[0].cq, WcStatus.SUCCESS).wrId(), "only the signaled request completes");
        assertNoCompletion(p[0].cq, 10);
    }

    @Test
    public void receiveQueueFullIsEnomemWithTheBadWrIndexBadFlow() {
        Side[] p = rcPair(4096);
        int depth = p[1].qp.cap().maxRecvWr();
        RecvWr chain = null;
        for (int i = depth + 2; i >= 0; i--) {
            chain = new RecvWr().wrId(i).sg(p[1].sge(0, 8)).next(chain);
        }
        RecvWr head = chain;
        VerbsException e = assertVerbsError(Errno.ENOMEM, () -> p[1].qp.postRecv(head));
        assertEquals(depth, e.badWrIndex());
        p[0].qp.postSend(sendWr(p[0], 1, 0, 8));
        assertEquals(0, await(p[1].cq, WcStatus.SUCCESS).wrId(), "the first posted receive is consumed first");
        p[1].postRecv(77, 0, 8); // one slot freed, one receive fits again
        assertVerbsError(Errno.ENOMEM, () -> p[1].postRecv(78, 0, 8));
    }

    @Test
    public void tooManySgesIsEinvalAndEarlierRequestsArePostedBadFlow() {
        Side[] p = rcPair(4096);
        int max = p[0].qp.cap().maxSendSge();
        Sge[] many = new Sge[max + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = p[0].sge(i, 1);
        }
        p[1].postRecv(1, 0, 64);
        p[1].postRecv(2, 64, 64);
        SendWr bad = sendWr(p[0], 11, 0, 0).sg(many);
        SendWr good = sendWr(p[0], 10, 0, 4).next(bad.next(sendWr(p[0], 12, 0, 4)));
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(good));
        assertEquals(1, e.badWrIndex());
        assertTrue(e.getMessage().contains("max_send_sge"), e::getMessage);
        assertEquals(10, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[0].cq, 20);
        assertEquals(1, await(p[1].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[1].cq, 5);
    }

    @Test
    public void tooManyReceiveSgesIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        int max = p[1].qp.cap().maxRecvSge();
        Sge[] many = new Sge[max + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = p[1].sge(i * 8L, 8);
        }
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[1].qp.postRecv(new RecvWr().wrId(1).sg(many)));
        assertEquals(0, e.badWrIndex());
    }

    @Test
    public void inlineBeyondMaxInlineIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        int max = p[0].qp.cap().maxInlineData();
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 1, 0, max + 1)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)));
        assertEquals(0, e.badWrIndex());
        assertTrue(e.getMessage().contains("max_inline_data"), e::getMessage);
    }

    @Test
    public void numSgeLargerThanTheListIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        SendWr wr = sendWr(p[0], 1, 0, 8).numSge(2); // the list holds one entry
        assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(wr));
    }

    // --------------------------------------------------------------------------------------------- ERR, RESET, destroy

    @Test
    public void errFlushesEveryOutstandingSendAndReceiveExactlyOnce() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        for (int i = 0; i < 3; i++) {
            x.postRecv(100 + i, i * 64L, 64);
        }
        // the peer has no receive: it RNR-NAKs the SEND and drops what follows, so all of these stay outstanding
        x.qp.postSend(sendWr(x, 1, 0, 8));
        x.qp.postSend(writeWr(x, 2, 0, 8, p[1], 0).signaled(false));
        x.qp.postSend(readWr(x, 3, 512, 8, p[1], 0));
        moveTo(x.qp, QpState.ERR);
        List<WorkCompletion> flushed = new ArrayList<>();
        WorkCompletion[] w = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (flushed.size() < 6 && System.nanoTime() - deadline < 0) {
            if (x.cq.poll(w, 1) == 1) { // polls only x: the peer stays quiet
                flushed.add(new WorkCompletion().copyFrom(w[0]));
            }
        }
        assertEquals(List.of(1L, 2L, 3L, 100L, 101L, 102L), flushed.stream().map(WorkCompletion::wrId).sorted()
                .toList(), "every send (even unsignaled) and every receive");
        for (WorkCompletion wc : flushed) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc::toString);
            assertEquals(x.qp.qpNum(), wc.qpNum());
        }
        assertEquals(List.of(1L, 2L, 3L), flushed.stream().filter(wc -> wc.wrId() < 100).map(WorkCompletion::wrId)
                .toList(), "sends flush in posting order");
        moveTo(x.qp, QpState.ERR);
        moveTo(x.qp, QpState.RESET);
        assertNoCompletion(x.cq, 30);
    }

    @Test
    public void postingInErrIsAcceptedAndFlushed() {
        Side[] p = rcPair(4096);
        moveTo(p[0].qp, QpState.ERR);
        p[0].qp.postSend(sendWr(p[0], 1, 0, 8).signaled(false));
        p[0].postRecv(2, 0, 8);
        List<WorkCompletion> got = awaitN(p[0].cq, 2);
        assertEquals(Set.of(1L, 2L), Set.of(got.get(0).wrId(), got.get(1).wrId()));
        for (WorkCompletion wc : got) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
        }
        assertNoCompletion(p[1].cq, 10);
    }

    @Test
    public void resetDiscardsOutstandingRequestsWithoutCompletions() {
        Side x = sideA(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        walk(x.qp, QpState.INIT);
        for (int i = 0; i < 5; i++) {
            x.postRecv(i, 0, 8);
        }
        moveTo(x.qp, QpState.RESET);
        assertNoCompletion(x.cq, 20);
        walk(x.qp, QpState.INIT);
        moveTo(x.qp, QpState.ERR);
        assertNoCompletion(x.cq, 20); // nothing left to flush: RESET emptied the queues
    }

    @Test
    public void qpIsReusableAfterReset() {
        Side[] p = rcPair(8192);
        p[1].postRecv(1, 0, 100);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 100));
        await(p[0].cq, WcStatus.SUCCESS);
        await(p[1].cq, WcStatus.SUCCESS);
        moveTo(p[0].qp, QpState.ERR);
        moveTo(p[0].qp, QpState.RESET);
        moveTo(p[1].qp, QpState.RESET);
        Link again = new Link();
        again.psn = 0xABCDE; // a new incarnation starts from fresh PSNs
        connect(p[0], p[1], again);
        connect(p[1], p[0], again);
        fill(p[0].buf.asSlice(0, 3000), 12);
        p[1].postRecv(3, 4096, 4096);
        p[0].qp.postSend(sendWr(p[0], 4, 0, 3000));
        assertEquals(4, await(p[0].cq, WcStatus.SUCCESS).wrId());
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(3, r.wrId());
        assertEquals(3000, r.byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 3000).mismatch(p[1].buf.asSlice(4096, 3000)));
    }

    @Test
    public void destroyWithOutstandingRequestsProducesNoCompletions() {
        Side[] p = rcPair(4096);
        for (int i = 0; i < 4; i++) {
            p[0].postRecv(10 + i, 0, 8);
        }
        p[0].qp.postSend(sendWr(p[0], 1, 0, 8));
        p[0].qp.postSend(writeWr(p[0], 2, 0, 8, p[1], 0));
        p[0].qp.close();
        assertNoCompletion(p[0].cq, 30);
        p[0].cq.close(); // nothing holds the CQ or the PD any more
        p[0].mr.close();
        p[0].pd.close();
    }

    @Test
    public void sqSigAllCompletesUnsignaledRequests() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(x.cq).recvCq(x.cq).cap(defaultCap()).sqSigAll(true));
        y.createQp(QpType.RC);
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        x.qp.postSend(writeWr(x, 1, 0, 8, y, 0).signaled(false));
        x.qp.postSend(writeWr(x, 2, 0, 8, y, 8).signaled(false));
        assertEquals(List.of(1L, 2L), awaitN(x.cq, 2).stream().map(WorkCompletion::wrId).toList());
    }

    @Test
    public void withoutSqSigAllOnlySignaledRequestsComplete() {
        Side[] p = rcPair(4096);
        fill(p[0].buf.asSlice(0, 64), 3);
        for (int i = 0; i < 4; i++) {
            p[0].qp.postSend(writeWr(p[0], i, i * 16L, 16, p[1], i * 16L).signaled(false));
        }
        p[0].qp.postSend(writeWr(p[0], 9, 0, 0, p[1], 0));
        WorkCompletion wc = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(9, wc.wrId());
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        assertNoCompletion(p[0].cq, 20);
        assertEquals(-1, p[0].buf.asSlice(0, 64).mismatch(p[1].buf.asSlice(0, 64)));
    }

    @Test
    public void requestsPostedInSqdWaitForRts() {
        Side[] p = rcPair(4096);
        moveTo(p[0].qp, QpState.SQD);
        assertEquals(QpState.SQD, p[0].qp.query(new QpAttr()).qpState());
        p[1].postRecv(1, 0, 8);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        assertNoCompletion(p[0].cq, 30);
        assertNoCompletion(p[1].cq, 1);
        moveTo(p[0].qp, QpState.RTS);
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(1, await(p[1].cq, WcStatus.SUCCESS).wrId());
    }

    @Test
    public void receivesStillWorkInSqd() {
        Side[] p = rcPair(4096);
        moveTo(p[1].qp, QpState.SQD); // SQD drains the send queue only; the receive side carries on
        p[1].postRecv(1, 0, 8);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(1, await(p[1].cq, WcStatus.SUCCESS).wrId());
    }

    @Test
    public void qpStateAfterRemoteErrorIsVisibleInQuery() {
        Side[] p = rcPair(4096);
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 8, p[1], 0).rkey(p[1].mr.rkey() ^ 0x5A00),
                WcStatus.REM_ACCESS_ERR);
        assertEquals(QpState.ERR, p[0].qp.query(new QpAttr()).qpState());
        assertEquals(QpState.ERR, p[1].qp.query(new QpAttr()).qpState());
    }

    @Test
    public void requestsBeforeARefusedOneStartAtOnce() {
        Side[] p = rcPair(4096);
        p[1].postRecv(1, 0, 64);
        SendWr bad = sendWr(p[0], 11, 0, 8).numSge(p[0].qp.cap().maxSendSge() + 1);
        assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 10, 0, 8).next(bad)));
        // only the peer is driven from here on: the accepted SEND must already be on its way (as rxe kicks the
        // send queue for the requests it accepted before the bad one), not wait for the next post or poll at x
        WorkCompletion[] w = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT.toNanos();
        int got = 0;
        while (got == 0 && System.nanoTime() - deadline < 0) {
            got = p[1].cq.poll(w, 1);
        }
        assertEquals(1, got, "the SEND accepted before the refused request reached the peer");
        assertEquals(1, w[0].wrId());
    }

    // --------------------------------------------------------------------------------------------- connections

    @Test
    public void aResponderInRtrReceivesAndAcknowledges() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        y.createQp(QpType.RC);
        Link link = new Link();
        connect(x, y, link);
        y.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(link.qpAccess),
                INIT_MASK);
        y.qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(link.mtu).destQpNum(x.qp.qpNum()).rqPsn(link.psn)
                .maxDestRdAtomic(link.maxRd).minRnrTimer(link.minRnrTimer).ahAttr(route(a)), RTR_MASK);
        fill(x.buf.asSlice(0, 100), 1);
        y.postRecv(1, 0, 100);
        x.qp.postSend(sendWr(x, 2, 0, 100).next(writeWr(x, 3, 0, 100, y, 1000)));
        assertEquals(List.of(2L, 3L), awaitN(x.cq, 2).stream().map(WorkCompletion::wrId).toList(),
                "a QP in RTR receives and acknowledges; it only cannot send");
        assertEquals(100, await(y.cq, WcStatus.SUCCESS).byteLen());
        assertEquals(QpState.RTR, y.qp.state());
        assertEquals(-1, x.buf.asSlice(0, 100).mismatch(y.buf.asSlice(1000, 100)));
    }

    @Test
    public void manyConnectionsBetweenTheSameTwoDevices() {
        int n = 12;
        List<Side[]> pairs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pairs.add(rcPair(4096));
        }
        for (int i = 0; i < n; i++) {
            Side[] p = pairs.get(i);
            fill(p[0].buf.asSlice(0, 64), i);
            p[1].postRecv(i, 0, 64);
            p[0].qp.postSend(sendWr(p[0], 100 + i, 0, 64));
        }
        for (int i = 0; i < n; i++) {
            Side[] p = pairs.get(i);
            assertEquals(100 + i, await(p[0].cq, WcStatus.SUCCESS).wrId());
            WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
            assertEquals(i, r.wrId(), "each message reaches the QP it was sent to");
            assertEquals(p[1].qp.qpNum(), r.qpNum());
            assertEquals(-1, p[0].buf.asSlice(0, 64).mismatch(p[1].buf.asSlice(0, 64)));
        }
    }

    @Test
    public void psnsWrapAroundTheTwentyFourBitSpace() {
        Link link = new Link();
        link.psn = 0xFFFFFE; // every message below crosses or follows the wrap to 0
        Side[] p = connectedPair(QpType.RC, 1 << 16, ALL_ACCESS, link);
        int mtu = link.mtu.bytes();
        fill(p[0].buf.asSlice(0, 5 * mtu), 2);
        fill(p[1].buf.asSlice(32768, 5 * mtu), 3);
        p[1].postRecv(1, 8192, 5 * mtu);
        p[0].qp.postSend(sendWr(p[0], 10, 0, 5 * mtu)
                .next(writeWr(p[0], 11, 0, 3 * mtu + 1, p[1], 16384)
                .next(readWr(p[0], 12, 40000, 5 * mtu, p[1], 32768)
                .next(sendWr(p[0], 13, 0, 0)))));
        p[1].postRecv(2, 0, 8);
        assertEquals(List.of(10L, 11L, 12L, 13L), awaitN(p[0].cq, 4).stream().filter(WorkCompletion::isSuccess)
                .map(WorkCompletion::wrId).toList());
        assertEquals(5 * mtu, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(0, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 5 * mtu).mismatch(p[1].buf.asSlice(8192, 5 * mtu)));
        assertEquals(-1, p[0].buf.asSlice(0, 3 * mtu + 1).mismatch(p[1].buf.asSlice(16384, 3 * mtu + 1)));
        assertEquals(-1, p[1].buf.asSlice(32768, 5 * mtu).mismatch(p[0].buf.asSlice(40000, 5 * mtu)));
        int sq = p[0].qp.query(new QpAttr()).sqPsn();
        assertEquals((0xFFFFFE + 5 + 4 + 5 + 1) & 0xFFFFFF, sq, "the next PSN wrapped past 0");
    }

    @Test
    public void changingAccessFlagsInRtsTakesEffect() {
        Side[] p = rcPair(4096);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 8, p[1], 0));
        await(p[0].cq, WcStatus.SUCCESS);
        p[1].qp.modify(new QpAttr().qpState(QpState.RTS).qpAccessFlags(Access.REMOTE_READ),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS));
        assertEquals(Access.REMOTE_READ, p[1].qp.query(new QpAttr()).qpAccessFlags());
        p[0].qp.postSend(readWr(p[0], 2, 0, 8, p[1], 0));
        await(p[0].cq, WcStatus.SUCCESS);
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 8, p[1], 0), WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    public void aSilentPeerExhaustsTheTransportRetriesBadFlow() {
        Link link = new Link();
        link.timeout = 8; // 4.096 us * 2^8 = about 1 ms per try
        link.retryCnt = 2;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        p[1].qp.close(); // nothing answers at the destination QPN any more
        long t0 = System.nanoTime();
        p[0].qp.postSend(writeWr(p[0], 1, 0, 8, p[1], 0).next(sendWr(p[0], 2, 0, 8)));
        WorkCompletion wc = await(p[0].cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.RETRY_EXC_ERR, wc.status(), wc::toString);
        assertTrue(System.nanoTime() - t0 >= 3_000_000L, "three timeouts of about 1 ms each went by first");
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
    }

    @Test
    public void aPeerInErrIsSilentToo() {
        Link link = new Link();
        link.timeout = 8;
        link.retryCnt = 1;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        moveTo(p[1].qp, QpState.ERR);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 8, p[1], 0));
        assertEquals(WcStatus.RETRY_EXC_ERR, await(p[0].cq).status());
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_LONG, 0), "a QP in ERR executes nothing");
    }

    @Test
    public void inlineReadIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(readWr(p[0], 1, 0, 8, p[1], 0)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)));
        assertEquals(0, e.badWrIndex());
    }
}
