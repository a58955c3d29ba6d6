package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A blocking ping-pong between two devices, each side's thread waiting on a completion channel: its waits learn to
 * poll for a while before sleeping ({@link WaitSpin}), so that answers are taken while the waiter still polls (counted
 * as {@code waiter_polled}), and every message arrives, in order, once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChannelWaitPollTest {

    private static final int DEPTH = 16;
    private static final long RUN_NS = TimeUnit.SECONDS.toNanos(20);
    private static final int MIN_ROUNDS = 2_000;
    private static final int MAX_ROUNDS = 200_000;

    @ParameterizedTest
    @EnumSource(value = Threading.class, names = {"ADAPTIVE", "INVOKER"})
    void aBlockingPingPongsAnswersArriveWhileTheWaiterStillPolls(Threading threading) throws Exception {
        try (Peer a = new Peer("127.0.43.1", threading, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS,
                Peer.defaultCap());
                Peer b = new Peer("127.0.43.2", threading, NanoClock.SYSTEM, 1 << 16, Peer.ALL_ACCESS,
                        Peer.defaultCap());
                Side sa = new Side(a);
                Side sb = new Side(b)) {
            sa.connect(sb);
            sb.connect(sa);
            long deadline = System.nanoTime() + RUN_NS;
            CompletableFuture<Integer> echo = CompletableFuture.supplyAsync(() -> sb.echo(deadline));
            int rounds = 0;
            while (rounds < MAX_ROUNDS && System.nanoTime() - deadline < 0
                    && (rounds < MIN_ROUNDS || polled(a) + polled(b) == 0)) {
                sa.send(rounds);
                assertEquals(rounds, sa.receive(deadline), "the answer to round " + rounds);
                rounds++;
            }
            sa.send(-1); // the echo side's end
            assertEquals(rounds, (int) echo.get(30, TimeUnit.SECONDS), "every round answered once");
            assertTrue(rounds >= MIN_ROUNDS, "rounds run: " + rounds);
            assertTrue(polled(a) + polled(b) > 0, "no answer was taken while its waiter polled, in " + rounds
                    + " rounds (" + a.ctx.counters().get(Counter.CALLER_CONTENDED) + " and "
                    + b.ctx.counters().get(Counter.CALLER_CONTENDED) + " contended verdicts)");
        }
    }

    private static long polled(Peer p) {
        return p.ctx.counters().get(Counter.WAITER_POLLED);
    }

    /** One side: a QP whose receive CQ raises events on a channel; sends of 8 bytes, inline, signaled. */
    private static final class Side implements AutoCloseable {
        final Peer peer;
        final CompletionChannel channel;
        final CompletionQueue recvCq;
        final QueuePair qp;
        final WorkCompletion[] wcs = {new WorkCompletion()};
        int outstanding;

        Side(Peer peer) {
            this.peer = peer;
            channel = peer.ctx.createCompletionChannel();
            recvCq = peer.ctx.createCq(DEPTH, channel);
            qp = peer.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(peer.cq).recvCq(recvCq)
                    .cap(Peer.defaultCap()));
        }

        void connect(Side remote) {
            Peer.connect(qp, remote.qp.qpNum(), remote.peer.ctx.queryGid(1, 1), new Peer.Link());
            for (int i = 0; i < DEPTH; i++) {
                postRecv(i);
            }
        }

        void postRecv(int slot) {
            qp.postRecv(new RecvWr().wrId(slot).sg(new Sge(peer.addr(slot * 8L), 8, peer.mr.lkey())));
        }

        void send(long value) {
            while (outstanding > DEPTH) { // bounded by the test's timeout
                outstanding -= reap(peer.cq);
                peer.ctx.progress();
            }
            outstanding -= reap(peer.cq);
            peer.buf.set(ValueLayout.JAVA_LONG_UNALIGNED, 4096, value);
            qp.postSend(new SendWr().wrId(value).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).sg(new Sge(peer.addr(4096), 8, peer.mr.lkey())));
            outstanding++;
        }

        private int reap(CompletionQueue cq) {
            int n = cq.poll(wcs);
            if (n > 0) {
                assertEquals(WcStatus.SUCCESS, wcs[0].status());
            }
            return n;
        }

        /** The next message's value, waiting on the channel (poll, arm, poll, wait), its receive posted again. */
        long receive(long deadline) {
            while (System.nanoTime() - deadline < 0) {
                if (recvCq.poll(wcs) == 0) {
                    recvCq.requestNotify(false);
                    if (recvCq.poll(wcs) == 0) {
                        CompletionQueue ev = channel.awaitEvent(Duration.ofMillis(100));
                        if (ev != null) {
                            ev.ackEvents(1);
                        }
                        continue;
                    }
                }
                assertEquals(WcStatus.SUCCESS, wcs[0].status());
                int slot = (int) wcs[0].wrId();
                long value = peer.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, slot * 8L);
                postRecv(slot);
                return value;
            }
            throw new AssertionError("no message before the deadline");
        }

        /** Answers every message with its value until the value -1; returns how many it answered. */
        int echo(long deadline) {
            int n = 0;
            for (long v; (v = receive(deadline + TimeUnit.SECONDS.toNanos(5))) != -1; n++) {
                assertEquals(n, v, "messages in order, once each");
                send(v);
            }
            return n;
        }

        @Override
        public void close() {
            qp.close();
            recvCq.close();
            channel.close();
        }
    }
}
