package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.PortState;
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
import io.jrdma.wire.Bth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Position;
import io.jrdma.wire.Transport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Asynchronous events of the soft device, each with the resource it names, raised once: COMM_EST, QP_ACCESS_ERR,
 * QP_REQ_ERR, QP_FATAL, CQ_ERR, SQ_DRAINED (and SQD's rules), PORT_ERR and PORT_ACTIVE with a port taken down and
 * up under a transfer that survives a short outage and fails with RETRY_EXC_ERR after a long one. Addresses
 * 127.0.34.x.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AsyncEventTest {

    private static final String A = "127.0.34.1";
    private static final String B = "127.0.34.2";

    private static Pair pair(NanoClock clock, Peer.Link link) {
        return new Pair(A, B, Threading.INVOKER, clock, 1 << 20, Peer.ALL_ACCESS, Peer.defaultCap(), link);
    }

    private static SendWr send(Peer p, long wrId, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(p.addr(offset), length, p.mr.lkey()));
    }

    /** Drives both peers until {@code cq} has a completion; asserts its status. */
    private static void awaitOn(Peer a, Peer b, CompletionQueue cq, WcStatus status) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + Wiring.WAIT_NS;
        while (cq.poll(wcs) == 0) {
            if (System.nanoTime() - deadline > 0) {
                fail("no completion");
            }
            a.ctx.progress();
            b.ctx.progress();
        }
        assertEquals(status, wcs[0].status(), wcs[0].toString());
    }

    private static void postRecv(Peer p, long wrId, long offset, int length) {
        p.qp.postRecv(new RecvWr().wrId(wrId).sg(new Sge(p.addr(offset), length, p.mr.lkey())));
    }

    // ------------------------------------------------------------------------------------------------- COMM_EST

    @Test
    void shouldRaiseCommEstOnceWhenTheFirstRequestReachesAQpInRtr() {
        Peer.Link link = new Peer.Link();
        try (Peer a = new Peer(A, Threading.INVOKER, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap());
             Peer b = new Peer(B, Threading.INVOKER, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS, Peer.defaultCap())) {
            a.connect(b, link);
            Wiring.toRtr(b.qp, a.qp.qpNum(), a.ctx.queryGid(1, 1), link); // b stays in RTR: it only receives
            for (int i = 0; i < 3; i++) {
                postRecv(b, i, i * 256L, 256);
            }
            Wiring.assertNoEvent(b.ctx, 10, a.ctx, b.ctx);
            a.qp.postSend(send(a, 1, 0, 100));
            AsyncEvent e = Wiring.awaitEvent(b.ctx, a.ctx, b.ctx);
            assertEquals(AsyncEventType.COMM_EST, e.type());
            assertSame(b.qp, e.qp());
            assertNull(e.cq());
            assertNull(e.srq());
            assertEquals(QpState.RTR, b.qp.state());
            awaitOn(a, b, b.cq, WcStatus.SUCCESS);
            awaitOn(a, b, a.cq, WcStatus.SUCCESS);
            a.qp.postSend(send(a, 2, 0, 100)); // a second request in RTR: no second event
            awaitOn(a, b, b.cq, WcStatus.SUCCESS);
            Wiring.toRts(b.qp, link);
            a.qp.postSend(send(a, 3, 0, 100));
            awaitOn(a, b, b.cq, WcStatus.SUCCESS);
            Wiring.assertNoEvent(b.ctx, 20, a.ctx, b.ctx);
            Wiring.assertNoEvent(a.ctx, 1, a.ctx); // a was in RTS before its first request arrived
        }
    }

    @Test
    void shouldNotRaiseCommEstOnAQpAlreadyInRts() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            postRecv(p.b, 1, 0, 64);
            postRecv(p.a, 1, 0, 64);
            p.a.qp.postSend(send(p.a, 1, 0, 10));
            p.b.qp.postSend(send(p.b, 2, 0, 10));
            assertEquals(2, p.awaitN(p.a.cq, 2).size());
            assertEquals(2, p.awaitN(p.b.cq, 2).size());
            Wiring.assertNoEvent(p.a.ctx, 20, p.a.ctx, p.b.ctx);
            Wiring.assertNoEvent(p.b.ctx, 1, p.b.ctx);
        }
    }

    // ------------------------------------------------------------------------------------------------- QP errors

    @Test
    void shouldRaiseQpAccessErrAtTheResponderOfAWriteWithABadRkeyBadFlow() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            p.a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(p.a.addr(0), 64, p.a.mr.lkey())).remoteAddr(p.b.addr(0)).rkey(p.b.mr.rkey() + 1));
            AsyncEvent e = Wiring.awaitEvent(p.b.ctx, p.a.ctx, p.b.ctx);
            assertEquals(AsyncEventType.QP_ACCESS_ERR, e.type());
            assertSame(p.b.qp, e.qp());
            assertEquals(QpState.ERR, p.b.qp.state());
            WorkCompletion wc = p.await(p.a.cq);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());
            Wiring.assertNoEvent(p.b.ctx, 20, p.a.ctx, p.b.ctx);
            Wiring.assertNoEvent(p.a.ctx, 1, p.a.ctx); // the requester learns of its error from the completion
        }
    }

    @Test
    void shouldRaiseNoEventForAnErrorThatAReceiveCompletionReports() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            postRecv(p.b, 1, 0, 16); // too small: LOC_LEN_ERR at b, REM_INV_REQ_ERR at a
            p.a.qp.postSend(send(p.a, 1, 0, 100));
            assertEquals(WcStatus.LOC_LEN_ERR, p.await(p.b.cq).status());
            assertEquals(WcStatus.REM_INV_REQ_ERR, p.await(p.a.cq).status());
            assertEquals(QpState.ERR, p.b.qp.state());
            Wiring.assertNoEvent(p.b.ctx, 20, p.a.ctx, p.b.ctx);
        }
    }

    @Test
    void shouldRaiseQpReqErrForAnOutOfSequenceOpcodeBadFlow() throws IOException {
        Peer.Link link = new Peer.Link();
        try (Pair p = pair(NanoClock.SYSTEM, link);
             DatagramSocket raw = new DatagramSocket(new InetSocketAddress(A, 0))) {
            // a SEND MIDDLE with no SEND FIRST before it, from a's address, at the PSN b expects
            Opcode op = Opcode.send(Transport.RC, Position.MIDDLE, false, false);
            int payload = 1024;
            int len = op.headerLength() + payload + 4;
            ByteBuffer buf = ByteBuffer.allocateDirect(len);
            MemorySegment seg = MemorySegment.ofBuffer(buf);
            Bth.write(seg, 0, op.code(), false, false, 0, 0xFFFF, p.b.qp.qpNum(), false, link.psn);
            new Icrc().writeIpv4(Link.ipv4(InetAddress.getByName(A)), Link.ipv4(InetAddress.getByName(B)),
                    raw.getLocalPort(), Link.ROCE_PORT, buf, 0, len);
            byte[] bytes = new byte[len];
            buf.get(0, bytes);
            raw.send(new DatagramPacket(bytes, len, new InetSocketAddress(B, Link.ROCE_PORT)));
            AsyncEvent e = Wiring.awaitEvent(p.b.ctx, p.b.ctx);
            assertEquals(AsyncEventType.QP_REQ_ERR, e.type());
            assertSame(p.b.qp, e.qp());
            assertEquals(QpState.ERR, p.b.qp.state());
            assertEquals(1, p.b.ctx.counters().get(Counter.RCVD_PKTS), "the packet passed the transport checks");
            Wiring.assertNoEvent(p.b.ctx, 20, p.a.ctx, p.b.ctx);
        }
    }

    @Test
    void shouldRaiseQpFatalWhenServingTheQpFailsUnexpectedlyBadFlow() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            p.a.ctx.tap((tx, pkt, off, len, sip, sp, dip, dp) -> {
                if (tx) {
                    throw new IllegalStateException("injected");
                }
            });
            p.a.qp.postSend(send(p.a, 1, 0, 10));
            AsyncEvent e = Wiring.awaitEvent(p.a.ctx, p.a.ctx);
            assertEquals(AsyncEventType.QP_FATAL, e.type());
            assertSame(p.a.qp, e.qp());
            assertEquals(QpState.ERR, p.a.qp.state());
            p.a.ctx.tap(null);
            assertEquals(WcStatus.WR_FLUSH_ERR, p.await(p.a.cq).status());
            Wiring.assertNoEvent(p.a.ctx, 20, p.a.ctx, p.b.ctx);
        }
    }

    // ------------------------------------------------------------------------------------------------- CQ_ERR

    @Test
    void shouldRaiseCqErrOnceWhenACqOverrunsBadFlow() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            Peer a = p.a;
            CompletionQueue small = a.ctx.createCq(2);
            QueuePair qp = a.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(small).recvCq(small)
                    .cap(Peer.defaultCap()));
            try {
                qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                        EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                                QpAttrMask.ACCESS_FLAGS));
                for (int i = 0; i < 6; i++) {
                    qp.postRecv(new RecvWr().wrId(i).sg(new Sge(a.addr(0), 8, a.mr.lkey())));
                }
                Wiring.move(qp, QpState.ERR); // 6 flush completions for 2 entries
                AsyncEvent e = Wiring.awaitEvent(a.ctx, a.ctx);
                assertEquals(AsyncEventType.CQ_ERR, e.type());
                assertSame(small, e.cq());
                assertNull(e.qp());
                Wiring.assertNoEvent(a.ctx, 20, a.ctx);
                WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
                assertEquals(2, small.poll(wcs));
                assertEquals(Errno.EIO, assertThrows(VerbsException.class, () -> small.poll(wcs)).errno());
            } finally {
                qp.close();
                small.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- SQD

    private static void toSqd(QueuePair qp, boolean notify) {
        qp.modify(new QpAttr().qpState(QpState.SQD).enSqdAsyncNotify(notify),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.EN_SQD_ASYNC_NOTIFY));
    }

    @Test
    void shouldRaiseSqDrainedOnceTheMessageInProgressIsAcknowledged() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            Peer a = p.a;
            Peer b = p.b;
            postRecv(b, 7, 65536, 64); // now, so that b is not driven again until the test says so
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), 60_000, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
            toSqd(a.qp, true);
            a.qp.postSend(send(a, 2, 0, 10)); // queued behind the drain: not started in SQD
            assertTrue(a.qp.query(new QpAttr()).sqDraining(), "the write is in flight");
            VerbsException early = assertThrows(VerbsException.class, () -> Wiring.move(a.qp, QpState.RTS));
            assertEquals(Errno.EINVAL, early.errno(), "as rxe: no leaving SQD (except to ERR) while draining");
            Wiring.assertNoEvent(a.ctx, 20, a.ctx); // b is not driven: nothing is acknowledged yet

            AsyncEvent e = Wiring.awaitEvent(a.ctx, a.ctx, b.ctx);
            assertEquals(AsyncEventType.SQ_DRAINED, e.type());
            assertSame(a.qp, e.qp());
            WorkCompletion[] wcs = {new WorkCompletion()};
            assertEquals(1, a.cq.poll(wcs), "the drained message completed before the event");
            assertEquals(1, wcs[0].wrId());
            assertEquals(WcStatus.SUCCESS, wcs[0].status());
            QpAttr q = a.qp.query(new QpAttr());
            assertEquals(QpState.SQD, q.qpState());
            assertFalse(q.sqDraining());
            p.assertNoCompletion(a.cq, TimeUnit.MILLISECONDS.toNanos(20)); // WR 2 does not start in SQD
            Wiring.assertNoEvent(a.ctx, 1, a.ctx);

            // SQD -> SQD changes attributes SQD allows; SQD -> RTS resumes the send queue
            a.qp.modify(new QpAttr().qpState(QpState.SQD).retryCnt(5).timeout(15),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.RETRY_CNT, QpAttrMask.TIMEOUT));
            q = a.qp.query(new QpAttr());
            assertEquals(5, q.retryCnt());
            assertEquals(15, q.timeout());
            Wiring.move(a.qp, QpState.RTS);
            WorkCompletion wc = p.await(a.cq);
            assertEquals(2, wc.wrId());
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(7, p.await(b.cq).wrId());
            Wiring.assertNoEvent(a.ctx, 10, a.ctx, b.ctx);
        }
    }

    @Test
    void shouldRaiseSqDrainedOnlyWhenAsked() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            toSqd(p.a.qp, false);
            Wiring.assertNoEvent(p.a.ctx, 20, p.a.ctx, p.b.ctx);
            assertFalse(p.a.qp.query(new QpAttr()).sqDraining());
            Wiring.move(p.a.qp, QpState.RTS);
            toSqd(p.a.qp, true); // idle: drained at once
            AsyncEvent e = Wiring.awaitEvent(p.a.ctx, p.a.ctx);
            assertEquals(AsyncEventType.SQ_DRAINED, e.type());
            assertSame(p.a.qp, e.qp());
            Wiring.assertNoEvent(p.a.ctx, 20, p.a.ctx, p.b.ctx);
            Wiring.move(p.a.qp, QpState.ERR); // leaving SQD for ERR is always allowed
        }
    }

    // ------------------------------------------------------------------------------------------------- port

    @Test
    void shouldTakeThePortDownAndUpWithOneEventPerChange() {
        try (Pair p = pair(NanoClock.SYSTEM, new Peer.Link())) {
            SoftContext ctx = p.a.ctx;
            ctx.setPortState(PortState.DOWN);
            PortAttr down = ctx.queryPort(1);
            assertEquals(PortState.DOWN, down.state());
            assertEquals(3, down.physState(), "Disabled");
            AsyncEvent e = Wiring.awaitEvent(ctx, ctx);
            assertEquals(AsyncEventType.PORT_ERR, e.type());
            assertEquals(1, e.port());
            assertNull(e.qp());
            assertNull(e.cq());
            assertNull(e.srq());
            ctx.setPortState(PortState.DOWN); // no change, no event
            Wiring.assertNoEvent(ctx, 10, ctx);
            ctx.setPortState(PortState.ACTIVE);
            e = Wiring.awaitEvent(ctx, ctx);
            assertEquals(AsyncEventType.PORT_ACTIVE, e.type());
            assertEquals(1, e.port());
            PortAttr up = ctx.queryPort(1);
            assertEquals(PortState.ACTIVE, up.state());
            assertEquals(5, up.physState(), "LinkUp");
            assertEquals(1, ctx.counters().get(Counter.LINK_DOWNED));
            assertThrows(IllegalArgumentException.class, () -> ctx.setPortState(PortState.INIT));
            assertEquals(QpState.RTS, p.a.qp.state(), "QPs keep their state");
            Wiring.assertNoEvent(p.b.ctx, 1, p.b.ctx); // the other device's port never changed
        }
    }

    /** Drives both peers, stepping the clock, until {@code cq} has a completion; fails after 100000 passes. */
    private static WorkCompletion awaitStepping(Pair p, CompletionQueue cq, ManualClock clock, long stepNs) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        for (int i = 0; i < 100_000; i++) {
            p.drive();
            if (cq.poll(wcs) == 1) {
                return new WorkCompletion().copyFrom(wcs[0]);
            }
            clock.advance(stepNs);
        }
        return fail("no completion after 100000 passes");
    }

    /** Steps the clock through {@code timeouts} ACK timeouts, asserting that neither side completes anything. */
    private static void stepWithoutCompletion(Pair p, ManualClock clock, long timeoutNs, int timeouts) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        for (int i = 0; i < timeouts * 4; i++) {
            p.drive();
            assertEquals(0, p.a.cq.poll(wcs), () -> "unexpected " + wcs[0]);
            assertEquals(0, p.b.cq.poll(wcs), () -> "unexpected " + wcs[0]);
            clock.advance(timeoutNs / 4 + 1);
        }
    }

    @Test
    void shouldRideOutAShortLinkLossOnEitherSideByRetransmitting() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.timeout = 10;
        link.retryCnt = 7;
        long timeoutNs = Requester.ackTimeoutNs(link.timeout);
        try (Pair p = pair(clock, link)) {
            Peer a = p.a;
            Peer b = p.b;
            fill(a.buf.asSlice(0, 3000), 9);
            postRecv(b, 1, 8192, 4096);
            postRecv(b, 2, 16384, 4096);

            a.ctx.setPortState(PortState.DOWN); // the sender's link is down: nothing leaves a
            a.qp.postSend(send(a, 1, 0, 3000));
            stepWithoutCompletion(p, clock, timeoutNs, 4);
            long retriesSpent = a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR);
            assertTrue(retriesSpent >= 3 && retriesSpent < link.retryCnt, "retries spent: " + retriesSpent);
            // after a timeout the congestion window is one packet: each retry sends the oldest one again
            assertEquals(3 + retriesSpent, a.ctx.counters().get(Counter.PORT_XMIT_DISCARDS),
                    "the first try of the 3 packets and every retransmission were discarded");
            assertEquals(0, b.ctx.counters().get(Counter.RCVD_PKTS), "nothing reached b");
            a.ctx.setPortState(PortState.ACTIVE);
            WorkCompletion sc = awaitStepping(p, a.cq, clock, timeoutNs / 4);
            assertEquals(WcStatus.SUCCESS, sc.status(), sc.toString());
            WorkCompletion rc = awaitStepping(p, b.cq, clock, 0);
            assertEquals(WcStatus.SUCCESS, rc.status());
            assertEquals(3000, rc.byteLen());
            assertEquals(-1, a.buf.asSlice(0, 3000).mismatch(b.buf.asSlice(8192, 3000)), "no corruption");

            b.ctx.setPortState(PortState.DOWN); // now the receiver's link is down: b hears nothing
            long droppedBefore = b.ctx.counters().get(Counter.RCVD_DROPPED);
            a.qp.postSend(send(a, 2, 0, 3000));
            stepWithoutCompletion(p, clock, timeoutNs, 4);
            assertTrue(b.ctx.counters().get(Counter.RCVD_DROPPED) - droppedBefore >= 3 + 3,
                    "b dropped the first try (3 packets) and 3 retransmissions (one packet each)");
            b.ctx.setPortState(PortState.ACTIVE);
            assertEquals(WcStatus.SUCCESS, awaitStepping(p, a.cq, clock, timeoutNs / 4).status());
            rc = awaitStepping(p, b.cq, clock, 0);
            assertEquals(2, rc.wrId());
            assertEquals(-1, a.buf.asSlice(0, 3000).mismatch(b.buf.asSlice(16384, 3000)));
            assertEquals(QpState.RTS, a.qp.state());
            assertEquals(QpState.RTS, b.qp.state());
            assertEquals(0, a.ctx.counters().get(Counter.RETRY_EXCEEDED_ERR));
        }
    }

    @Test
    void shouldFailWithRetryExceededWhenTheLinkStaysDownTooLongBadFlow() {
        ManualClock clock = new ManualClock();
        Peer.Link link = new Peer.Link();
        link.timeout = 10;
        link.retryCnt = 2;
        long timeoutNs = Requester.ackTimeoutNs(link.timeout);
        try (Pair p = pair(clock, link)) {
            postRecv(p.b, 1, 0, 4096);
            p.a.ctx.setPortState(PortState.DOWN);
            p.a.qp.postSend(send(p.a, 1, 0, 3000));
            p.a.qp.postSend(send(p.a, 2, 0, 10));
            WorkCompletion wc = awaitStepping(p, p.a.cq, clock, timeoutNs / 4);
            assertEquals(1, wc.wrId());
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status());
            assertEquals(QpState.ERR, p.a.qp.state());
            assertEquals(WcStatus.WR_FLUSH_ERR, awaitStepping(p, p.a.cq, clock, 0).status());
            assertEquals(1, p.a.ctx.counters().get(Counter.RETRY_EXCEEDED_ERR));
            assertEquals(0, p.b.ctx.counters().get(Counter.RCVD_PKTS));
            p.a.ctx.setPortState(PortState.ACTIVE);
            p.assertNoCompletion(p.b.cq, TimeUnit.MILLISECONDS.toNanos(20)); // nothing of it ever arrives
        }
    }

    private static void fill(MemorySegment seg, int seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7 + (i >>> 8)));
        }
    }
}
