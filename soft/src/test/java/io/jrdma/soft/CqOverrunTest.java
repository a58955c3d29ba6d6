package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
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
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A completion queue that overruns (issue 18: four SENDs into a two-entry receive CQ all succeeded at the sender,
 * and later messages kept consuming receive WQEs). As rxe's responder (do_complete: a failed rxe_cq_post is
 * RESPST_ERR_CQ_OVERFLOW, then RESPST_ERROR: the QP moves to ERR and the message is not acknowledged), the message
 * whose completion was lost is never acknowledged, so the sender does not see it succeed: its retries run out
 * (RETRY_EXC_ERR) and the rest flush. What was acknowledged was delivered; the CQ raises CQ_ERR.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CqOverrunTest {

    private static final int TIMEOUT = 12; // 16.8 ms: eight of them before RETRY_EXC_ERR

    @Test
    void aSendWhoseReceiveCompletionOverrunsShouldNotBeAcknowledgedBadFlow() {
        Peer.Link link = new Peer.Link();
        link.timeout = TIMEOUT;
        try (Pair p = new Pair("127.0.118.7", "127.0.118.8", Threading.INVOKER, NanoClock.SYSTEM, 1 << 16,
                Peer.ALL_ACCESS, Peer.defaultCap(), link);
                CompletionQueue small = p.b.ctx.createCq(2)) {
            QueuePair qb = p.b.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(p.b.cq).recvCq(small)
                    .cap(Peer.defaultCap()));
            QueuePair qa = p.a.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(p.a.cq).recvCq(p.a.cq)
                    .cap(Peer.defaultCap()));
            try {
                Peer.connect(qa, qb.qpNum(), p.b.ctx.queryGid(1, 1), link);
                Peer.connect(qb, qa.qpNum(), p.a.ctx.queryGid(1, 1), link);
                for (int i = 0; i < 4; i++) {
                    p.b.buf.set(ValueLayout.JAVA_LONG, 4096L * i, 0);
                    qb.postRecv(new RecvWr().wrId(11 + i).sg(new Sge(p.b.addr(4096L * i), 4096, p.b.mr.lkey())));
                    p.a.buf.set(ValueLayout.JAVA_LONG, 128L * i, 0xda7a00L + i);
                }
                for (int i = 0; i < 4; i++) {
                    qa.postSend(new SendWr().wrId(1 + i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                            .sg(new Sge(p.a.addr(128L * i), 100, p.a.mr.lkey())));
                }
                List<WorkCompletion> sent = p.awaitN(p.a.cq, 4);
                assertEquals(List.of("1 SUCCESS", "2 SUCCESS", "3 RETRY_EXC_ERR", "4 WR_FLUSH_ERR"),
                        sent.stream().map(wc -> wc.wrId() + " " + wc.status()).toList(),
                        "the sender sees success only for what the receiver completed");
                AsyncEvent e = Wiring.awaitEvent(p.b.ctx, p.a.ctx, p.b.ctx);
                assertEquals(AsyncEventType.CQ_ERR, e.type());
                assertEquals(QpState.ERR, qb.state(), "the receiving QP fails when its completion is lost");
                assertEquals(QpState.ERR, qa.state());
                assertEquals(2, p.b.ctx.counters().get(Counter.RDMA_RECVS));
                // both acknowledged messages were delivered and completed, in order
                List<WorkCompletion> got = p.awaitN(small, 2);
                for (int i = 0; i < 2; i++) {
                    assertEquals(11 + i, got.get(i).wrId());
                    assertEquals(WcStatus.SUCCESS, got.get(i).status());
                    assertEquals(100, got.get(i).byteLen());
                    assertEquals(0xda7a00L + i, p.b.buf.get(ValueLayout.JAVA_LONG, 4096L * i));
                }
                assertThrows(VerbsException.class, () -> small.poll(new WorkCompletion[] {new WorkCompletion()}),
                        "the overrun CQ reports its error once drained");
            } finally {
                qa.close();
                qb.close();
            }
        }
    }

    @Test
    void aSendCompletionThatOverrunsShouldFailTheRequesterQpBadFlow() {
        try (Pair p = Pair.invoker("127.0.118.9", "127.0.118.10", 1 << 16);
                CompletionQueue small = p.a.ctx.createCq(1)) {
            QueuePair qa = p.a.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(small).recvCq(p.a.cq)
                    .cap(Peer.defaultCap()));
            QueuePair qb = p.b.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(p.b.cq).recvCq(p.b.cq)
                    .cap(Peer.defaultCap()));
            try {
                Peer.connect(qa, qb.qpNum(), p.b.ctx.queryGid(1, 1), new Peer.Link());
                Peer.connect(qb, qa.qpNum(), p.a.ctx.queryGid(1, 1), new Peer.Link());
                for (int i = 0; i < 3; i++) {
                    qa.postSend(new SendWr().wrId(1 + i).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                            .sg(new Sge(p.a.addr(0), 64, p.a.mr.lkey())).remoteAddr(p.b.addr(0))
                            .rkey(p.b.mr.rkey()));
                }
                AsyncEvent e = Wiring.awaitEvent(p.a.ctx, p.a.ctx, p.b.ctx);
                assertEquals(AsyncEventType.CQ_ERR, e.type());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (qa.state() != QpState.ERR && System.nanoTime() < deadline) {
                    p.drive();
                }
                assertEquals(QpState.ERR, qa.state(), "a send completion lost to an overrun fails the QP");
                assertEquals(1, p.awaitN(small, 1).getFirst().wrId());
            } finally {
                qa.close();
                qb.close();
            }
        }
    }

    @Test
    void aDatagramWhoseCompletionOverrunsShouldFailTheUdQpBadFlow() {
        int qkey = 0x11223344;
        try (UnreliablePeer a = new UnreliablePeer("127.0.118.11", QpType.UD, 1 << 16, 0);
                UnreliablePeer b = new UnreliablePeer("127.0.118.12", QpType.UD, 1 << 16, 0)) {
            CompletionQueue small = b.later(b.ctx.createCq(1));
            QueuePair qb = b.later(b.pd.createQp(new QpInitAttr().qpType(QpType.UD).sendCq(b.cq).recvCq(small)
                    .cap(UnreliablePeer.cap())));
            a.readyUd(qkey, 0);
            qb.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            UnreliablePeer.move(qb, QpState.RTR);
            qb.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            for (int i = 0; i < 3; i++) {
                qb.postRecv(new RecvWr().wrId(21 + i).sg(b.sge(1024L * i, 1024)));
            }
            AddressHandle ah = a.ahTo(b);
            for (int i = 0; i < 3; i++) {
                a.qp.postSend(new SendWr().wrId(1 + i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(a.sge(0, 100)).ud(ah, qb.qpNum(), qkey));
            }
            UnreliablePeer.awaitN(a.cq, 3, a, b);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (qb.state() != QpState.ERR && System.nanoTime() < deadline) {
                UnreliablePeer.drive(a, b);
            }
            assertEquals(QpState.ERR, qb.state(), "the receiving UD QP fails when a completion is lost");
            assertEquals(AsyncEventType.CQ_ERR, Wiring.awaitEvent(b.ctx, a.ctx, b.ctx).type());
            assertEquals(1, b.count(Counter.RDMA_RECVS), "no datagram is received after the lost completion");
            assertEquals(21, UnreliablePeer.await(small, a, b).wrId());
        }
    }
}
