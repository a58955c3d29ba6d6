package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A UD datagram larger than the receive WQE a QP took from its SRQ (issue 18: the WQE stayed in that QP's hand,
 * never completed and no longer available to the SRQ's other QPs). As rxe's responder (RESPST_ERR_LENGTH with an
 * SRQ: UC/UD class E, {@code qp->resp.status = IB_WC_REM_INV_REQ_ERR; state = RESPST_COMPLETE}), the WQE completes
 * with REM_INV_REQ_ERR and the QP stays in RTS; every WQE completes exactly once.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UdSrqLengthTest {

    private static final int QKEY = 0x5150;

    @Test
    void anOversizedDatagramShouldCompleteItsSrqWqeInErrorBadFlow() {
        try (UnreliablePeer a = new UnreliablePeer("127.0.118.13", QpType.UD, 1 << 16, 0);
                UnreliablePeer b = new UnreliablePeer("127.0.118.14", QpType.UD, 1 << 16, 0)) {
            a.readyUd(QKEY, 0);
            SharedReceiveQueue srq = b.later(b.pd.createSrq(new SrqAttr().maxWr(8).maxSge(1)));
            CompletionQueue rcq = b.later(b.ctx.createCq(16));
            QueuePair q1 = b.later(b.pd.createQp(new QpInitAttr().qpType(QpType.UD).sendCq(b.cq).recvCq(rcq)
                    .cap(UnreliablePeer.cap()).srq(srq)));
            QueuePair q2 = b.later(b.pd.createQp(new QpInitAttr().qpType(QpType.UD).sendCq(b.cq).recvCq(rcq)
                    .cap(UnreliablePeer.cap()).srq(srq)));
            ready(q1);
            ready(q2);
            AddressHandle ah = a.ahTo(b);
            srq.postRecv(new RecvWr().wrId(31).sg(b.sge(0, 1024)));
            srq.postRecv(new RecvWr().wrId(32).sg(b.sge(1024, 1024)));

            send(a, ah, q1, 2000, 1); // 40 + 2000 > 1024: does not fit the WQE q1 takes
            assertEquals("31 REM_INV_REQ_ERR q1 0", describe(UnreliablePeer.await(rcq, a, b), q1, q2),
                    "the WQE q1 took is completed, not kept");
            send(a, ah, q2, 100, 2); // fits: q2 takes the other WQE from the SRQ
            assertEquals("32 SUCCESS q2 140", describe(UnreliablePeer.await(rcq, a, b), q1, q2));
            send(a, ah, q1, 100, 3); // the SRQ is empty now: nothing is left in q1's hand either
            UnreliablePeer.assertNoCompletion(rcq, 100, a, b);
            assertEquals(1, b.count(Counter.OUT_OF_BUFFER));
            srq.postRecv(new RecvWr().wrId(33).sg(b.sge(2048, 1024)));
            send(a, ah, q1, 100, 4);
            assertEquals("33 SUCCESS q1 140", describe(UnreliablePeer.await(rcq, a, b), q1, q2),
                    "q1 goes on receiving after the oversized datagram");
            assertEquals(QpState.RTS, q1.state());
            assertEquals(1, b.count(Counter.UD_LEN_DROPPED));
            UnreliablePeer.assertNoCompletion(rcq, 50, a, b);
        }
    }

    private static void ready(QueuePair qp) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        UnreliablePeer.move(qp, QpState.RTR);
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
    }

    private static void send(UnreliablePeer a, AddressHandle ah, QueuePair to, int len, long wrId) {
        a.qp.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(a.sge(0, len)).ud(ah, to.qpNum(), QKEY));
        assertEquals(WcStatus.SUCCESS, UnreliablePeer.await(a.cq, a).status());
    }

    private static String describe(WorkCompletion wc, QueuePair q1, QueuePair q2) {
        String qp = wc.qpNum() == q1.qpNum() ? "q1" : wc.qpNum() == q2.qpNum() ? "q2" : "qp" + wc.qpNum();
        return wc.wrId() + " " + wc.status() + " " + qp + " " + wc.byteLen();
    }
}
