package io.jrdma.verbs.spi;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.VerbsException;
import java.util.Set;

/**
 * The provider-independent checks of ibv_create_qp's caps and ibv_modify_qp's attribute values, for providers to
 * refuse a bad value with EINVAL naming its field before it reaches their device: the IBTA's ranges (timeout,
 * retry_cnt, rnr_retry, min_rnr_timer, the u8 depths), a path MTU that is present, and the device's limits, which
 * each provider passes in. Device-specific checks (ports, P_Key and GID tables, address vectors) stay with the
 * provider.
 */
public final class QpAttrRanges {

    private QpAttrRanges() {
    }

    /**
     * Checks that {@code value} is in {@code [min, max]}.
     *
     * @param value the value
     * @param min   the least value allowed
     * @param max   the greatest value allowed
     * @param name  the field's name, for the message
     * @throws VerbsException EINVAL "{@code name value} is out of range [{@code min}, {@code max}]"
     */
    public static void range(long value, long min, long max, String name) {
        if (value < min || value > max) {
            throw new VerbsException(Errno.EINVAL, name + " " + value + " is out of range [" + min + ", " + max + "]");
        }
    }

    /**
     * Checks ibv_create_qp's caps against the device's limits; the receive caps are ignored with an SRQ, as in rxe.
     *
     * @param c             the caps
     * @param srq           whether the QP takes its receive requests from an SRQ
     * @param maxWr         the device's most work requests per queue (max_qp_wr)
     * @param maxSge        the device's most scatter/gather entries per request (max_sge)
     * @param maxInlineData the device's most inline data bytes per send request
     * @throws VerbsException EINVAL naming the first cap out of range
     */
    public static void caps(QpCap c, boolean srq, int maxWr, int maxSge, int maxInlineData) {
        range(c.maxSendWr(), 0, maxWr, "max_send_wr");
        range(c.maxSendSge(), 0, maxSge, "max_send_sge");
        if (!srq) {
            range(c.maxRecvWr(), 0, maxWr, "max_recv_wr");
            range(c.maxRecvSge(), 0, maxSge, "max_recv_sge");
        }
        range(c.maxInlineData(), 0, maxInlineData, "max_inline_data");
    }

    /**
     * Checks the values of a modify's attributes named in {@code m}, whatever the transition: path_mtu present,
     * timeout and min_rnr_timer 0..31, retry_cnt and rnr_retry 0..7, max_rd_atomic and max_dest_rd_atomic at most
     * the device's limit and 255.
     *
     * @param a               the attributes
     * @param m               the attributes to check
     * @param maxRdAtomic     the device's most outgoing RDMA reads and atomics per QP (max_qp_init_rd_atom)
     * @param maxDestRdAtomic the device's most incoming RDMA reads and atomics per QP (max_qp_rd_atom)
     * @throws VerbsException EINVAL naming the first bad value
     */
    public static void check(QpAttr a, Set<QpAttrMask> m, int maxRdAtomic, int maxDestRdAtomic) {
        if (m.contains(QpAttrMask.PATH_MTU) && a.pathMtu() == null) {
            throw new VerbsException(Errno.EINVAL, "path_mtu is missing");
        }
        if (m.contains(QpAttrMask.TIMEOUT)) {
            range(a.timeout(), 0, 31, "timeout");
        }
        if (m.contains(QpAttrMask.RETRY_CNT)) {
            range(a.retryCnt(), 0, 7, "retry_cnt");
        }
        if (m.contains(QpAttrMask.RNR_RETRY)) {
            range(a.rnrRetry(), 0, 7, "rnr_retry");
        }
        if (m.contains(QpAttrMask.MIN_RNR_TIMER)) {
            range(a.minRnrTimer(), 0, 31, "min_rnr_timer");
        }
        if (m.contains(QpAttrMask.MAX_QP_RD_ATOMIC)) {
            range(a.maxRdAtomic(), 0, Math.min(255, maxRdAtomic), "max_rd_atomic");
        }
        if (m.contains(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            range(a.maxDestRdAtomic(), 0, Math.min(255, maxDestRdAtomic), "max_dest_rd_atomic");
        }
    }
}
