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
import io.jrdma.verbs.VerbsException;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * RC queue pairs (ibv_create_qp, ibv_modify_qp, ibv_query_qp), as rdma-core's tests/test_qp.py and test_qpex.py:
 * creation within and beyond the device's limits, and the IBTA state machine with its required and optional
 * attributes and what ibv_query_qp reports. Posting per state, ERR, RESET, destroy and connections are
 * {@link QpQueueTck}'s.
 */
public abstract class QpTck extends QpTckBase {

    /** For a provider's test class that runs these tests. */
    protected QpTck() {
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

}
