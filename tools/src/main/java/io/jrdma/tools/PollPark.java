package io.jrdma.tools;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Context;
import java.util.concurrent.locks.LockSupport;

/**
 * When the tools' poll loops (perftest, pingpong) stop busy-polling for a completion and park between polls. They
 * busy-poll as perftest and rdma-core's pingpongs do, without a PAUSE; on a soft device a wait that lasts
 * {@link #SOFT_SPIN_POLLS} empty polls parks {@link #PARK_NS} between the next ones, since the device's engine and a
 * peer on the same host need the cores the poller holds. A hardware device (the ibverbs provider) needs no CPU of
 * the poller's, and the C tools never park on it: neither do these. Parking there had cost every wait of more than
 * 20,000 empty polls, about a millisecond, a system call, a context switch and the rest of the park: on the
 * emulated guests of the native provider's overhead runs, where a round trip takes about a millisecond, 1,300
 * parks in 3,300 iterations of {@code ib_send_lat} (docs/benchmarks, issue 20).
 */
public final class PollPark {

    /** Empty polls before a soft device's poller parks. */
    public static final long SOFT_SPIN_POLLS = 20_000;
    /** How long a poll loop parks between polls once its wait has lasted. */
    public static final long PARK_NS = 20_000;

    private PollPark() {
    }

    /** The empty polls after which a poll loop on {@code ctx} parks between polls ({@code Long.MAX_VALUE}: never). */
    public static long spinPolls(Context ctx) {
        return ctx.device() instanceof SoftDevice ? SOFT_SPIN_POLLS : Long.MAX_VALUE;
    }

    /** After the {@code polls}-th empty poll in a row: parks when the wait has lasted {@code spinPolls} polls. */
    public static void afterEmptyPoll(long polls, long spinPolls) {
        if (polls > spinPolls) {
            LockSupport.parkNanos(PARK_NS);
        }
    }
}
