package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * RC queue pairs at work, as rdma-core's tests/test_qp.py: posting per state and queue overflow, what ERR, RESET
 * and destroy do to outstanding work requests, SQD, and connections between the two contexts (many at once, PSN
 * wrap-around, transport retries against a silent peer). Creation and the state machine are {@link QpTck}'s.
 */
public abstract class QpQueueTck extends QpTckBase {

    /** For a provider's test class that runs these tests. */
    protected QpQueueTck() {
    }

    // --------------------------------------------------------------------------------------------- posting

    @Test
    public void postSendBeforeRtsIsEinvalBadFlow() {
        for (QpState s : new QpState[] {QpState.RESET, QpState.INIT, QpState.RTR}) {
            Side x = sideA(4096, ALL_ACCESS);
            x.createQp(QpType.RC);
            walk(x.qp, s);
            VerbsException e = assertVerbsError(Errno.EINVAL, () -> x.qp.postSend(sendWr(x, 1, 0, 8)));
            assertEquals(0, e.badWrIndex(), () -> "in " + s);
            assertNoCompletion(x.cq, 5);
        }
    }

    @Test
    public void postRecvInResetIsEinvalButAllowedFromInitBadFlow() {
        Side x = sideA(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> x.postRecv(1, 0, 8));
        assertEquals(0, e.badWrIndex());
        walk(x.qp, QpState.INIT);
        x.postRecv(2, 0, 8);
        x.qp.modify(rtrAttr(0x77), RTR_MASK);
        x.postRecv(3, 64, 8);
        moveTo(x.qp, QpState.ERR);
        List<WorkCompletion> flushed = awaitN(x.cq, 2);
        assertEquals(List.of(2L, 3L), flushed.stream().map(WorkCompletion::wrId).toList(),
                "receives posted in INIT and RTR were queued");
    }

    @Test
    public void sendQueueFullIsEnomemWithTheBadWrIndexBadFlow() {
        Link link = new Link();
        link.timeout = 12; // about 17 ms until the requester tries again
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        moveTo(p[1].qp, QpState.RESET); // the peer drops everything: nothing is acknowledged, no slot frees up
        int depth = p[0].qp.cap().maxSendWr();
        SendWr chain = null;
        for (int i = depth + 1; i >= 0; i--) {
            chain = writeWr(p[0], i, 0, 8, p[1], 0).signaled(false).next(chain);
        }
        SendWr head = chain;
        VerbsException e = assertVerbsError(Errno.ENOMEM, () -> p[0].qp.postSend(head));
        assertEquals(depth, e.badWrIndex(), "the first request that did not fit");
        VerbsException again = assertVerbsError(Errno.ENOMEM, () -> p[0].qp.postSend(sendWr(p[0], 99, 0, 8)));
        assertEquals(0, again.badWrIndex());
        assertEquals(QpState.RTS, p[0].qp.state(), "a full queue is no error of the QP");
        // the peer comes back with the same PSNs: the posted requests are retransmitted and drain the queue
        connect(p[1], p[0], link);
        awaitCondition("the send queue drains", () -> {
            try {
                p[0].qp.postSend(writeWr(p[0], 500, 0, 8, p[1], 0));
                return true;
            } catch (VerbsException full) {
                assertEquals(Errno.ENOMEM, full.errno());
                return false;
            }
        });
        assertEquals(500, await(p[0].cq, WcStatus.SUCCESS).wrId(), "only the signaled request completes");
        assertNoCompletion(p[0].cq, 10);
    }

    @Test
    public void receiveQueueFullIsEnomemWithTheBadWrIndexBadFlow() {
        Side[] p = rcPair(4096);
        int depth = p[1].qp.cap().maxRecvWr();
        RecvWr chain = null;
        for (int i = depth + 2; i >= 0; i--) {
            chain = new RecvWr().wrId(i).sg(p[1].sge(0, 8)).next(chain);
        }
        RecvWr head = chain;
        VerbsException e = assertVerbsError(Errno.ENOMEM, () -> p[1].qp.postRecv(head));
        assertEquals(depth, e.badWrIndex());
        p[0].qp.postSend(sendWr(p[0], 1, 0, 8));
        assertEquals(0, await(p[1].cq, WcStatus.SUCCESS).wrId(), "the first posted receive is consumed first");
        p[1].postRecv(77, 0, 8); // one slot freed, one receive fits again
        assertVerbsError(Errno.ENOMEM, () -> p[1].postRecv(78, 0, 8));
    }

    @Test
    public void tooManySgesIsEinvalAndEarlierRequestsArePostedBadFlow() {
        Side[] p = rcPair(4096);
        int max = p[0].qp.cap().maxSendSge();
        Sge[] many = new Sge[max + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = p[0].sge(i, 1);
        }
        p[1].postRecv(1, 0, 64);
        p[1].postRecv(2, 64, 64);
        SendWr bad = sendWr(p[0], 11, 0, 0).sg(many);
        SendWr good = sendWr(p[0], 10, 0, 4).next(bad.next(sendWr(p[0], 12, 0, 4)));
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(good));
        assertEquals(1, e.badWrIndex());
        assertTrue(e.getMessage().contains("max_send_sge"), e::getMessage);
        assertEquals(10, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[0].cq, 20);
        assertEquals(1, await(p[1].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[1].cq, 5);
    }

    @Test
    public void tooManyReceiveSgesIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        int max = p[1].qp.cap().maxRecvSge();
        Sge[] many = new Sge[max + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = p[1].sge(i * 8L, 8);
        }
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[1].qp.postRecv(new RecvWr().wrId(1).sg(many)));
        assertEquals(0, e.badWrIndex());
    }

    @Test
    public void inlineBeyondMaxInlineIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        int max = p[0].qp.cap().maxInlineData();
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 1, 0, max + 1)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)));
        assertEquals(0, e.badWrIndex());
        assertTrue(e.getMessage().contains("max_inline_data"), e::getMessage);
    }

    @Test
    public void numSgeLargerThanTheListIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        SendWr wr = sendWr(p[0], 1, 0, 8).numSge(2); // the list holds one entry
        assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(wr));
    }

    // --------------------------------------------------------------------------------------------- ERR, RESET, destroy

    @Test
    public void errFlushesEveryOutstandingSendAndReceiveExactlyOnce() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        for (int i = 0; i < 3; i++) {
            x.postRecv(100 + i, i * 64L, 64);
        }
        // the peer has no receive: it RNR-NAKs the SEND and drops what follows, so all of these stay outstanding
        x.qp.postSend(sendWr(x, 1, 0, 8));
        x.qp.postSend(writeWr(x, 2, 0, 8, p[1], 0).signaled(false));
        x.qp.postSend(readWr(x, 3, 512, 8, p[1], 0));
        moveTo(x.qp, QpState.ERR);
        List<WorkCompletion> flushed = new ArrayList<>();
        WorkCompletion[] w = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (flushed.size() < 6 && System.nanoTime() - deadline < 0) {
            if (x.cq.poll(w, 1) == 1) { // polls only x: the peer stays quiet
                flushed.add(new WorkCompletion().copyFrom(w[0]));
            }
        }
        assertEquals(List.of(1L, 2L, 3L, 100L, 101L, 102L), flushed.stream().map(WorkCompletion::wrId).sorted()
                .toList(), "every send (even unsignaled) and every receive");
        for (WorkCompletion wc : flushed) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), wc::toString);
            assertEquals(x.qp.qpNum(), wc.qpNum());
        }
        assertEquals(List.of(1L, 2L, 3L), flushed.stream().filter(wc -> wc.wrId() < 100).map(WorkCompletion::wrId)
                .toList(), "sends flush in posting order");
        moveTo(x.qp, QpState.ERR);
        moveTo(x.qp, QpState.RESET);
        assertNoCompletion(x.cq, 30);
    }

    @Test
    public void postingInErrIsAcceptedAndFlushed() {
        Side[] p = rcPair(4096);
        moveTo(p[0].qp, QpState.ERR);
        p[0].qp.postSend(sendWr(p[0], 1, 0, 8).signaled(false));
        p[0].postRecv(2, 0, 8);
        List<WorkCompletion> got = awaitN(p[0].cq, 2);
        assertEquals(Set.of(1L, 2L), Set.of(got.get(0).wrId(), got.get(1).wrId()));
        for (WorkCompletion wc : got) {
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
        }
        assertNoCompletion(p[1].cq, 10);
    }

    @Test
    public void resetDiscardsOutstandingRequestsWithoutCompletions() {
        Side x = sideA(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        walk(x.qp, QpState.INIT);
        for (int i = 0; i < 5; i++) {
            x.postRecv(i, 0, 8);
        }
        moveTo(x.qp, QpState.RESET);
        assertNoCompletion(x.cq, 20);
        walk(x.qp, QpState.INIT);
        moveTo(x.qp, QpState.ERR);
        assertNoCompletion(x.cq, 20); // nothing left to flush: RESET emptied the queues
    }

    @Test
    public void qpIsReusableAfterReset() {
        Side[] p = rcPair(8192);
        p[1].postRecv(1, 0, 100);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 100));
        await(p[0].cq, WcStatus.SUCCESS);
        await(p[1].cq, WcStatus.SUCCESS);
        moveTo(p[0].qp, QpState.ERR);
        moveTo(p[0].qp, QpState.RESET);
        moveTo(p[1].qp, QpState.RESET);
        Link again = new Link();
        again.psn = 0xABCDE; // a new incarnation starts from fresh PSNs
        connect(p[0], p[1], again);
        connect(p[1], p[0], again);
        fill(p[0].buf.asSlice(0, 3000), 12);
        p[1].postRecv(3, 4096, 4096);
        p[0].qp.postSend(sendWr(p[0], 4, 0, 3000));
        assertEquals(4, await(p[0].cq, WcStatus.SUCCESS).wrId());
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(3, r.wrId());
        assertEquals(3000, r.byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 3000).mismatch(p[1].buf.asSlice(4096, 3000)));
    }

    @Test
    public void destroyWithOutstandingRequestsProducesNoCompletions() {
        Side[] p = rcPair(4096);
        for (int i = 0; i < 4; i++) {
            p[0].postRecv(10 + i, 0, 8);
        }
        p[0].qp.postSend(sendWr(p[0], 1, 0, 8));
        p[0].qp.postSend(writeWr(p[0], 2, 0, 8, p[1], 0));
        p[0].qp.close();
        assertNoCompletion(p[0].cq, 30);
        p[0].cq.close(); // nothing holds the CQ or the PD any more
        p[0].mr.close();
        p[0].pd.close();
    }

    @Test
    public void sqSigAllCompletesUnsignaledRequests() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(x.cq).recvCq(x.cq).cap(defaultCap()).sqSigAll(true));
        y.createQp(QpType.RC);
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        x.qp.postSend(writeWr(x, 1, 0, 8, y, 0).signaled(false));
        x.qp.postSend(writeWr(x, 2, 0, 8, y, 8).signaled(false));
        assertEquals(List.of(1L, 2L), awaitN(x.cq, 2).stream().map(WorkCompletion::wrId).toList());
    }

    @Test
    public void withoutSqSigAllOnlySignaledRequestsComplete() {
        Side[] p = rcPair(4096);
        fill(p[0].buf.asSlice(0, 64), 3);
        for (int i = 0; i < 4; i++) {
            p[0].qp.postSend(writeWr(p[0], i, i * 16L, 16, p[1], i * 16L).signaled(false));
        }
        p[0].qp.postSend(writeWr(p[0], 9, 0, 0, p[1], 0));
        WorkCompletion wc = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(9, wc.wrId());
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        assertNoCompletion(p[0].cq, 20);
        assertEquals(-1, p[0].buf.asSlice(0, 64).mismatch(p[1].buf.asSlice(0, 64)));
    }

    @Test
    public void requestsPostedInSqdWaitForRts() {
        Side[] p = rcPair(4096);
        moveTo(p[0].qp, QpState.SQD);
        assertEquals(QpState.SQD, p[0].qp.query(new QpAttr()).qpState());
        p[1].postRecv(1, 0, 8);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        assertNoCompletion(p[0].cq, 30);
        assertNoCompletion(p[1].cq, 1);
        moveTo(p[0].qp, QpState.RTS);
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(1, await(p[1].cq, WcStatus.SUCCESS).wrId());
    }

    @Test
    public void receivesStillWorkInSqd() {
        Side[] p = rcPair(4096);
        moveTo(p[1].qp, QpState.SQD); // SQD drains the send queue only; the receive side carries on
        p[1].postRecv(1, 0, 8);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(1, await(p[1].cq, WcStatus.SUCCESS).wrId());
    }

    @Test
    public void qpStateAfterRemoteErrorIsVisibleInQuery() {
        Side[] p = rcPair(4096);
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 8, p[1], 0).rkey(p[1].mr.rkey() ^ 0x5A00),
                WcStatus.REM_ACCESS_ERR);
        assertEquals(QpState.ERR, p[0].qp.query(new QpAttr()).qpState());
        assertEquals(QpState.ERR, p[1].qp.query(new QpAttr()).qpState());
    }

    @Test
    public void requestsBeforeARefusedOneStartAtOnce() {
        Side[] p = rcPair(4096);
        p[1].postRecv(1, 0, 64);
        SendWr bad = sendWr(p[0], 11, 0, 8).numSge(p[0].qp.cap().maxSendSge() + 1);
        assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 10, 0, 8).next(bad)));
        // only the peer is driven from here on: the accepted SEND must already be on its way (as rxe kicks the
        // send queue for the requests it accepted before the bad one), not wait for the next post or poll at x
        WorkCompletion[] w = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT.toNanos();
        int got = 0;
        while (got == 0 && System.nanoTime() - deadline < 0) {
            got = p[1].cq.poll(w, 1);
        }
        assertEquals(1, got, "the SEND accepted before the refused request reached the peer");
        assertEquals(1, w[0].wrId());
    }

    // --------------------------------------------------------------------------------------------- connections

    @Test
    public void aResponderInRtrReceivesAndAcknowledges() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        y.createQp(QpType.RC);
        Link link = new Link();
        connect(x, y, link);
        y.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(link.qpAccess),
                INIT_MASK);
        y.qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(link.mtu).destQpNum(x.qp.qpNum()).rqPsn(link.psn)
                .maxDestRdAtomic(link.maxRd).minRnrTimer(link.minRnrTimer).ahAttr(route(a)), RTR_MASK);
        fill(x.buf.asSlice(0, 100), 1);
        y.postRecv(1, 0, 100);
        x.qp.postSend(sendWr(x, 2, 0, 100).next(writeWr(x, 3, 0, 100, y, 1000)));
        assertEquals(List.of(2L, 3L), awaitN(x.cq, 2).stream().map(WorkCompletion::wrId).toList(),
                "a QP in RTR receives and acknowledges; it only cannot send");
        assertEquals(100, await(y.cq, WcStatus.SUCCESS).byteLen());
        assertEquals(QpState.RTR, y.qp.state());
        assertEquals(-1, x.buf.asSlice(0, 100).mismatch(y.buf.asSlice(1000, 100)));
    }

    @Test
    public void manyConnectionsBetweenTheSameTwoDevices() {
        int n = 12;
        List<Side[]> pairs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pairs.add(rcPair(4096));
        }
        for (int i = 0; i < n; i++) {
            Side[] p = pairs.get(i);
            fill(p[0].buf.asSlice(0, 64), i);
            p[1].postRecv(i, 0, 64);
            p[0].qp.postSend(sendWr(p[0], 100 + i, 0, 64));
        }
        for (int i = 0; i < n; i++) {
            Side[] p = pairs.get(i);
            assertEquals(100 + i, await(p[0].cq, WcStatus.SUCCESS).wrId());
            WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
            assertEquals(i, r.wrId(), "each message reaches the QP it was sent to");
            assertEquals(p[1].qp.qpNum(), r.qpNum());
            assertEquals(-1, p[0].buf.asSlice(0, 64).mismatch(p[1].buf.asSlice(0, 64)));
        }
    }

    @Test
    public void psnsWrapAroundTheTwentyFourBitSpace() {
        Link link = new Link();
        link.psn = 0xFFFFFE; // every message below crosses or follows the wrap to 0
        Side[] p = connectedPair(QpType.RC, 1 << 16, ALL_ACCESS, link);
        int mtu = link.mtu.bytes();
        fill(p[0].buf.asSlice(0, 5 * mtu), 2);
        fill(p[1].buf.asSlice(32768, 5 * mtu), 3);
        p[1].postRecv(1, 8192, 5 * mtu);
        p[0].qp.postSend(sendWr(p[0], 10, 0, 5 * mtu)
                .next(writeWr(p[0], 11, 0, 3 * mtu + 1, p[1], 16384)
                .next(readWr(p[0], 12, 40000, 5 * mtu, p[1], 32768)
                .next(sendWr(p[0], 13, 0, 0)))));
        p[1].postRecv(2, 0, 8);
        assertEquals(List.of(10L, 11L, 12L, 13L), awaitN(p[0].cq, 4).stream().filter(WorkCompletion::isSuccess)
                .map(WorkCompletion::wrId).toList());
        assertEquals(5 * mtu, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(0, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 5 * mtu).mismatch(p[1].buf.asSlice(8192, 5 * mtu)));
        assertEquals(-1, p[0].buf.asSlice(0, 3 * mtu + 1).mismatch(p[1].buf.asSlice(16384, 3 * mtu + 1)));
        assertEquals(-1, p[1].buf.asSlice(32768, 5 * mtu).mismatch(p[0].buf.asSlice(40000, 5 * mtu)));
        int sq = p[0].qp.query(new QpAttr()).sqPsn();
        assertEquals((0xFFFFFE + 5 + 4 + 5 + 1) & 0xFFFFFF, sq, "the next PSN wrapped past 0");
    }

    @Test
    public void changingAccessFlagsInRtsTakesEffect() {
        Side[] p = rcPair(4096);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 8, p[1], 0));
        await(p[0].cq, WcStatus.SUCCESS);
        p[1].qp.modify(new QpAttr().qpState(QpState.RTS).qpAccessFlags(Access.REMOTE_READ),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS));
        assertEquals(Access.REMOTE_READ, p[1].qp.query(new QpAttr()).qpAccessFlags());
        p[0].qp.postSend(readWr(p[0], 2, 0, 8, p[1], 0));
        await(p[0].cq, WcStatus.SUCCESS);
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 8, p[1], 0), WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    public void aSilentPeerExhaustsTheTransportRetriesBadFlow() {
        Link link = new Link();
        link.timeout = 8; // 4.096 us * 2^8 = about 1 ms per try
        link.retryCnt = 2;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        p[1].qp.close(); // nothing answers at the destination QPN any more
        long t0 = System.nanoTime();
        p[0].qp.postSend(writeWr(p[0], 1, 0, 8, p[1], 0).next(sendWr(p[0], 2, 0, 8)));
        WorkCompletion wc = await(p[0].cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.RETRY_EXC_ERR, wc.status(), wc::toString);
        assertTrue(System.nanoTime() - t0 >= 3_000_000L, "three timeouts of about 1 ms each went by first");
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
    }

    @Test
    public void aPeerInErrIsSilentToo() {
        Link link = new Link();
        link.timeout = 8;
        link.retryCnt = 1;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        moveTo(p[1].qp, QpState.ERR);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 8, p[1], 0));
        assertEquals(WcStatus.RETRY_EXC_ERR, await(p[0].cq).status());
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_LONG, 0), "a QP in ERR executes nothing");
    }

    @Test
    public void inlineReadIsEinvalBadFlow() {
        Side[] p = rcPair(4096);
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(readWr(p[0], 1, 0, 8, p[1], 0)
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)));
        assertEquals(0, e.badWrIndex());
    }

}
