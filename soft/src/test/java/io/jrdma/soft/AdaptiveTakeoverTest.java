package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.WorkCompletion;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Threading#ADAPTIVE}: when the engine thread takes over from the callers, and when it must not. A caller whose
 * thread stays runnable between polls for less than {@link Engine#CALLER_RUNNABLE_NS} (a polling caller that lost its
 * CPU for a while) still drives the engine; a lock held by a caller's pass is a caller driving.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdaptiveTakeoverTest extends AdaptiveThreadingBase {

    /** A caller that went this long without polling may have been taken over from, rightly. */
    private static final long STALL_NS = Engine.CALLER_RUNNABLE_NS;

    /**
     * A ping-pong whose initiating side stops polling for about 600 us after every 20 round trips, 300 times, its
     * thread runnable meanwhile: a polling caller on a virtual machine whose vCPU the hypervisor takes away 1,000 -
     * 1,500 times a second, or that another thread preempts. It has not stopped driving the engine, and the engine
     * threads stay parked. With the old rule (50 us without a pass) the engine thread took over in such gaps, went to
     * sleep on the link after its pass, and the peer (on this host) then rang it awake with its next packet, onto a
     * polling caller's core: 67 takeovers a second in the default ib_send_lat. A gap the host stretched to the limit
     * may rightly be taken over: those are counted and allowed.
     */
    @Test
    void aCallerThatPollsWithShortGapsIsNotTakenOverFrom() throws Exception {
        int batches = 300;
        try (Peer a = peer("127.0.150.15", Threading.ADAPTIVE, 1 << 16);
                Peer b = peer("127.0.150.16", Threading.ADAPTIVE, 1 << 16)) {
            connect(a, a.qp, b, b.qp, Peer.Link.tolerant());
            prepost(a, a.qp);
            prepost(b, b.qp);
            runBoth(() -> exchange(a, a.qp, 2_000, true), () -> exchange(b, b.qp, 2_000, false));
            Gaps gaps = new Gaps(batches * 20, TimeUnit.MICROSECONDS.toNanos(600), a.ctx.engine::takeovers);
            runBoth(() -> exchange(a, a.qp, batches * 20, true, gaps), () -> exchange(b, b.qp, batches * 20, false));
            String figures = gaps.takeovers + " takeovers in " + (batches - 1) + " gaps of about 600 us; "
                    + gaps.stalls + " times it went " + TimeUnit.NANOSECONDS.toMicros(STALL_NS)
                    + " us or more without a poll";
            System.out.println("adaptive, a caller polling with gaps: " + figures);
            // 0 - 6 takeovers here in most runs, 29 - 118 with the old rule; a caller that the host kept from polling
            // for a millisecond (a gap stretched, a loaded host's preemption) may rightly be taken over from
            assertTrue(gaps.takeovers <= gaps.stalls + 6, "a caller that polls with short gaps still drives: "
                    + figures);
            assertQuiet(a);
            assertQuiet(b);
        }
    }

    /**
     * A thread in a pass, or in a control-path call, holds the device lock: the engine thread cannot run a pass then,
     * and one that woke to find the callers' last pass older than 50 us does not take over (its parks go on growing;
     * counting a takeover there reset them to 50 us, and the default ib_send_lat's engine threads then looked in every
     * 160 us, each look taking a polling caller's core). It takes over once it gets the lock and no caller drives.
     */
    @Test
    void aHeldDeviceLockIsNoTakeoverButItsReleaseIsWhenNoCallerDrives() throws Exception {
        try (Peer a = peer("127.0.150.13", Threading.ADAPTIVE, 1 << 16);
                Peer b = peer("127.0.150.14", Threading.ADAPTIVE, 1 << 16)) {
            connect(a, a.qp, b, b.qp, Peer.Link.tolerant());
            prepost(a, a.qp);
            prepost(b, b.qp);
            runBoth(() -> exchange(a, a.qp, 2_000, true), () -> exchange(b, b.qp, 2_000, false));
            WorkCompletion[] none = wcs(1);
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150);
            while (System.nanoTime() < end) { // a caller drives: an engine thread asleep on the link (100 ms at
                assertEquals(0, a.cq.poll(none)); // most) wakes and parks
            }
            long takeovers = a.ctx.engine.takeovers();
            a.ctx.lock.lock();
            try {
                Thread.sleep(40); // no caller polls: the engine thread's next looks find the lock taken
            } finally {
                a.ctx.lock.unlock();
            }
            assertEquals(takeovers, a.ctx.engine.takeovers(), "no takeover while the lock was held");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (a.ctx.engine.takeovers() == takeovers && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(takeovers + 1, a.ctx.engine.takeovers(), "the engine thread took over after the release");
            assertQuiet(a);
        }
    }

    /**
     * The initiating side's hook: after every 20 answers it stops polling for {@code gapNs}, its thread runnable
     * meanwhile (a spin: as a caller whose CPU another thread took). It counts the takeovers from its first gap to its
     * last (the test's threads starting and ending are not the gaps') and how many times it went {@link #STALL_NS} or
     * more between two polls (a gap the host stretched, a preemption), which rightly lets its engine thread in.
     */
    private static final class Gaps implements ExchangeHook {
        private final int n;
        private final long gapNs;
        private final LongSupplier takeoversSoFar;
        private long first = -1;
        private long lastPoll = -1;
        long takeovers;
        long stalls;

        Gaps(int n, long gapNs, LongSupplier takeoversSoFar) {
            this.n = n;
            this.gapNs = gapNs;
            this.takeoversSoFar = takeoversSoFar;
        }

        @Override
        public void polled(long now) {
            stalls += lastPoll >= 0 && now - lastPoll >= STALL_NS ? 1 : 0;
            lastPoll = now;
        }

        @Override
        public void answered(long received) {
            if (received % 20 != 0 || received >= n) {
                return;
            }
            first = first < 0 ? takeoversSoFar.getAsLong() : first;
            takeovers = takeoversSoFar.getAsLong() - first;
            long gapStart = System.nanoTime();
            while (System.nanoTime() - gapStart < gapNs) {
                Thread.onSpinWait();
            }
        }
    }
}
