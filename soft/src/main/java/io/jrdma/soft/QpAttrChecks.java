package io.jrdma.soft;

import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.spi.QpAttrRanges;
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
        // with an SRQ the receive caps are ignored, as rxe_qp_chk_cap does
        QpAttrRanges.caps(c, attr.srq() != null, SoftLimits.MAX_QP_WR, SoftLimits.MAX_SGE, SoftLimits.MAX_INLINE);
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
        if (m.contains(QpAttrMask.PATH_MTU) && a.pathMtu() != null && a.pathMtu().bytes() > activeMtu.bytes()) {
            throw new VerbsException(Errno.EINVAL, "path_mtu " + a.pathMtu().bytes()
                    + " exceeds the port's active MTU " + activeMtu.bytes());
        }
        QpAttrRanges.check(a, m, SoftLimits.MAX_RD_ATOMIC, SoftLimits.MAX_RD_ATOMIC); // and a path_mtu present
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
