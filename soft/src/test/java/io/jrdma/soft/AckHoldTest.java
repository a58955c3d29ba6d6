package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Adaptive mode: a completed receive's ACK waits for the application's answer only while a caller polls in a loop
 * ({@link Engine#holdsAckForAnswer}): polls back to back, each of which may wait on the socket once the spin budget
 * is spent. A poll after a pause is no loop's, and its application may not come back for long: an ACK held then
 * waited for the engine thread's next look, up to its longest park (10 ms; traced in the idle bench, where the
 * sleeping server, polling every millisecond, sent its ACKs 0.1 - 1.1 ms after its poll took the SEND in).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AckHoldTest extends AdaptiveThreadingBase {

    @Test
    void acksWaitForAnAnswerInALoopOfPollsNotAfterAPause() {
        try (Peer b = peer("127.0.152.2", Threading.ADAPTIVE, 1 << 16)) {
            Engine engine = b.ctx.engine;
            WorkCompletion[] wcs = wcs(4);
            assertFalse(engine.holdsAckForAnswer(), "nobody polled yet");
            // a completion to find: a receive posted to a QP that then enters ERR is flushed by the next pass
            b.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            b.qp.postRecv(new RecvWr().wrId(9).sg(sge(b, 0, 64)));
            b.qp.modify(new QpAttr().qpState(QpState.ERR), EnumSet.of(QpAttrMask.STATE));
            long deadline = System.nanoTime() + WAIT_NS;
            while (b.cq.poll(wcs) == 0) {
                assertTrue(System.nanoTime() < deadline, "no flush completion within 20 s");
            }
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs[0].status());
            boolean held = engine.holdsAckForAnswer();
            for (int i = 0; i < 10; i++) { // a poll that found the lock taken looks at no clock: a few more
                b.cq.poll(wcs);
                held |= engine.holdsAckForAnswer();
            }
            assertTrue(held, "a caller that polls in a loop answers before the hold ends");
            // past the spin budget, every empty poll waits on the socket (50 us) before its last pass: polls back to
            // back are still a loop (a ping-pong on contended cores), one after a pause is not
            long until = System.nanoTime() + 2 * CallerBackoff.SPIN_NS;
            while (System.nanoTime() < until) {
                b.cq.poll(wcs);
            }
            held = false;
            for (int i = 0; i < 10; i++) {
                b.cq.poll(wcs);
                held |= engine.holdsAckForAnswer();
            }
            assertTrue(held, "polls that each wait, back to back: a loop");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            b.cq.poll(wcs);
            assertFalse(engine.holdsAckForAnswer(), "a poll after a pause: its caller may not come back soon");
        }
    }
}
