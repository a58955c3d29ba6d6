package io.jrdma.verbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class QpTransitionsTest {

    /**
     * The kernel's qp_state_table (drivers/infiniband/core/verbs.c) for RC, UC and UD, written out independently
     * of the implementation: "type cur next | req_param | opt_param". STATE is not listed (it is implied).
     */
    private static final String[] TABLE = {
        "*  RESET RESET |  | ",
        "RC RESET INIT  | PKEY_INDEX PORT ACCESS_FLAGS | ",
        "UC RESET INIT  | PKEY_INDEX PORT ACCESS_FLAGS | ",
        "UD RESET INIT  | PKEY_INDEX PORT QKEY | ",
        "*  INIT  RESET |  | ",
        "*  INIT  ERR   |  | ",
        "RC INIT  INIT  |  | PKEY_INDEX PORT ACCESS_FLAGS",
        "UC INIT  INIT  |  | PKEY_INDEX PORT ACCESS_FLAGS",
        "UD INIT  INIT  |  | PKEY_INDEX PORT QKEY",
        "RC INIT  RTR   | AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER"
                + " | ALT_PATH ACCESS_FLAGS PKEY_INDEX",
        "UC INIT  RTR   | AV PATH_MTU DEST_QPN RQ_PSN | ALT_PATH ACCESS_FLAGS PKEY_INDEX",
        "UD INIT  RTR   |  | PKEY_INDEX QKEY",
        "*  RTR   RESET |  | ",
        "*  RTR   ERR   |  | ",
        "RC RTR   RTS   | TIMEOUT RETRY_CNT RNR_RETRY SQ_PSN MAX_QP_RD_ATOMIC"
                + " | CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE",
        "UC RTR   RTS   | SQ_PSN | CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE",
        "UD RTR   RTS   | SQ_PSN | CUR_STATE QKEY",
        "*  RTS   RESET |  | ",
        "*  RTS   ERR   |  | ",
        "RC RTS   RTS   |  | CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE MIN_RNR_TIMER",
        "UC RTS   RTS   |  | CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE",
        "UD RTS   RTS   |  | CUR_STATE QKEY",
        "*  RTS   SQD   |  | EN_SQD_ASYNC_NOTIFY",
        "*  SQD   RESET |  | ",
        "*  SQD   ERR   |  | ",
        "RC SQD   RTS   |  | CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE",
        "UC SQD   RTS   |  | CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE",
        "UD SQD   RTS   |  | CUR_STATE QKEY",
        "RC SQD   SQD   |  | PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC MAX_DEST_RD_ATOMIC ALT_PATH"
                + " ACCESS_FLAGS PKEY_INDEX MIN_RNR_TIMER PATH_MIG_STATE",
        "UC SQD   SQD   |  | AV ALT_PATH ACCESS_FLAGS PKEY_INDEX PATH_MIG_STATE",
        "UD SQD   SQD   |  | PKEY_INDEX QKEY",
        "*  SQE   RESET |  | ",
        "*  SQE   ERR   |  | ",
        "RC SQE   RTS   |  | ",
        "UC SQE   RTS   |  | CUR_STATE ACCESS_FLAGS",
        "UD SQE   RTS   |  | CUR_STATE QKEY",
        "*  ERR   RESET |  | ",
        "*  ERR   ERR   |  | ",
    };

    private static final int STATE = QpAttrMask.STATE.bit();

    record Row(QpType type, QpState cur, QpState next, int req, int opt) {
        /** The mask a caller passes to make exactly this transition with only the required attributes. */
        int requiredMask() {
            return req | STATE;
        }

        @Override
        public String toString() {
            return type + " " + cur + "->" + next;
        }
    }

    private static final Map<String, Row> ROWS = parseTable();

    private static Map<String, Row> parseTable() {
        Map<String, Row> rows = new HashMap<>();
        for (String line : TABLE) {
            String[] cols = line.split("\\|", -1);
            String[] head = cols[0].trim().split("\\s+");
            int req = maskOf(cols[1]);
            int opt = maskOf(cols[2]);
            for (QpType t : QpType.values()) {
                if (head[0].equals("*") || head[0].equals(t.name())) {
                    Row r = new Row(t, QpState.valueOf(head[1]), QpState.valueOf(head[2]), req, opt);
                    rows.put(key(t, r.cur, r.next), r);
                }
            }
        }
        return rows;
    }

    private static int maskOf(String names) {
        int m = 0;
        for (String n : names.trim().split("\\s+")) {
            if (!n.isEmpty()) {
                m |= QpAttrMask.valueOf(n).bit();
            }
        }
        return m;
    }

    private static String key(QpType t, QpState cur, QpState next) {
        return t + " " + cur + " " + next;
    }

    static Stream<Row> legalTransitions() {
        return ROWS.values().stream();
    }

    static Stream<Arguments> illegalTransitions() {
        List<Arguments> list = new ArrayList<>();
        for (QpType t : QpType.values()) {
            for (QpState cur : QpState.values()) {
                for (QpState next : QpState.values()) {
                    if (!ROWS.containsKey(key(t, cur, next))) {
                        list.add(Arguments.of(t, cur, next));
                    }
                }
            }
        }
        return list.stream();
    }

    static Stream<Arguments> missingRequiredBits() {
        return ROWS.values().stream().flatMap(r -> QpAttrMask.fromBits(r.req).stream().map(m -> Arguments.of(r, m)));
    }

    static Stream<Arguments> disallowedBits() {
        return ROWS.values().stream().flatMap(r -> QpAttrMask.fromBits(QpAttrMask.ALL_BITS & ~(r.req | r.opt | STATE))
                .stream().map(m -> Arguments.of(r, m)));
    }

    private static VerbsException rejected(QpType t, QpState cur, QpState next, int mask) {
        VerbsException e = assertThrows(VerbsException.class, () -> QpTransitions.validate(t, cur, next, mask));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(-1, e.badWrIndex());
        return e;
    }

    @Test
    void shouldHave22LegalTransitionsPerType() {
        // 7 to RESET, 6 to ERR (none from RESET), and RESET->INIT, INIT->INIT, INIT->RTR, RTR->RTS, RTS->RTS,
        // RTS->SQD, SQD->RTS, SQD->SQD, SQE->RTS
        for (QpType t : QpType.values()) {
            long legal = ROWS.values().stream().filter(r -> r.type == t).count();
            assertEquals(22, legal, t.name());
            long fromImpl = Stream.of(QpState.values()).flatMap(c -> Stream.of(QpState.values())
                    .filter(n -> QpTransitions.isLegal(t, c, n))).count();
            assertEquals(22, fromImpl, t.name());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legalTransitions")
    void shouldAcceptLegalTransitionWithExactlyItsRequiredMask(Row r) {
        assertTrue(QpTransitions.isLegal(r.type, r.cur, r.next));
        assertDoesNotThrow(() -> QpTransitions.validate(r.type, r.cur, r.next, r.requiredMask()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legalTransitions")
    void shouldAcceptLegalTransitionWithEveryOptionalAttribute(Row r) {
        assertDoesNotThrow(() -> QpTransitions.validate(r.type, r.cur, r.next, r.requiredMask() | r.opt));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legalTransitions")
    void shouldReportRequiredAndOptionalMasksOfTheKernelTable(Row r) {
        int state = r.cur == r.next ? 0 : STATE;
        assertEquals(r.req | state, QpTransitions.required(r.type, r.cur, r.next));
        assertEquals(r.opt | (STATE & ~state), QpTransitions.optional(r.type, r.cur, r.next));
    }

    @ParameterizedTest(name = "{0} without {1}")
    @MethodSource("missingRequiredBits")
    void shouldRejectTransitionMissingOneRequiredAttributeBadFlow(Row r, QpAttrMask missing) {
        VerbsException e = rejected(r.type, r.cur, r.next, r.requiredMask() & ~missing.bit());
        assertEquals("EINVAL: missing required attribute(s) for " + r.cur + " -> " + r.next + " on " + r.type
                + " QP: " + missing.name(), e.getMessage());
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("disallowedBits")
    void shouldRejectTransitionWithDisallowedAttributeBadFlow(Row r, QpAttrMask extra) {
        VerbsException e = rejected(r.type, r.cur, r.next, r.requiredMask() | extra.bit());
        assertEquals("attribute(s) not allowed for " + r.cur + " -> " + r.next + " on " + r.type + " QP: "
                + extra.name(), e.reason());
    }

    @ParameterizedTest(name = "{0} {1}->{2}")
    @MethodSource("illegalTransitions")
    void shouldRejectIllegalTransitionBadFlow(QpType t, QpState cur, QpState next) {
        assertFalse(QpTransitions.isLegal(t, cur, next));
        assertEquals(0, QpTransitions.required(t, cur, next));
        assertEquals(0, QpTransitions.optional(t, cur, next));
        VerbsException e = rejected(t, cur, next, STATE | QpAttrMask.ALL_BITS);
        assertEquals("illegal QP state transition " + cur + " -> " + next, e.reason());
    }

    @Test
    void shouldRejectNamedIllegalTransitionsBadFlow() {
        QpState[][] illegal = {
            {QpState.RESET, QpState.RTR}, {QpState.INIT, QpState.RTS}, {QpState.RTS, QpState.RTR},
            {QpState.ERR, QpState.RTS}, {QpState.RESET, QpState.SQD}, {QpState.RESET, QpState.RTS},
            {QpState.RTR, QpState.INIT}, {QpState.RTS, QpState.INIT}, {QpState.ERR, QpState.INIT},
            {QpState.SQD, QpState.INIT}, {QpState.RTR, QpState.SQD}, {QpState.INIT, QpState.SQE},
            {QpState.RTR, QpState.RTR}, {QpState.SQE, QpState.SQE}, {QpState.RESET, QpState.ERR},
        };
        for (QpType t : QpType.values()) {
            for (QpState[] p : illegal) {
                VerbsException e = rejected(t, p[0], p[1], QpTransitions.required(t, QpState.RESET, QpState.INIT));
                assertEquals("EINVAL: illegal QP state transition " + p[0] + " -> " + p[1], e.getMessage());
            }
        }
    }

    @Test
    void shouldNameEverythingMissingInAlphabeticalOrder() {
        int mask = QpTransitions.required(QpType.RC, QpState.INIT, QpState.RTR)
                & ~(QpAttrMask.DEST_QPN.bit() | QpAttrMask.RQ_PSN.bit());
        assertEquals("missing required attribute(s) for INIT -> RTR on RC QP: DEST_QPN, RQ_PSN",
                rejected(QpType.RC, QpState.INIT, QpState.RTR, mask).reason());
    }

    @Test
    void shouldRejectPathMtuForUdResetToInitBadFlow() {
        int mask = QpTransitions.required(QpType.UD, QpState.RESET, QpState.INIT) | QpAttrMask.PATH_MTU.bit();
        assertEquals("attribute(s) not allowed for RESET -> INIT on UD QP: PATH_MTU",
                rejected(QpType.UD, QpState.RESET, QpState.INIT, mask).reason());
    }

    @Test
    void shouldNameMissingAndDisallowedTogether() {
        int mask = STATE | QpAttrMask.PORT.bit() | QpAttrMask.PKEY_INDEX.bit() | QpAttrMask.QKEY.bit();
        assertEquals("missing required attribute(s) for RESET -> INIT on RC QP: ACCESS_FLAGS; "
                + "attribute(s) not allowed for RESET -> INIT on RC QP: QKEY",
                rejected(QpType.RC, QpState.RESET, QpState.INIT, mask).reason());
    }

    @Test
    void shouldRejectBitsUnknownToLibibverbsNamesBadFlow() {
        int rateLimit = 1 << 25; // IBV_QP_RATE_LIMIT, not offered
        assertEquals("attribute(s) not allowed for RTS -> RTS on RC QP: 0x2000000",
                rejected(QpType.RC, QpState.RTS, QpState.RTS, STATE | rateLimit).reason());
    }

    @Test
    void shouldAllowCurStateOnlyTowardsRts() {
        int cur = QpAttrMask.CUR_STATE.bit();
        QpTransitions.validate(QpType.RC, QpState.RTR, QpState.RTS,
                QpTransitions.required(QpType.RC, QpState.RTR, QpState.RTS) | cur);
        QpTransitions.validate(QpType.UD, QpState.SQE, QpState.RTS, STATE | cur);
        rejected(QpType.RC, QpState.SQE, QpState.RTS, STATE | cur);
        rejected(QpType.RC, QpState.INIT, QpState.RTR, QpTransitions.required(QpType.RC, QpState.INIT, QpState.RTR)
                | cur);
        rejected(QpType.RC, QpState.RTS, QpState.ERR, STATE | cur);
        rejected(QpType.UC, QpState.INIT, QpState.INIT, cur);
    }

    @Test
    void shouldNeverAllowCap() {
        for (Row r : ROWS.values()) {
            rejected(r.type, r.cur, r.next, r.requiredMask() | QpAttrMask.CAP.bit());
        }
    }

    @Test
    void shouldStayInCurrentStateWhenMaskLacksState() {
        // next is ignored without STATE: RTS -> RTS with an optional attribute is fine
        QpTransitions.validate(QpType.RC, QpState.RTS, QpState.SQD, QpAttrMask.ACCESS_FLAGS.bit());
        QpTransitions.validate(QpType.RC, QpState.RTS, QpState.ERR, 0);
        QpTransitions.validate(QpType.UD, QpState.INIT, QpState.RTR, QpAttrMask.QKEY.bit());
        QpTransitions.validate(QpType.RC, QpState.RESET, QpState.RESET, 0);
    }

    @Test
    void shouldExplainCheckOfCurrentStateWhenMaskLacksStateBadFlow() {
        int mask = QpTransitions.required(QpType.RC, QpState.RESET, QpState.INIT) & ~STATE;
        assertEquals("attribute(s) not allowed for RESET -> RESET on RC QP: ACCESS_FLAGS, PKEY_INDEX, PORT"
                + " (STATE is not in the mask, so the QP stays in RESET)",
                rejected(QpType.RC, QpState.RESET, QpState.INIT, mask).reason());
        assertEquals("illegal QP state transition RTR -> RTR (STATE is not in the mask, so the QP stays in RTR)",
                rejected(QpType.RC, QpState.RTR, QpState.RTS, QpAttrMask.SQ_PSN.bit()).reason());
    }

    @Test
    void shouldWalkTheRcLadderAndBack() {
        QpState[] ladder = {QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.RTS,
            QpState.ERR, QpState.RESET};
        for (QpType t : QpType.values()) {
            for (int i = 0; i + 1 < ladder.length; i++) {
                QpState cur = ladder[i];
                QpState next = ladder[i + 1];
                QpTransitions.validate(t, cur, next, QpTransitions.required(t, cur, next));
            }
        }
    }

    @Test
    void shouldAllocateNothingWhenValid() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        int m1 = QpTransitions.required(QpType.RC, QpState.INIT, QpState.RTR);
        int m2 = QpTransitions.required(QpType.RC, QpState.RTR, QpState.RTS);
        // the fewest bytes of several rounds: one-off JIT and runtime allocations do not repeat, a per-call one would
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100_000; i++) {
                QpTransitions.validate(QpType.RC, QpState.INIT, QpState.RTR, m1);
                QpTransitions.validate(QpType.RC, QpState.RTR, QpState.RTS, m2);
            }
            fewest = Math.min(fewest, mx.getThreadAllocatedBytes(tid) - before);
        }
        assertTrue(fewest < 256, "allocated " + fewest + " bytes in 200000 validations");
    }
}
