package io.jrdma.tools;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Context;
import java.util.concurrent.locks.LockSupport;

/**
 * When the tools' poll loops (perftest, pingpong) stop busy-polling for a completion, and what they do instead. They
 * busy-poll as perftest and rdma-core's pingpongs do, without a PAUSE; on a soft device a wait that lasts
 * {@link #SOFT_SPIN_POLLS} empty polls parks {@link #PARK_NS} between the next ones, since the device's engine and a
 * peer on the same host need the cores the poller holds. A hardware device (the ibverbs provider) needs no CPU of
 * the poller's, and the C tools never park on it: neither do these. Parking there had cost every wait of more than
 * 20,000 empty polls, about a millisecond, a system call, a context switch and the rest of the park: on the
 * emulated guests of the native provider's overhead runs, where a round trip takes about a millisecond, 1,300
 * parks in 3,300 iterations of {@code ib_send_lat} (docs/benchmarks, issue 20).
 *
 * <p>One exception: the two sides of a {@link Rehearsal} are threads of one process, and on a machine with one CPU
 * only one of them runs at a time. A side that spins there holds the CPU its peer needs to answer until the
 * scheduler's time slice ends, and each iteration took milliseconds (on the one-vCPU guests, kernel rxe: 15 - 22
 * ms where a round trip of the measured run takes 1.5), so the rehearsal's rounds, sized by time, ran too few
 * iterations to bring the loop's methods to the JIT's last tier, and they reached it inside the measured run. Such a
 * side yields the CPU after {@link #ONE_CPU_SPIN_POLLS} empty polls.
 */
public final class PollPark {

    /** Empty polls before a soft device's poller parks. */
    public static final long SOFT_SPIN_POLLS = 20_000;
    /** How long a poll loop parks between polls once its wait has lasted. */
    public static final long PARK_NS = 20_000;
    /** Empty polls before a rehearsal's poller on a machine with one CPU yields it to the other side. */
    public static final long ONE_CPU_SPIN_POLLS = 100;

    private final long spinPolls;
    private final boolean yields;

    private PollPark(long spinPolls, boolean yields) {
        this.spinPolls = spinPolls;
        this.yields = yields;
    }

    /**
     * The rule of a poll loop on {@code ctx}; {@code rehearsing}: the loop is one side of a {@link Rehearsal}, its
     * peer a thread of this process.
     */
    public static PollPark of(Context ctx, boolean rehearsing) {
        if (rehearsing && Runtime.getRuntime().availableProcessors() == 1) {
            return new PollPark(ONE_CPU_SPIN_POLLS, true);
        }
        return new PollPark(ctx.device() instanceof SoftDevice ? SOFT_SPIN_POLLS : Long.MAX_VALUE, false);
    }

    /** The empty polls after which the loop stops spinning ({@code Long.MAX_VALUE}: never). */
    public long spinPolls() {
        return spinPolls;
    }

    /** Whether the loop yields the CPU after its spin (otherwise it parks). */
    public boolean yields() {
        return yields;
    }

    /** After the {@code polls}-th empty poll in a row: parks, or yields, when the wait has lasted the spin. */
    public void afterEmptyPoll(long polls) {
        if (polls > spinPolls) {
            if (yields) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(PARK_NS);
            }
        }
    }
}
