package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpInitAttr;
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
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Completion channels: an armed CQ raises one event for its next completion (any, or solicited only), a blocking
 * wait returns it or times out, events are acknowledged; an overrun CQ reports the error instead of hiding it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CompletionChannelTest {

    @ParameterizedTest
    @EnumSource(Threading.class)
    void shouldRaiseOneEventPerArmingForAnyOrSolicitedCompletions(Threading threading) {
        try (Pair pair = new Pair("127.0.12.1", "127.0.12.2", threading, NanoClock.SYSTEM, 1 << 16,
                Peer.ALL_ACCESS, Peer.defaultCap(), new Peer.Link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            CompletionChannel ch = b.ctx.createCompletionChannel();
            CompletionQueue cq = b.ctx.createCq(16, ch);
            QueuePair qp = b.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(b.cq).recvCq(cq)
                    .cap(Peer.defaultCap()));
            // re-point the connection: a talks to the new QP at b
            a.qp.modify(new io.jrdma.verbs.QpAttr().qpState(io.jrdma.verbs.QpState.RESET),
                    java.util.EnumSet.of(io.jrdma.verbs.QpAttrMask.STATE));
            Peer.Link link = new Peer.Link();
            a.connect(qp.qpNum(), b.ctx.queryGid(1, 1), link);
            connectRaw(qp, a, link);
            for (int i = 0; i < 3; i++) {
                qp.postRecv(new RecvWr().wrId(i).sg(new Sge(b.addr(i * 1024L), 1024, b.mr.lkey())));
            }
            WorkCompletion[] wcs = {new WorkCompletion()};

            cq.requestNotify(false);
            a.qp.postSend(send(a, 1, false));
            CompletionQueue ev = ch.awaitEvent(Duration.ofSeconds(10));
            assertSame(cq, ev);
            cq.ackEvents(1);
            assertEquals(1, cq.poll(wcs));
            assertEquals(WcStatus.SUCCESS, wcs[0].status());

            cq.requestNotify(true); // solicited only: an unsolicited SEND raises nothing
            a.qp.postSend(send(a, 2, false));
            assertNull(ch.awaitEvent(Duration.ofMillis(200)));
            assertEquals(1, drain(pair, cq, wcs), "the completion is there, only no event");
            a.qp.postSend(send(a, 3, true));
            assertSame(cq, ch.awaitEvent(Duration.ofSeconds(10)));
            cq.ackEvents(1);
            assertEquals(1, drain(pair, cq, wcs));

            // not re-armed: no event
            assertNull(ch.awaitEvent(Duration.ofMillis(100)));
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> cq.ackEvents(1)).errno());
            assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, ch::close).errno());
            pair.awaitN(a.cq, 3);
            qp.close();
            cq.close();
            ch.close();
        }
    }

    private static int drain(Pair pair, CompletionQueue cq, WorkCompletion[] wcs) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            pair.drive();
            int n = cq.poll(wcs);
            if (n > 0) {
                return n;
            }
        }
        return 0;
    }

    private static SendWr send(Peer a, long id, boolean solicited) {
        return new SendWr().wrId(id).opcode(WrOpcode.SEND)
                .sendFlags(SendFlags.SIGNALED | (solicited ? SendFlags.SOLICITED : 0))
                .sg(new Sge(a.addr(0), 100, a.mr.lkey()));
    }

    private static void connectRaw(QueuePair qp, Peer remote, Peer.Link l) {
        qp.modify(new io.jrdma.verbs.QpAttr().qpState(io.jrdma.verbs.QpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(l.qpAccess), java.util.EnumSet.of(io.jrdma.verbs.QpAttrMask.STATE,
                io.jrdma.verbs.QpAttrMask.PKEY_INDEX, io.jrdma.verbs.QpAttrMask.PORT,
                io.jrdma.verbs.QpAttrMask.ACCESS_FLAGS));
        qp.modify(new io.jrdma.verbs.QpAttr().qpState(io.jrdma.verbs.QpState.RTR).pathMtu(l.mtu)
                .destQpNum(remote.qp.qpNum()).rqPsn(l.psn).maxDestRdAtomic(l.maxRd).minRnrTimer(l.minRnrTimer)
                .ahAttr(new io.jrdma.verbs.AhAttr().isGlobal(true).dgid(remote.ctx.queryGid(1, 1)).sgidIndex(1)
                        .portNum(1)),
                java.util.EnumSet.of(io.jrdma.verbs.QpAttrMask.STATE, io.jrdma.verbs.QpAttrMask.AV,
                        io.jrdma.verbs.QpAttrMask.PATH_MTU, io.jrdma.verbs.QpAttrMask.DEST_QPN,
                        io.jrdma.verbs.QpAttrMask.RQ_PSN, io.jrdma.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC,
                        io.jrdma.verbs.QpAttrMask.MIN_RNR_TIMER));
    }

    @ParameterizedTest
    @EnumSource(value = Threading.class, names = "INVOKER")
    void shouldReportCqOverrunBadFlow(Threading threading) {
        try (Pair pair = Pair.invoker("127.0.12.3", "127.0.12.4", 1 << 16)) {
            Peer a = pair.a;
            CompletionQueue small = a.ctx.createCq(2);
            QueuePair qp = a.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(small).recvCq(small)
                    .cap(Peer.defaultCap()));
            qp.modify(new io.jrdma.verbs.QpAttr().qpState(io.jrdma.verbs.QpState.INIT).pkeyIndex(0).portNum(1)
                    .qpAccessFlags(0), java.util.EnumSet.of(io.jrdma.verbs.QpAttrMask.STATE,
                    io.jrdma.verbs.QpAttrMask.PKEY_INDEX, io.jrdma.verbs.QpAttrMask.PORT,
                    io.jrdma.verbs.QpAttrMask.ACCESS_FLAGS));
            for (int i = 0; i < 4; i++) {
                qp.postRecv(new RecvWr().wrId(i).sg(new Sge(a.addr(0), 8, a.mr.lkey())));
            }
            qp.modify(new io.jrdma.verbs.QpAttr().qpState(io.jrdma.verbs.QpState.ERR),
                    java.util.EnumSet.of(io.jrdma.verbs.QpAttrMask.STATE)); // 4 flush completions for 2 slots
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            assertEquals(2, small.poll(wcs));
            VerbsException e = assertThrows(VerbsException.class, () -> small.poll(wcs));
            assertEquals(Errno.EIO, e.errno());
            assertEquals(1, a.ctx.counters().get(Counter.CQ_OVERRUN));
            qp.close();
            small.close();
        }
    }
}
