package io.jrdma.soft;

import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.VerbsException;
import java.util.Set;

/**
 * The checks of ibv_create_qp's and ibv_modify_qp's attribute values that do not depend on the QP's state (those
 * are {@link io.jrdma.verbs.QpTransitions}' and {@link SoftQp#modify}'s): ranges, 24-bit fields, the port, the
 * P_Key index, the path MTU against the port's, and a RoCEv2 address vector.
 */
final class QpAttrChecks {

    private QpAttrChecks() {
    }

    /** ibv_create_qp's attributes against the device's limits (rxe_qp_chk_cap); EINVAL for a bad one. */
    static void caps(QpInitAttr attr) {
        if (attr.qpType() == null) {
            throw new VerbsException(Errno.EINVAL, "QpInitAttr.qpType is missing");
        }
        if (attr.sendCq() == null || attr.recvCq() == null) {
            throw new VerbsException(Errno.EINVAL, "a QP needs a send CQ and a receive CQ");
        }
        QpCap c = attr.cap();
        if (c == null) {
            throw new VerbsException(Errno.EINVAL, "QpInitAttr.cap is missing");
        }
        check(c.maxSendWr(), 0, SoftLimits.MAX_QP_WR, "max_send_wr");
        check(c.maxSendSge(), 0, SoftLimits.MAX_SGE, "max_send_sge");
        if (attr.srq() == null) { // with an SRQ the receive caps are ignored, as rxe_qp_chk_cap does
            check(c.maxRecvWr(), 0, SoftLimits.MAX_QP_WR, "max_recv_wr");
            check(c.maxRecvSge(), 0, SoftLimits.MAX_SGE, "max_recv_sge");
        }
        check(c.maxInlineData(), 0, SoftLimits.MAX_INLINE, "max_inline_data");
    }

    private static void check(int v, int min, int max, String name) {
        if (v < min || v > max) {
            throw new VerbsException(Errno.EINVAL, name + " " + v + " is out of range [" + min + ", " + max + "]");
        }
    }

    /** The values of a modify's attributes named in {@code m}, whatever the transition; EINVAL for a bad one. */
    static void values(QpAttr a, Set<QpAttrMask> m, Mtu activeMtu) {
        if (m.contains(QpAttrMask.PORT) && a.portNum() != 1) {
            throw new VerbsException(Errno.EINVAL, "port_num " + a.portNum()
                    + " does not exist (the device has port 1)");
        }
        if (m.contains(QpAttrMask.PKEY_INDEX) && a.pkeyIndex() != 0) {
            throw new VerbsException(Errno.EINVAL, "pkey_index " + a.pkeyIndex() + " is out of range (table length 1)");
        }
        if (m.contains(QpAttrMask.PATH_MTU)) {
            if (a.pathMtu() == null) {
                throw new VerbsException(Errno.EINVAL, "path_mtu is missing");
            }
            if (a.pathMtu().bytes() > activeMtu.bytes()) {
                throw new VerbsException(Errno.EINVAL, "path_mtu " + a.pathMtu().bytes()
                        + " exceeds the port's active MTU " + activeMtu.bytes());
            }
        }
        if (m.contains(QpAttrMask.TIMEOUT)) {
            check(a.timeout(), 0, 31, "timeout");
        }
        if (m.contains(QpAttrMask.RETRY_CNT)) {
            check(a.retryCnt(), 0, 7, "retry_cnt");
        }
        if (m.contains(QpAttrMask.RNR_RETRY)) {
            check(a.rnrRetry(), 0, 7, "rnr_retry");
        }
        if (m.contains(QpAttrMask.MIN_RNR_TIMER)) {
            check(a.minRnrTimer(), 0, 31, "min_rnr_timer");
        }
        if (m.contains(QpAttrMask.MAX_QP_RD_ATOMIC)) {
            check(a.maxRdAtomic(), 0, SoftLimits.MAX_RD_ATOMIC, "max_rd_atomic");
        }
        if (m.contains(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            check(a.maxDestRdAtomic(), 0, SoftLimits.MAX_RD_ATOMIC, "max_dest_rd_atomic");
        }
        if (m.contains(QpAttrMask.DEST_QPN) && (a.destQpNum() & ~0xFFFFFF) != 0) {
            throw new VerbsException(Errno.EINVAL, "dest_qp_num 0x" + Integer.toHexString(a.destQpNum())
                    + " is not a 24-bit QPN");
        }
        if (m.contains(QpAttrMask.RQ_PSN) && (a.rqPsn() & ~0xFFFFFF) != 0) {
            throw new VerbsException(Errno.EINVAL, "rq_psn " + a.rqPsn() + " is not a 24-bit PSN");
        }
        if (m.contains(QpAttrMask.SQ_PSN) && (a.sqPsn() & ~0xFFFFFF) != 0) {
            throw new VerbsException(Errno.EINVAL, "sq_psn " + a.sqPsn() + " is not a 24-bit PSN");
        }
        if (m.contains(QpAttrMask.AV)) {
            AhAttr av = a.ahAttr();
            if (av == null || !av.isGlobal() || av.dgid() == null) {
                throw new VerbsException(Errno.EINVAL, "RoCE needs a global route in ah_attr (is_global and dgid)");
            }
            if (!av.dgid().isIpv4Mapped()) {
                throw new VerbsException(Errno.EINVAL, "dgid " + av.dgid()
                        + " is not an IPv4-mapped GID; this device speaks RoCEv2 over IPv4 (use GID index 1)");
            }
            if (av.sgidIndex() < 0 || av.sgidIndex() >= SoftLimits.GID_TABLE_LENGTH) {
                throw new VerbsException(Errno.EINVAL, "sgid_index " + av.sgidIndex() + " is out of range [0, "
                        + (SoftLimits.GID_TABLE_LENGTH - 1) + "]");
            }
        }
    }
}
