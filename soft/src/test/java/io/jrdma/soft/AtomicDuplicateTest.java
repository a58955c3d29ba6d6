package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.wire.AtomicAckEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Exactly-once execution of RC atomics: when an ATOMIC ACKNOWLEDGE is lost the duplicate is answered from the
 * responder's resource without executing again, and a duplicate whose resource the ring has reused is dropped
 * (class D).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicDuplicateTest extends AtomicFixture {

    @Test
    void shouldExecuteOnceAndReplayTheResultWhenTheAtomicAckIsLost() {
        ManualClock clock = new ManualClock();
        Peer.Link link = link();
        link.timeout = 8;
        try (Pair pair = new Pair(A, B, Threading.INVOKER, clock, 1 << 16, ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atA = record(a.ctx);
            List<byte[]> acksFromB = new ArrayList<>();
            boolean[] corrupted = {false};
            // the wire loses the first ATOMIC ACKNOWLEDGE: its ICRC is broken on the way out, so a drops it
            b.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
                if (tx && (p.get(ValueLayout.JAVA_BYTE, off) & 0xFF) == Opcode.RC_ATOMIC_ACKNOWLEDGE.code()) {
                    acksFromB.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                    if (!corrupted[0]) {
                        corrupted[0] = true;
                        long last = off + len - 1;
                        p.set(ValueLayout.JAVA_BYTE, last, (byte) ~p.get(ValueLayout.JAVA_BYTE, last));
                    }
                }
            });
            b.buf.set(U64, 0, 100);
            a.qp.postSend(faa(7, a, 0, b.addr(0), b.mr.rkey(), 1));
            WorkCompletion wc = awaitStepping(pair, a, clock, Requester.ackTimeoutNs(8) / 4);
            assertAtomicDone(wc, 7, WcOpcode.FETCH_ADD);
            assertEquals(100, a.buf.get(U64, 0), "the replayed original value");
            assertEquals(101, b.buf.get(U64, 0), "executed exactly once");
            assertEquals(1, a.ctx.counters().get(Counter.ICRC_ERR), "the lost acknowledge");
            assertEquals(1, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR), "one ACK timeout");
            assertEquals(1, b.ctx.counters().get(Counter.DUPLICATE_REQUEST), "the retransmission was a duplicate");
            List<Seen> requests = only(atA, true, Opcode.RC_FETCH_ADD.code());
            assertEquals(2, requests.size());
            assertArrayEquals(requests.get(0).ib(), requests.get(1).ib(), "the same request, same PSN, again");
            assertEquals(2, acksFromB.size());
            assertArrayEquals(Arrays.copyOf(acksFromB.get(0), 24), Arrays.copyOf(acksFromB.get(1), 24),
                    "the replay carries the saved original value at the same PSN");
            assertEquals(QpState.RTS, a.qp.state());
            assertEquals(QpState.RTS, b.qp.state());
        }
    }

    @Test
    void shouldAnswerAReinjectedDuplicateFromItsResourceWithoutExecutingIt() throws IOException {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atB = record(b.ctx);
            b.buf.set(U64, 0, 1000);
            a.qp.postSend(faa(1, a, 0, b.addr(0), b.mr.rkey(), 10));
            assertAtomicDone(pair.await(a.cq), 1, WcOpcode.FETCH_ADD);
            a.qp.postSend(faa(2, a, 8, b.addr(0), b.mr.rkey(), 10));
            assertAtomicDone(pair.await(a.cq), 2, WcOpcode.FETCH_ADD);
            byte[] first = only(atB, false, Opcode.RC_FETCH_ADD.code()).getFirst().ib();

            inject(A, B, first);
            awaitCounter(pair, b, Counter.DUPLICATE_REQUEST, 1);
            awaitCondition(pair, "b answers the duplicate",
                    () -> only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code()).size() == 3);
            List<Seen> acks = only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code());
            assertEquals(3, acks.size(), "two acknowledges and one replay");
            MemorySegment replay = acks.get(2).seg();
            assertEquals(Bth.psn(MemorySegment.ofArray(first), 0), Bth.psn(replay, 0));
            assertEquals(1000, AtomicAckEth.origData(replay, Opcode.RC_ATOMIC_ACKNOWLEDGE.atomicAckEthOffset()),
                    "the first atomic's original value, saved");
            assertEquals(1020, b.buf.get(U64, 0), "the duplicate was not executed");
            assertEquals(1000, a.buf.get(U64, 0));
            assertEquals(1010, a.buf.get(U64, 8));
            assertEquals(QpState.RTS, a.qp.state());
            assertEquals(QpState.RTS, b.qp.state());
            pair.assertNoCompletion(a.cq, TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Test
    void shouldDropADuplicateWhoseResourceTheRingHasReused() throws IOException {
        Peer.Link link = link();
        link.maxRd = 1; // max_dest_rd_atomic 1: the second atomic takes the first one's resource
        try (Pair pair = pair(link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atB = record(b.ctx);
            a.qp.postSend(faa(1, a, 0, b.addr(0), b.mr.rkey(), 1));
            assertAtomicDone(pair.await(a.cq), 1, WcOpcode.FETCH_ADD);
            a.qp.postSend(faa(2, a, 8, b.addr(0), b.mr.rkey(), 1));
            assertAtomicDone(pair.await(a.cq), 2, WcOpcode.FETCH_ADD);
            byte[] first = only(atB, false, Opcode.RC_FETCH_ADD.code()).getFirst().ib();
            int sentBefore = only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code()).size();

            inject(A, B, first);
            awaitCounter(pair, b, Counter.DUPLICATE_REQUEST, 1);
            pair.assertNoCompletion(a.cq, TimeUnit.MILLISECONDS.toNanos(50));
            assertEquals(sentBefore, only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code()).size(),
                    "no answer: the resource is gone (class D, dropped as rxe does)");
            assertEquals(2, b.buf.get(U64, 0), "and not executed again");
            assertEquals(QpState.RTS, b.qp.state());
        }
    }
}
