package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Completion queues and channels (ibv_create_cq, ibv_poll_cq, ibv_req_notify_cq, ibv_get_cq_event,
 * ibv_ack_cq_events), as rdma-core's tests/test_cq.py and test_cq_events.py: sizes, polling in batches and in
 * order, overrun, one event per arming (solicited only when asked), and destruction order.
 */
public abstract class CqTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected CqTck() {
    }

    private static final Duration EVENT_WAIT = Duration.ofSeconds(5);

    private static WorkCompletion[] wcs(int n) {
        WorkCompletion[] w = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            w[i] = new WorkCompletion();
        }
        return w;
    }

    /** An RC pair whose side y receives into {@code recvCq} (its sends still complete on its own CQ). */
    private Side[] pairReceivingInto(CompletionQueue recvCq) {
        Side x = sideA(1 << 16, ALL_ACCESS);
        Side y = sideB(1 << 16, ALL_ACCESS);
        x.createQp(QpType.RC);
        y.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(y.cq).recvCq(recvCq).cap(defaultCap()));
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        return new Side[] {x, y};
    }

    private static SendWr send(Side x, long id, boolean solicited) {
        return sendWr(x, id, 0, 32).sendFlags(SendFlags.SIGNALED | (solicited ? SendFlags.SOLICITED : 0));
    }

    // --------------------------------------------------------------------------------------------- sizes

    @Test
    public void smallestCqHasOneEntry() {
        CompletionQueue cq = closeLater(a.createCq(1));
        assertTrue(cq.capacity() >= 1);
        assertNull(cq.channel());
    }

    @Test
    public void largestCqHasMaxCqeEntries() {
        int max = a.queryDevice().maxCqe();
        CompletionQueue cq = closeLater(a.createCq(max));
        assertTrue(cq.capacity() >= max);
    }

    @Test
    public void zeroOrNegativeSizeIsEinvalBadFlow() {
        assertVerbsError(Errno.EINVAL, () -> a.createCq(0));
        assertVerbsError(Errno.EINVAL, () -> a.createCq(-1));
    }

    @Test
    public void sizeBeyondMaxCqeIsEinvalBadFlow() {
        int max = a.queryDevice().maxCqe();
        assertVerbsError(Errno.EINVAL, () -> a.createCq(max + 1));
    }

    @Test
    public void capacityIsAtLeastWhatWasAskedFor() {
        for (int n : new int[] {1, 2, 3, 100, 1000}) {
            try (CompletionQueue cq = a.createCq(n)) {
                assertTrue(cq.capacity() >= n, () -> "asked " + n + ", got " + cq.capacity());
            }
        }
    }

    // --------------------------------------------------------------------------------------------- polling

    @Test
    public void pollingAnEmptyCqReturnsZero() {
        CompletionQueue cq = closeLater(a.createCq(4));
        WorkCompletion[] w = wcs(4);
        assertEquals(0, cq.poll(w));
        assertEquals(0, cq.poll(w, 1));
    }

    @Test
    public void pollReturnsAtMostMaxInOrder() {
        Side[] p = rcPair(1 << 16);
        for (int i = 0; i < 10; i++) {
            p[1].postRecv(100 + i, i * 64L, 64);
        }
        SendWr chain = null;
        for (int i = 9; i >= 0; i--) {
            chain = sendWr(p[0], i, i * 64L, 64).next(chain);
        }
        p[0].qp.postSend(chain);
        awaitN(p[0].cq, 10); // every SEND is acknowledged, so all 10 receive completions wait in y's CQ
        WorkCompletion[] w = wcs(5);
        long expected = 100;
        for (int batch : new int[] {3, 3, 3, 1}) {
            int n = p[1].cq.poll(w, 3);
            assertEquals(batch, n);
            for (int i = 0; i < n; i++) {
                assertEquals(expected++, w[i].wrId(), "completions come out oldest first");
                assertEquals(WcOpcode.RECV, w[i].opcode());
                assertEquals(64, w[i].byteLen());
            }
        }
        assertEquals(0, p[1].cq.poll(w, 3));
    }

    @Test
    public void pollWithMaxZeroTakesNothing() {
        Side[] p = rcPair(4096);
        p[1].postRecv(1, 0, 64);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 64));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion[] w = wcs(2);
        assertEquals(0, p[1].cq.poll(w, 0));
        assertEquals(1, p[1].cq.poll(w), "the completion is still there");
        assertEquals(1, w[0].wrId());
    }

    @Test
    public void pollFillsNoMoreThanTheArrayHolds() {
        Side[] p = rcPair(4096);
        for (int i = 0; i < 3; i++) {
            p[1].postRecv(i, i * 64L, 64);
            p[0].qp.postSend(sendWr(p[0], 10 + i, 0, 64));
        }
        awaitN(p[0].cq, 3);
        WorkCompletion[] w = wcs(2);
        assertEquals(2, p[1].cq.poll(w, 10), "max larger than the array: the array bounds the batch");
        assertEquals(1, p[1].cq.poll(w, 10));
    }

    @Test
    public void sendAndReceiveCompletionsShareOneCqInOrder() {
        Side[] p = rcPair(4096);
        p[0].postRecv(50, 0, 64); // x's receive and x's send complete on x's single CQ
        p[1].postRecv(60, 0, 64);
        p[0].qp.postSend(sendWr(p[0], 1, 0, 64));
        assertEquals(WcOpcode.SEND, await(p[0].cq, WcStatus.SUCCESS).opcode());
        p[1].qp.postSend(sendWr(p[1], 2, 0, 64));
        WorkCompletion r = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(50, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(p[0].qp.qpNum(), r.qpNum());
    }

    @Test
    public void separateSendAndReceiveCqs() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        CompletionQueue xRecv = closeLater(a.createCq(8));
        x.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(x.cq).recvCq(xRecv).cap(defaultCap()));
        y.createQp(QpType.RC);
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        x.postRecv(7, 0, 64);
        y.postRecv(8, 0, 64);
        x.qp.postSend(sendWr(x, 1, 0, 64));
        y.qp.postSend(sendWr(y, 2, 0, 64));
        assertEquals(1, await(x.cq, WcStatus.SUCCESS).wrId());
        assertEquals(7, await(xRecv, WcStatus.SUCCESS).wrId());
        assertNoCompletion(x.cq, 20);
        assertNoCompletion(xRecv, 1);
    }

    @Test
    public void oneCqServesTwoQps() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        Side y2 = sideB(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        y.createQp(QpType.RC);
        Side x2 = sideA(4096, ALL_ACCESS);
        // x2's QP completes on x's CQ, with x2's own PD and memory
        x2.qp = closeLater(x2.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(x.cq).recvCq(x.cq)
                .cap(defaultCap())));
        y2.createQp(QpType.RC);
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        connect(x2, y2, link);
        connect(y2, x2, link);
        y.postRecv(1, 0, 64);
        y2.postRecv(2, 0, 64);
        x.qp.postSend(sendWr(x, 11, 0, 64));
        x2.qp.postSend(sendWr(x2, 12, 0, 64));
        List<WorkCompletion> got = awaitN(x.cq, 2);
        assertEquals(Set.of(x.qp.qpNum(), x2.qp.qpNum()),
                Set.of(got.get(0).qpNum(), got.get(1).qpNum()), "qp_num tells the QPs apart");
        for (WorkCompletion wc : got) {
            assertEquals(wc.qpNum() == x.qp.qpNum() ? 11 : 12, wc.wrId());
        }
    }

    @Test
    public void overrunIsReportedAsEioBadFlow() {
        Side x = sideA(4096, ALL_ACCESS);
        CompletionQueue small = closeLater(a.createCq(2));
        x.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(small).recvCq(small).cap(defaultCap()));
        toInit(x.qp);
        int over = small.capacity() + 2;
        for (int i = 0; i < over; i++) {
            x.postRecv(i, 0, 8);
        }
        moveTo(x.qp, QpState.ERR); // one flush completion per receive: two more than the CQ holds
        WorkCompletion[] w = wcs(over);
        int got = 0;
        long deadline = System.nanoTime() + WAIT.toNanos();
        VerbsException error = null;
        while (error == null && System.nanoTime() - deadline < 0) {
            try {
                got += small.poll(w, over);
            } catch (VerbsException e) {
                error = e;
            }
        }
        assertTrue(error != null, "an overrun CQ must report the error");
        assertEquals(Errno.EIO, error.errno());
        assertEquals(small.capacity(), got, "the completions that fit are delivered before the error");
        assertVerbsError(Errno.EIO, () -> small.poll(w)); // the CQ stays in error
    }

    private static void toInit(QueuePair qp) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
                        QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
    }

    // --------------------------------------------------------------------------------------------- channels

    @Test
    public void armedCqRaisesOneEventForTheNextCompletion() {
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue cq = closeLater(b.createCq(16, ch));
        assertSame(ch, cq.channel());
        Side[] p = pairReceivingInto(cq);
        for (int i = 0; i < 2; i++) {
            p[1].qp.postRecv(new RecvWr().wrId(i).sg(p[1].sge(i * 64L, 64)));
        }
        cq.requestNotify(false);
        p[0].qp.postSend(send(p[0], 1, false));
        assertSame(cq, ch.awaitEvent(EVENT_WAIT));
        cq.ackEvents(1);
        assertEquals(0, awaitN(cq, 1).getFirst().wrId());
        // not re-armed: the next completion raises nothing
        p[0].qp.postSend(send(p[0], 2, false));
        assertEquals(1, awaitN(cq, 1).getFirst().wrId());
        assertNull(ch.awaitEvent(Duration.ofMillis(50)));
    }

    @Test
    public void armingTwiceStillRaisesOneEvent() {
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue cq = closeLater(b.createCq(16, ch));
        Side[] p = pairReceivingInto(cq);
        p[1].qp.postRecv(new RecvWr().wrId(1).sg(p[1].sge(0, 64)));
        p[1].qp.postRecv(new RecvWr().wrId(2).sg(p[1].sge(64, 64)));
        cq.requestNotify(false);
        cq.requestNotify(false);
        p[0].qp.postSend(send(p[0], 1, false).next(send(p[0], 2, false)));
        assertEquals(2, awaitN(p[0].cq, 2).size());
        assertSame(cq, ch.awaitEvent(EVENT_WAIT));
        assertNull(ch.awaitEvent(Duration.ofMillis(50)), "one arming, one event");
        cq.ackEvents(1);
    }

    @Test
    public void solicitedOnlyArmingIgnoresUnsolicitedCompletions() {
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue cq = closeLater(b.createCq(16, ch));
        Side[] p = pairReceivingInto(cq);
        for (int i = 0; i < 2; i++) {
            p[1].qp.postRecv(new RecvWr().wrId(i).sg(p[1].sge(i * 64L, 64)));
        }
        cq.requestNotify(true);
        p[0].qp.postSend(send(p[0], 1, false));
        await(p[0].cq, WcStatus.SUCCESS);
        assertNull(ch.awaitEvent(Duration.ofMillis(50)), "an unsolicited SEND wakes nobody armed for solicited");
        assertEquals(0, awaitN(cq, 1).getFirst().wrId(), "the completion itself is there");
        p[0].qp.postSend(send(p[0], 2, true));
        assertSame(cq, ch.awaitEvent(EVENT_WAIT), "a SOLICITED send does");
        cq.ackEvents(1);
        assertEquals(1, awaitN(cq, 1).getFirst().wrId());
    }

    @Test
    public void solicitedOnlyArmingFiresOnAnErrorCompletion() {
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue cq = closeLater(b.createCq(16, ch));
        Side[] p = pairReceivingInto(cq);
        p[1].qp.postRecv(new RecvWr().wrId(9).sg(p[1].sge(0, 64)));
        cq.requestNotify(true);
        moveTo(p[1].qp, QpState.ERR); // the receive is flushed: an unsuccessful completion
        assertSame(cq, ch.awaitEvent(EVENT_WAIT));
        cq.ackEvents(1);
        WorkCompletion wc = awaitN(cq, 1).getFirst();
        assertEquals(9, wc.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
    }

    @Test
    public void armingForAnyAfterSolicitedOnlyWidensIt() {
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue cq = closeLater(b.createCq(16, ch));
        Side[] p = pairReceivingInto(cq);
        p[1].qp.postRecv(new RecvWr().wrId(1).sg(p[1].sge(0, 64)));
        cq.requestNotify(true);
        cq.requestNotify(false);
        p[0].qp.postSend(send(p[0], 1, false));
        assertSame(cq, ch.awaitEvent(EVENT_WAIT));
        cq.ackEvents(1);
    }

    @Test
    public void eventsNameTheirCqOnASharedChannel() {
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue first = closeLater(b.createCq(16, ch));
        CompletionQueue second = closeLater(b.createCq(16, ch));
        Side[] p = pairReceivingInto(second);
        p[1].qp.postRecv(new RecvWr().wrId(1).sg(p[1].sge(0, 64)));
        first.requestNotify(false);
        second.requestNotify(false);
        p[0].qp.postSend(send(p[0], 1, false));
        assertSame(second, ch.awaitEvent(EVENT_WAIT));
        second.ackEvents(1);
        assertNull(ch.awaitEvent(Duration.ofMillis(50)), "the other CQ had no completion");
    }

    @Test
    public void awaitEventTimesOutWithNull() {
        CompletionChannel ch = closeLater(a.createCompletionChannel());
        CompletionQueue cq = closeLater(a.createCq(4, ch));
        cq.requestNotify(false);
        long t0 = System.nanoTime();
        assertNull(ch.awaitEvent(Duration.ofMillis(30)));
        assertTrue(System.nanoTime() - t0 >= 25_000_000L, "waited about the timeout");
    }

    @Test
    public void notifyWithoutAChannelIsEinvalBadFlow() {
        CompletionQueue cq = closeLater(a.createCq(4));
        assertVerbsError(Errno.EINVAL, () -> cq.requestNotify(false));
        assertVerbsError(Errno.EINVAL, () -> cq.requestNotify(true));
    }

    @Test
    public void acknowledgingMoreEventsThanRaisedIsEinvalBadFlow() {
        CompletionChannel ch = closeLater(a.createCompletionChannel());
        CompletionQueue cq = closeLater(a.createCq(4, ch));
        assertVerbsError(Errno.EINVAL, () -> cq.ackEvents(1));
        cq.ackEvents(0);
    }

    @Test
    public void channelOfAnotherContextIsEinvalBadFlow() {
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        assertVerbsError(Errno.EINVAL, () -> a.createCq(4, ch));
    }

    @Test
    public void closingACqUsedByAQpIsEbusyBadFlow() {
        Side[] p = rcPair(4096);
        assertVerbsError(Errno.EBUSY, p[0].cq::close);
        p[1].postRecv(1, 0, 8);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId(), "the CQ still works after the refused close");
        p[0].qp.close();
        p[0].cq.close();
    }

    @Test
    public void closingAChannelUsedByACqIsEbusyBadFlow() {
        CompletionChannel ch = a.createCompletionChannel();
        CompletionQueue cq = a.createCq(4, ch);
        assertVerbsError(Errno.EBUSY, ch::close);
        cq.close();
        ch.close();
    }

    @Test
    public void closingACqTwiceIsHarmless() {
        CompletionQueue cq = a.createCq(4);
        cq.close();
        cq.close();
    }

    @Test
    public void completionsOutliveTheirQp() {
        Side[] p = rcPair(4096);
        p[1].postRecv(1, 0, 8);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        await(p[1].cq, WcStatus.SUCCESS); // the peer has the SEND and has acknowledged it
        long until = System.nanoTime() + 20_000_000L;
        while (System.nanoTime() - until < 0) {
            a.progress(); // x takes the ACK in; its completion waits in the CQ, unpolled
        }
        p[0].qp.close();
        WorkCompletion[] w = wcs(2);
        assertEquals(1, p[0].cq.poll(w), "a completion already in the CQ stays there after its QP is gone");
        assertEquals(2, w[0].wrId());
        assertEquals(WcStatus.SUCCESS, w[0].status());
    }

    @Test
    public void acknowledgingANegativeCountIsEinvalBadFlow() {
        CompletionChannel ch = closeLater(a.createCompletionChannel());
        CompletionQueue cq = closeLater(a.createCq(4, ch));
        assertVerbsError(Errno.EINVAL, () -> cq.ackEvents(-1));
    }
}
