package io.jrdma.verbs;

import static io.jrdma.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.jrdma.verbs.QpAttrMask.ALT_PATH;
import static io.jrdma.verbs.QpAttrMask.AV;
import static io.jrdma.verbs.QpAttrMask.CUR_STATE;
import static io.jrdma.verbs.QpAttrMask.DEST_QPN;
import static io.jrdma.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.jrdma.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.jrdma.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.jrdma.verbs.QpAttrMask.PATH_MIG_STATE;
import static io.jrdma.verbs.QpAttrMask.PATH_MTU;
import static io.jrdma.verbs.QpAttrMask.PKEY_INDEX;
import static io.jrdma.verbs.QpAttrMask.PORT;
import static io.jrdma.verbs.QpAttrMask.QKEY;
import static io.jrdma.verbs.QpAttrMask.RETRY_CNT;
import static io.jrdma.verbs.QpAttrMask.RNR_RETRY;
import static io.jrdma.verbs.QpAttrMask.RQ_PSN;
import static io.jrdma.verbs.QpAttrMask.SQ_PSN;
import static io.jrdma.verbs.QpAttrMask.STATE;
import static io.jrdma.verbs.QpAttrMask.TIMEOUT;
import static io.jrdma.verbs.QpState.ERR;
import static io.jrdma.verbs.QpState.INIT;
import static io.jrdma.verbs.QpState.RESET;
import static io.jrdma.verbs.QpState.RTR;
import static io.jrdma.verbs.QpState.RTS;
import static io.jrdma.verbs.QpState.SQD;
import static io.jrdma.verbs.QpState.SQE;

/**
 * The rules of ibv_modify_qp (IBA vol. 1 §10.3, the QP state diagram, and the Modify QP verb): which state
 * transitions are legal for RC, UC and UD queue pairs, and which attributes each one requires and allows. This is
 * the kernel's {@code qp_state_table} and {@code ib_modify_qp_is_ok} (drivers/infiniband/core/verbs.c), which
 * every kernel provider, rxe included, enforces; in short:
 *
 * <pre>
 *   RESET -&gt; INIT    RC/UC: PKEY_INDEX PORT ACCESS_FLAGS      UD: PKEY_INDEX PORT QKEY
 *   INIT  -&gt; RTR     RC: AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER
 *                    UC: AV PATH_MTU DEST_QPN RQ_PSN          UD: nothing
 *   RTR   -&gt; RTS     RC: SQ_PSN TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC    UC/UD: SQ_PSN
 *   optional attributes only: INIT -&gt; INIT, RTS -&gt; RTS, RTS -&gt; SQD, SQD -&gt; SQD, SQD -&gt; RTS,
 *                             SQE -&gt; RTS
 *   nothing at all: RESET -&gt; RESET, any state -&gt; RESET, any state but RESET -&gt; ERR (no RESET -&gt; ERR)
 * </pre>
 *
 * <p>Masks are libibverbs bit masks ({@link QpAttrMask#bit()}). A mask without {@link QpAttrMask#STATE} asks for
 * no state change, as in ibv_modify_qp: the transition checked is then {@code cur -> cur}, whatever {@code next}
 * says. CUR_STATE is allowed only where the table allows it (from RTR, RTS, SQD and SQE towards RTS); CAP is
 * allowed nowhere. Checking allocates nothing unless it fails.
 */
public final class QpTransitions {

    private static final int STATES = QpState.values().length;
    private static final int TYPES = QpType.values().length;

    /** VALID[cur] has bit (1 << next.ordinal()) set when cur -> next is legal (for every QP type). */
    private static final int[] VALID = new int[STATES];
    /** REQUIRED[type][cur * STATES + next]: the kernel's req_param, without STATE. */
    private static final int[][] REQUIRED = new int[TYPES][STATES * STATES];
    /** OPTIONAL[type][cur * STATES + next]: the kernel's opt_param, without STATE. */
    private static final int[][] OPTIONAL = new int[TYPES][STATES * STATES];

    static {
        for (QpState s : QpState.values()) {
            legal(s, RESET);
            if (s != RESET) {
                legal(s, ERR);
            }
        }
        rule(RESET, INIT,
                bits(PKEY_INDEX, PORT, ACCESS_FLAGS), 0,
                bits(PKEY_INDEX, PORT, ACCESS_FLAGS), 0,
                bits(PKEY_INDEX, PORT, QKEY), 0);
        rule(INIT, INIT,
                0, bits(PKEY_INDEX, PORT, ACCESS_FLAGS),
                0, bits(PKEY_INDEX, PORT, ACCESS_FLAGS),
                0, bits(PKEY_INDEX, PORT, QKEY));
        rule(INIT, RTR,
                bits(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
                bits(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX),
                bits(AV, PATH_MTU, DEST_QPN, RQ_PSN),
                bits(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX),
                0, bits(PKEY_INDEX, QKEY));
        rule(RTR, RTS,
                bits(TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC),
                bits(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE),
                bits(SQ_PSN), bits(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE),
                bits(SQ_PSN), bits(CUR_STATE, QKEY));
        rule(RTS, RTS,
                0, bits(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER),
                0, bits(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE),
                0, bits(CUR_STATE, QKEY));
        rule(RTS, SQD,
                0, bits(EN_SQD_ASYNC_NOTIFY),
                0, bits(EN_SQD_ASYNC_NOTIFY),
                0, bits(EN_SQD_ASYNC_NOTIFY));
        rule(SQD, RTS,
                0, bits(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE),
                0, bits(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE),
                0, bits(CUR_STATE, QKEY));
        rule(SQD, SQD,
                0, bits(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC, ALT_PATH,
                        ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE),
                0, bits(AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE),
                0, bits(PKEY_INDEX, QKEY));
        // Legal for every type in the kernel's table, but an RC QP never enters SQE (a send error takes it to ERR).
        rule(SQE, RTS,
                0, 0,
                0, bits(CUR_STATE, ACCESS_FLAGS),
                0, bits(CUR_STATE, QKEY));
    }

    private QpTransitions() {
    }

    private static void legal(QpState cur, QpState next) {
        VALID[cur.ordinal()] |= 1 << next.ordinal();
    }

    private static void rule(QpState cur, QpState next, int rcReq, int rcOpt, int ucReq, int ucOpt, int udReq,
            int udOpt) {
        legal(cur, next);
        int i = cur.ordinal() * STATES + next.ordinal();
        REQUIRED[QpType.RC.ordinal()][i] = rcReq;
        OPTIONAL[QpType.RC.ordinal()][i] = rcOpt;
        REQUIRED[QpType.UC.ordinal()][i] = ucReq;
        OPTIONAL[QpType.UC.ordinal()][i] = ucOpt;
        REQUIRED[QpType.UD.ordinal()][i] = udReq;
        OPTIONAL[QpType.UD.ordinal()][i] = udOpt;
    }

    private static int bits(QpAttrMask... mask) {
        return QpAttrMask.toBits(mask);
    }

    /** Whether {@code cur -> next} is a legal transition for a QP of type {@code type}. */
    public static boolean isLegal(QpType type, QpState cur, QpState next) {
        return (VALID[cur.ordinal()] & (1 << next.ordinal())) != 0;
    }

    /**
     * The attributes {@code cur -> next} requires, as a libibverbs mask: the kernel's req_param, plus STATE when
     * the state changes (for {@code cur -> cur} STATE may be left out). 0 for an illegal transition.
     */
    public static int required(QpType type, QpState cur, QpState next) {
        if (!isLegal(type, cur, next)) {
            return 0;
        }
        int req = REQUIRED[type.ordinal()][cur.ordinal() * STATES + next.ordinal()];
        return cur == next ? req : req | STATE.bit();
    }

    /**
     * The attributes {@code cur -> next} allows beyond {@link #required}, as a libibverbs mask: the kernel's
     * opt_param, plus STATE for {@code cur -> cur}. 0 for an illegal transition.
     */
    public static int optional(QpType type, QpState cur, QpState next) {
        if (!isLegal(type, cur, next)) {
            return 0;
        }
        int opt = OPTIONAL[type.ordinal()][cur.ordinal() * STATES + next.ordinal()];
        return cur == next ? opt | STATE.bit() : opt;
    }

    /**
     * Checks an ibv_modify_qp request on a QP of type {@code type} in state {@code cur} that asks for state
     * {@code next} with the libibverbs attribute mask {@code attrMask}. Without STATE in the mask, {@code next} is
     * ignored and {@code cur -> cur} is checked.
     *
     * @throws VerbsException EINVAL naming what is wrong: "illegal QP state transition RTS -&gt; INIT", "missing
     *                        required attribute(s) for INIT -&gt; RTR on RC QP: DEST_QPN, RQ_PSN" or "attribute(s)
     *                        not allowed for RESET -&gt; INIT on UD QP: PATH_MTU" (names in alphabetical order)
     */
    public static void validate(QpType type, QpState cur, QpState next, int attrMask) {
        QpState to = (attrMask & STATE.bit()) != 0 ? next : cur;
        if (!isLegal(type, cur, to)) {
            throw new VerbsException(Errno.EINVAL, "illegal QP state transition " + cur + " -> " + to
                    + stayNote(cur, next, attrMask));
        }
        int req = required(type, cur, to);
        int missing = req & ~attrMask;
        int extra = attrMask & ~(req | optional(type, cur, to));
        if ((missing | extra) == 0) {
            return;
        }
        String transition = cur + " -> " + to + " on " + type + " QP: ";
        StringBuilder msg = new StringBuilder();
        if (missing != 0) {
            msg.append("missing required attribute(s) for ").append(transition).append(QpAttrMask.names(missing));
        }
        if (extra != 0) {
            msg.append(missing != 0 ? "; " : "").append("attribute(s) not allowed for ").append(transition)
                    .append(QpAttrMask.names(extra));
        }
        throw new VerbsException(Errno.EINVAL, msg.append(stayNote(cur, next, attrMask)).toString());
    }

    /** Explains a cur -> cur check the caller may not have meant: STATE left out of the mask. */
    private static String stayNote(QpState cur, QpState next, int attrMask) {
        return (attrMask & STATE.bit()) == 0 && next != cur
                ? " (STATE is not in the mask, so the QP stays in " + cur + ")"
                : "";
    }
}
