package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
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

/**
 * What the RC queue pair cases ({@link QpTck}, {@link QpQueueTck}) share: a QP of context {@code a} created with
 * given caps, the attributes of each connecting transition (aimed at a dummy QPN on context {@code b}), a walk up
 * the state machine to a given state, and the assertions that a refused modify changes nothing.
 */
abstract class QpTckBase extends Tck {

    static final EnumSet<QpAttrMask> INIT_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
            QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS);
    static final EnumSet<QpAttrMask> RTR_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
            QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC,
            QpAttrMask.MIN_RNR_TIMER);
    static final EnumSet<QpAttrMask> RTS_MASK = EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN,
            QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC);

    QueuePair newQp(QpCap cap) {
        CompletionQueue cq = closeLater(a.createCq(64));
        return closeLater(closeLater(a.allocPd()).createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq)
                .recvCq(cq).cap(cap)));
    }

    static QpAttr initAttr() {
        return new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(Access.REMOTE_WRITE);
    }

    QpAttr rtrAttr(int destQpn) {
        return new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(destQpn).rqPsn(0x11)
                .maxDestRdAtomic(2).minRnrTimer(3).ahAttr(route(b));
    }

    static QpAttr rtsAttr() {
        return new QpAttr().qpState(QpState.RTS).sqPsn(0x22).timeout(14).retryCnt(6).rnrRetry(5).maxRdAtomic(2);
    }

    /** A QP of context a brought to {@code target} (RESET, INIT, RTR, RTS, SQD or ERR) aimed at a dummy QPN. */
    QueuePair qpIn(QpState target) {
        QueuePair qp = newQp(defaultCap());
        walk(qp, target);
        return qp;
    }

    void walk(QueuePair qp, QpState target) {
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
    static void assertIllegal(QueuePair qp, QpState... targets) {
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
    static void assertRefusedUnchanged(QueuePair qp, Runnable change) {
        String before = qp.query(new QpAttr()).toString();
        QpState state = qp.state();
        assertVerbsError(Errno.EINVAL, change::run);
        assertEquals(state, qp.state());
        assertEquals(before, qp.query(new QpAttr()).toString(), "a refused modify changes no attribute");
    }

}
