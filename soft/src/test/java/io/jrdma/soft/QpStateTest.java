package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The RC QP state machine as the device applies it: transitions, bad attributes, posting per state, flushes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QpStateTest {

    private Peer a;
    private Peer b;

    @BeforeEach
    void open() {
        a = new Peer("127.0.6.1", Threading.INVOKER, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap());
        b = new Peer("127.0.6.2", Threading.INVOKER, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private static void move(Peer p, QpAttr attr, QpAttrMask... mask) {
        p.qp.modify(attr, EnumSet.of(QpAttrMask.STATE, mask));
    }

    private static void toInit(Peer p) {
        move(p, new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0), QpAttrMask.PKEY_INDEX,
                QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS);
    }

    private QpAttr rtr(Peer remote) {
        return new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(remote.qp.qpNum()).rqPsn(7)
                .maxDestRdAtomic(1).minRnrTimer(1)
                .ahAttr(new AhAttr().isGlobal(true).dgid(remote.ctx.queryGid(1, 1)).sgidIndex(1).portNum(1));
    }

    private static final QpAttrMask[] RTR_MASK = {QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER};

    @Test
    void shouldWalkEveryLegalRcTransition() {
        assertEquals(QpState.RESET, a.qp.state());
        toInit(a);
        assertEquals(QpState.INIT, a.qp.state());
        toInit(a); // INIT -> INIT
        move(a, rtr(b), RTR_MASK);
        assertEquals(QpState.RTR, a.qp.state());
        move(a, new QpAttr().qpState(QpState.RTS).sqPsn(9).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                QpAttrMask.MAX_QP_RD_ATOMIC);
        assertEquals(QpState.RTS, a.qp.state());
        move(a, new QpAttr().qpState(QpState.RTS).minRnrTimer(3), QpAttrMask.MIN_RNR_TIMER); // RTS -> RTS
        move(a, new QpAttr().qpState(QpState.SQD));
        assertEquals(QpState.SQD, a.qp.state());
        move(a, new QpAttr().qpState(QpState.RTS));
        move(a, new QpAttr().qpState(QpState.ERR));
        assertEquals(QpState.ERR, a.qp.state());
        move(a, new QpAttr().qpState(QpState.RESET));
        assertEquals(QpState.RESET, a.qp.state());
        toInit(a);
        assertEquals(QpState.INIT, a.qp.state());

        QpAttr q = a.qp.query(new QpAttr());
        assertEquals(QpState.INIT, q.qpState());
    }

    @Test
    void shouldReportWhatWasSetThroughQuery() {
        toInit(a);
        move(a, rtr(b), RTR_MASK);
        move(a, new QpAttr().qpState(QpState.RTS).sqPsn(0xABCDE).timeout(17).retryCnt(5).rnrRetry(6).maxRdAtomic(3),
                QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                QpAttrMask.MAX_QP_RD_ATOMIC);
        QpAttr q = a.qp.query(new QpAttr());
        assertEquals(QpState.RTS, q.qpState());
        assertEquals(Mtu.MTU_1024, q.pathMtu());
        assertEquals(b.qp.qpNum(), q.destQpNum());
        assertEquals(7, q.rqPsn());
        assertEquals(0xABCDE, q.sqPsn());
        assertEquals(17, q.timeout());
        assertEquals(5, q.retryCnt());
        assertEquals(6, q.rnrRetry());
        assertEquals(3, q.maxRdAtomic());
        assertEquals(b.ctx.queryGid(1, 1), q.ahAttr().dgid());
    }

    @Test
    void shouldRejectIllegalTransitionsNamingThemBadFlow() {
        VerbsException e = assertThrows(VerbsException.class, () -> move(a, rtr(b), RTR_MASK));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("RESET -> RTR"), e.getMessage());
        toInit(a);
        VerbsException rts = assertThrows(VerbsException.class, () -> move(a, new QpAttr().qpState(QpState.RTS)));
        assertTrue(rts.getMessage().contains("INIT -> RTS"), rts.getMessage());
        assertEquals(QpState.INIT, a.qp.state(), "a refused modify changes nothing");
    }

    @Test
    void shouldNameTheMissingRequiredAttributeBadFlow() {
        toInit(a);
        VerbsException e = assertThrows(VerbsException.class, () -> move(a, rtr(b), QpAttrMask.AV,
                QpAttrMask.PATH_MTU, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        assertTrue(e.getMessage().contains("DEST_QPN"), e.getMessage());
        assertEquals(QpState.INIT, a.qp.state());
    }

    @Test
    void shouldRejectOutOfRangeValuesBadFlow() {
        toInit(a);
        VerbsException gid = assertThrows(VerbsException.class, () -> move(a,
                rtr(b).ahAttr(new AhAttr().isGlobal(true).dgid(b.ctx.queryGid(1, 0)).sgidIndex(1).portNum(1)),
                RTR_MASK));
        assertTrue(gid.getMessage().contains("IPv4-mapped"), gid.getMessage());
        move(a, rtr(b), RTR_MASK);
        VerbsException retry = assertThrows(VerbsException.class, () -> move(a, new QpAttr().qpState(QpState.RTS)
                .sqPsn(1).timeout(14).retryCnt(8).rnrRetry(7).maxRdAtomic(1), QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT,
                QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
        assertTrue(retry.getMessage().contains("retry_cnt"), retry.getMessage());
        assertEquals(QpState.RTR, a.qp.state());
    }

    @Test
    void shouldRefusePostingInStatesThatCannotSendBadFlow() {
        SendWr wr = new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(new Sge(a.addr(0), 4, a.mr.lkey()));
        RecvWr rwr = new RecvWr().wrId(2).sg(new Sge(a.addr(0), 4, a.mr.lkey()));
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.qp.postSend(wr)).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.qp.postRecv(rwr)).errno());
        toInit(a);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.qp.postSend(wr)).errno());
        a.qp.postRecv(rwr); // receives may be posted from INIT on
        move(a, rtr(b), RTR_MASK);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.qp.postSend(wr)).errno());
    }

    @Test
    void shouldFlushEveryOutstandingRequestWhenMovedToError() {
        Peer.Link link = new Peer.Link();
        a.connect(b, link);
        b.connect(a, link);
        for (int i = 0; i < 3; i++) {
            a.qp.postRecv(new RecvWr().wrId(100 + i).sg(new Sge(a.addr(0), 64, a.mr.lkey())));
        }
        // b is never driven, so these stay outstanding
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 4, a.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(0)
                .sg(new Sge(a.addr(0), 4, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
        move(a, new QpAttr().qpState(QpState.ERR));
        WorkCompletion[] wcs = new WorkCompletion[8];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        int n = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (n < 5 && System.nanoTime() < deadline) {
            n += a.cq.poll(wcs, 5 - n);
        }
        assertEquals(5, n, "2 sends (even the unsignaled one) and 3 receives are flushed");
        List<Long> ids = java.util.Arrays.stream(wcs).limit(5).map(WorkCompletion::wrId).sorted().toList();
        assertEquals(List.of(1L, 2L, 100L, 101L, 102L), ids);
        for (int i = 0; i < 5; i++) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs[i].status());
        }
        // posting in ERR is accepted and flushed at once
        a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sg(new Sge(a.addr(0), 4, a.mr.lkey())));
        n = 0;
        while (n == 0 && System.nanoTime() < deadline) {
            n = a.cq.poll(wcs, 1);
        }
        assertEquals(3, wcs[0].wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs[0].status());
    }

    @Test
    void shouldDrainTheMessageInProgressInSqdAndStartNoNewOne() {
        Peer.Link link = new Peer.Link();
        a.connect(b, link);
        b.connect(a, link);
        // a large write is in flight when the QP moves to SQD; a second one is queued behind it
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 60_000, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
        move(a, new QpAttr().qpState(QpState.SQD));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 100, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int got = 0;
        while (got == 0 && System.nanoTime() < deadline) {
            b.ctx.progress();
            got = a.cq.poll(wcs);
        }
        assertEquals(1, got, "the message in progress completes in SQD");
        assertEquals(1, wcs[0].wrId());
        assertEquals(WcStatus.SUCCESS, wcs[0].status());
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        while (System.nanoTime() < end) {
            b.ctx.progress();
            assertEquals(0, a.cq.poll(wcs), "no new message starts while the QP is in SQD");
        }
        move(a, new QpAttr().qpState(QpState.RTS));
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        got = 0;
        while (got == 0 && System.nanoTime() < deadline) {
            b.ctx.progress();
            got = a.cq.poll(wcs);
        }
        assertEquals(1, got);
        assertEquals(2, wcs[0].wrId(), "back in RTS the queued message goes");
    }
}
