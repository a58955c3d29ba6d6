package io.jrdma.ibverbs;

import static io.jrdma.verbs.spi.QpAttrRanges.range;

import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.spi.QpAttrRanges;
import java.util.Set;

/**
 * The checks of ibv_create_qp's and ibv_modify_qp's values that libibverbs leaves to the kernel, done first so a
 * bad value is refused with EINVAL naming it: the kernel refuses some with a bare EINVAL and silently truncates
 * others into their u8 or 24-bit fields (a timeout of 32, a retry count of 8, a PSN of 2^24). Ranges are the
 * IBTA's; limits are the device's (ibv_query_device, ibv_query_port).
 */
final class AttrChecks {

    private AttrChecks() {
    }

    /** ibv_create_qp's caps against the device's limits (receive caps are ignored with an SRQ, as in rxe). */
    static void caps(QpCap c, boolean srq, DeviceAttr d) {
        QpAttrRanges.caps(c, srq, d.maxQpWr(), d.maxSge(), d.maxInlineData());
    }

    /** The values of a modify's attributes named in {@code m}, whatever the transition. */
    static void values(IbvContext ctx, QpAttr a, Set<QpAttrMask> m) {
        DeviceAttr d = null;
        if (m.contains(QpAttrMask.PORT) || m.contains(QpAttrMask.MAX_QP_RD_ATOMIC)
                || m.contains(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            d = ctx.attrs();
        }
        int port = a.portNum();
        if (m.contains(QpAttrMask.PORT)) {
            range(port, 1, d.physPortCnt(), "port_num");
        }
        if (m.contains(QpAttrMask.PKEY_INDEX)) {
            int len = ctx.queryPort(m.contains(QpAttrMask.PORT) ? port : 1).pkeyTblLen();
            range(a.pkeyIndex(), 0, len - 1, "pkey_index");
        }
        if (d == null) { // neither depth is named, so their limits go unused
            QpAttrRanges.check(a, m, 0, 0);
        } else {
            QpAttrRanges.check(a, m, d.maxQpInitRdAtom(), d.maxQpRdAtom());
        }
        if (m.contains(QpAttrMask.DEST_QPN)) {
            range(a.destQpNum(), 0, 0xFFFFFF, "dest_qp_num");
        }
        if (m.contains(QpAttrMask.RQ_PSN)) {
            range(a.rqPsn(), 0, 0xFFFFFF, "rq_psn");
        }
        if (m.contains(QpAttrMask.SQ_PSN)) {
            range(a.sqPsn(), 0, 0xFFFFFF, "sq_psn");
        }
        if (m.contains(QpAttrMask.AV)) {
            av(ctx, a.ahAttr(), "ah_attr");
        }
        if (m.contains(QpAttrMask.ALT_PATH)) {
            av(ctx, a.altAhAttr(), "alt_ah_attr");
        }
    }

    /** An address vector (ibv_create_ah's, a QP's path): a port of the device, a GID index in its table. */
    static void av(IbvContext ctx, AhAttr av, String name) {
        if (av == null) {
            throw new VerbsException(Errno.EINVAL, name + " is missing");
        }
        range(av.portNum(), 1, ctx.attrs().physPortCnt(), name + ".port_num");
        range(av.sl(), 0, 15, name + ".sl");
        if (av.isGlobal()) {
            int gids = ctx.queryPort(av.portNum()).gidTblLen();
            range(av.sgidIndex(), 0, Math.min(255, gids - 1), name + ".grh.sgid_index");
            range(av.hopLimit(), 0, 255, name + ".grh.hop_limit");
            range(av.trafficClass(), 0, 255, name + ".grh.traffic_class");
            range(av.flowLabel(), 0, 0xFFFFF, name + ".grh.flow_label");
        }
    }
}
