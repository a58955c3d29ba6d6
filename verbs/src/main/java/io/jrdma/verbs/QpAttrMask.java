package io.jrdma.verbs;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The attributes an ibv_modify_qp call changes (ibv_qp_attr_mask), each with its libibverbs bit. Which ones a
 * state transition requires or allows is in {@link QpTransitions}.
 */
public enum QpAttrMask {
    /** IBV_QP_STATE: {@link QpAttr#qpState()}, the state to move to. */
    STATE(0),
    /** IBV_QP_CUR_STATE: {@link QpAttr#curQpState()}, the state the caller assumes the QP is in. */
    CUR_STATE(1),
    /** IBV_QP_EN_SQD_ASYNC_NOTIFY: {@link QpAttr#enSqdAsyncNotify()}. */
    EN_SQD_ASYNC_NOTIFY(2),
    /** IBV_QP_ACCESS_FLAGS: {@link QpAttr#qpAccessFlags()}. */
    ACCESS_FLAGS(3),
    /** IBV_QP_PKEY_INDEX: {@link QpAttr#pkeyIndex()}. */
    PKEY_INDEX(4),
    /** IBV_QP_PORT: {@link QpAttr#portNum()}. */
    PORT(5),
    /** IBV_QP_QKEY: {@link QpAttr#qkey()}. */
    QKEY(6),
    /** IBV_QP_AV: {@link QpAttr#ahAttr()}, the primary path's address vector. */
    AV(7),
    /** IBV_QP_PATH_MTU: {@link QpAttr#pathMtu()}. */
    PATH_MTU(8),
    /** IBV_QP_TIMEOUT: {@link QpAttr#timeout()}. */
    TIMEOUT(9),
    /** IBV_QP_RETRY_CNT: {@link QpAttr#retryCnt()}. */
    RETRY_CNT(10),
    /** IBV_QP_RNR_RETRY: {@link QpAttr#rnrRetry()}. */
    RNR_RETRY(11),
    /** IBV_QP_RQ_PSN: {@link QpAttr#rqPsn()}. */
    RQ_PSN(12),
    /** IBV_QP_MAX_QP_RD_ATOMIC: {@link QpAttr#maxRdAtomic()}. */
    MAX_QP_RD_ATOMIC(13),
    /** IBV_QP_ALT_PATH: {@link QpAttr#altAhAttr()} and the other alternate path fields. */
    ALT_PATH(14),
    /** IBV_QP_MIN_RNR_TIMER: {@link QpAttr#minRnrTimer()}. */
    MIN_RNR_TIMER(15),
    /** IBV_QP_SQ_PSN: {@link QpAttr#sqPsn()}. */
    SQ_PSN(16),
    /** IBV_QP_MAX_DEST_RD_ATOMIC: {@link QpAttr#maxDestRdAtomic()}. */
    MAX_DEST_RD_ATOMIC(17),
    /** IBV_QP_PATH_MIG_STATE: {@link QpAttr#pathMigState()}. */
    PATH_MIG_STATE(18),
    /** IBV_QP_CAP: {@link QpAttr#cap()}. */
    CAP(19),
    /** IBV_QP_DEST_QPN: {@link QpAttr#destQpNum()}. */
    DEST_QPN(20);

    /** Every bit this enum defines. */
    public static final int ALL_BITS = (1 << 21) - 1;

    private static final QpAttrMask[] VALUES = values();
    private static final QpAttrMask[] BY_NAME = VALUES.clone();

    static {
        Arrays.sort(BY_NAME, (a, b) -> a.name().compareTo(b.name()));
    }

    private final int bit;

    QpAttrMask(int shift) {
        this.bit = 1 << shift;
    }

    /** The libibverbs bit (enum ibv_qp_attr_mask). */
    public int bit() {
        return bit;
    }

    /** The libibverbs bit mask of {@code mask}. */
    public static int toBits(Set<QpAttrMask> mask) {
        int bits = 0;
        for (QpAttrMask m : mask) {
            bits |= m.bit;
        }
        return bits;
    }

    /** The libibverbs bit mask of {@code mask}. */
    public static int toBits(QpAttrMask... mask) {
        int bits = 0;
        for (QpAttrMask m : mask) {
            bits |= m.bit;
        }
        return bits;
    }

    /**
     * The attributes named by the libibverbs bit mask {@code bits}.
     *
     * @throws IllegalArgumentException for bits this enum does not define (such as IBV_QP_RATE_LIMIT)
     */
    public static EnumSet<QpAttrMask> fromBits(int bits) {
        if ((bits & ~ALL_BITS) != 0) {
            throw new IllegalArgumentException(
                    "unknown ibv_qp_attr_mask bits 0x" + Integer.toHexString(bits & ~ALL_BITS));
        }
        EnumSet<QpAttrMask> set = EnumSet.noneOf(QpAttrMask.class);
        for (QpAttrMask m : VALUES) {
            if ((bits & m.bit) != 0) {
                set.add(m);
            }
        }
        return set;
    }

    /**
     * The names of the attributes in {@code bits}, in alphabetical order and separated by ", " (for example
     * "DEST_QPN, RQ_PSN"); bits this enum does not define are appended in hex.
     */
    public static String names(int bits) {
        StringBuilder sb = new StringBuilder();
        for (QpAttrMask m : BY_NAME) {
            if ((bits & m.bit) != 0) {
                sb.append(sb.isEmpty() ? "" : ", ").append(m.name());
            }
        }
        if ((bits & ~ALL_BITS) != 0) {
            sb.append(sb.isEmpty() ? "" : ", ").append("0x").append(Integer.toHexString(bits & ~ALL_BITS));
        }
        return sb.toString();
    }
}
