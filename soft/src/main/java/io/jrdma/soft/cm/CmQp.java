package io.jrdma.soft.cm;

import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import java.util.EnumSet;

/**
 * The QP transitions the CM makes, with the attributes the kernel's rdma_cm and ib_cm choose (cma_init_ib_qp,
 * cm_init_qp_init_attr, cm_init_qp_rtr_attr, cm_init_qp_rts_attr, cma_init_ud_qp).
 */
final class CmQp {

    private CmQp() {
    }

    /** rdma_create_qp: an RC/UC QP to INIT with no remote access yet; a UD QP to RTS with {@code qkey}. */
    static void init(QueuePair qp, int qkey) {
        if (qp.type() == QpType.UD) {
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            qp.modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            return;
        }
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
    }

    /** The Q_Key rdma_cm gives a UD QP of {@code ps}. */
    static int qkey(PortSpace ps) {
        return PortSpace.UDP_QKEY;
    }

    /**
     * INIT again with the connection's access (remote write; read and atomic too when the peer may send them),
     * then RTR toward the peer.
     */
    static void rtr(QueuePair qp, CmConnection id) {
        int access = Access.REMOTE_WRITE;
        if (id.responderResources() > 0) {
            access |= Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        }
        if (qp.state() == QpState.INIT) {
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(access),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        }
        QpAttr a = new QpAttr().qpState(QpState.RTR).ahAttr(new AhAttr().copyFrom(id.ahAttr()))
                .pathMtu(id.pathMtu()).destQpNum(id.remoteQpn()).rqPsn(id.rqPsn());
        EnumSet<QpAttrMask> mask = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN);
        if (qp.type() == QpType.RC) {
            a.maxDestRdAtomic(id.responderResources()).minRnrTimer(0);
            mask.add(QpAttrMask.MAX_DEST_RD_ATOMIC);
            mask.add(QpAttrMask.MIN_RNR_TIMER);
        }
        qp.modify(a, mask);
    }

    /** RTS: the peer's starting PSN, and for RC the ACK timeout and retry counts of the connection. */
    static void rts(QueuePair qp, CmConnection id) {
        QpAttr a = new QpAttr().qpState(QpState.RTS).sqPsn(id.sqPsn());
        EnumSet<QpAttrMask> mask = EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (qp.type() == QpType.RC) {
            a.timeout(id.settings().ackTimeout()).retryCnt(id.retryCount()).rnrRetry(id.rnrRetryCount())
                    .maxRdAtomic(id.initiatorDepth());
            mask.addAll(EnumSet.of(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC));
        }
        qp.modify(a, mask);
    }

    /** ERR (rdma_disconnect's cma_modify_qp_err); a QP already in RESET or ERR is left alone. */
    static void error(QueuePair qp) {
        QpState s = qp.state();
        if (s != QpState.RESET && s != QpState.ERR) {
            qp.modify(new QpAttr().qpState(QpState.ERR), EnumSet.of(QpAttrMask.STATE));
        }
    }
}
