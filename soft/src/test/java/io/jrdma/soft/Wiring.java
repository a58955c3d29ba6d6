package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QueuePair;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/** Connecting QPs that a {@link Peer} does not own, and bounded waits for asynchronous events. */
final class Wiring {

    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    private Wiring() {
    }

    /** RESET -> INIT -> RTR towards {@code remoteQpn} at {@code remoteGid}. */
    static void toRtr(QueuePair qp, int remoteQpn, Gid remoteGid, Peer.Link l) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(l.qpAccess),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(l.mtu).destQpNum(remoteQpn).rqPsn(l.psn)
                        .maxDestRdAtomic(l.maxRd).minRnrTimer(l.minRnrTimer)
                        .ahAttr(new AhAttr().isGlobal(true).dgid(remoteGid).sgidIndex(1).portNum(1)),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
    }

    /** RTR -> RTS. */
    static void toRts(QueuePair qp, Peer.Link l) {
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(l.psn).timeout(l.timeout).retryCnt(l.retryCnt)
                        .rnrRetry(l.rnrRetry).maxRdAtomic(l.maxRd),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                        QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    /** Connects {@code qp} (on any context) to {@code remote} on {@code remoteCtx}: RESET to RTS. */
    static void connect(QueuePair qp, QueuePair remote, Context remoteCtx, Peer.Link l) {
        toRtr(qp, remote.qpNum(), remoteCtx.queryGid(1, 1), l);
        toRts(qp, l);
    }

    /** Moves a QP to {@code state} with no other attribute. */
    static void move(QueuePair qp, QpState state) {
        qp.modify(new QpAttr().qpState(state), EnumSet.of(QpAttrMask.STATE));
    }

    /** Drives every context until {@code ctx} has an asynchronous event; fails after {@link #WAIT_NS}. */
    static AsyncEvent awaitEvent(Context ctx, Context... drive) {
        long deadline = System.nanoTime() + WAIT_NS;
        while (System.nanoTime() - deadline < 0) {
            for (Context c : drive) {
                c.progress();
            }
            AsyncEvent e = ctx.pollAsyncEvent();
            if (e != null) {
                return e;
            }
            Thread.onSpinWait();
        }
        return fail("no asynchronous event within " + TimeUnit.NANOSECONDS.toSeconds(WAIT_NS) + " s");
    }

    /** Drives every context for {@code ms} and asserts that {@code ctx} raised no asynchronous event. */
    static void assertNoEvent(Context ctx, long ms, Context... drive) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        do {
            for (Context c : drive) {
                c.progress();
            }
            AsyncEvent e = ctx.pollAsyncEvent();
            assertNull(e, () -> "unexpected asynchronous event " + e);
        } while (System.nanoTime() - end < 0);
    }
}
