package io.jrdma.tools.perftest;

import io.jrdma.tools.perftest.Exchange.BwReport;
import io.jrdma.tools.perftest.Options.AtomicType;
import io.jrdma.tools.perftest.Tool.Verb;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;

/**
 * The bandwidth tests (ib_*_bw): perftest's run_iter_bw and run_iter_bw_server loops, the syncs around them, the
 * reports the two sides swap, and the {@code --check} of what arrived.
 */
final class Bandwidth {

    /** perftest calculates the peak only up to this many messages (noPeak above). */
    static final long PEAK_MAX_ITERS = 20000;

    /**
     * The empty polls a rehearsal's client on a native device makes after each completion before it posts again
     * ({@link Options#holdPolls}). Kernel rxe runs a user QP's requester in the post call, and over the device's own
     * loopback the responder and the completer too, so a request is complete when its post returns: the rehearsal's
     * polls never found the CQ empty, where the run's do nearly always (its window is full while it waits for ACKs).
     * The run's poll, its wait and its loop were then compiled inside the measured run, the loop once more after its
     * first empty poll trapped (an emulated guest, {@code ib_write_bw -n 2000 -s 65536}: 17 compilations in the run's
     * 8 s, its average MB/s 1.11 - 1.39x below C's). A soft device completes on its engine thread, as a remote peer
     * would, and a hardware NIC after the post returns: their rehearsals see empty polls anyway. Several times
     * {@link DataPath#CLOCK_POLLS}, so that the wait's look at the clock is compiled too (with 200 the wait trapped
     * at the run's start), and with about a hundred completions a round, enough turns of the loop for its on-stack
     * compile.
     */
    static final int REHEARSAL_HOLD_POLLS = 1_000;

    private final DataPath d;
    private final Options o;
    private final Tool tool;

    // A run's state: its loop's turn is a method of its own (bwStep), compiled from its calls (as in Latency).
    private long total;
    private boolean noPeak;
    private long[] posted;
    private long[] completed;
    private long[] scnt;
    private long[] ccnt;
    private long totScnt;
    private long totCcnt;
    private long deadlineNs;
    private boolean timeUp;
    private int held;

    Bandwidth(DataPath d) {
        this.d = d;
        this.o = d.o;
        this.tool = d.tool;
    }

    /** Runs the tool's side: SEND on both sides, other verbs' client or server. */
    void run() throws Exception {
        if (tool.verb == Verb.SEND) {
            sendBw();
        } else if (o.client()) {
            bwClient();
        } else {
            bwServer();
        }
    }

    /** RDMA WRITE/READ/atomic bandwidth, client: run every size, sync, send the last report, close. */
    private void bwClient() throws Exception {
        BwReport last = BwReport.EMPTY;
        for (long s : d.sizes()) {
            d.size(s);
            d.setSendWqes();
            last = runBw();
            d.out.println(Report.bwRow(last, o.reportGbits));
            d.out.flush();
            checkBw();
        }
        d.out.println(Report.RESULT_LINE);
        d.out.flush();
        d.sync();
        d.exchangeReports(last);
        d.closeConnection();
    }

    /** RDMA WRITE/READ/atomic bandwidth, server: wait for the client, print its report, close. */
    private void bwServer() throws Exception {
        d.sync();
        d.size(o.all ? 1L << Options.ALL_SIZES_LOG_MAX : o.size);
        if (o.check && !o.all) {
            checkBwTarget();
        }
        BwReport remote = d.exchangeReports(BwReport.EMPTY);
        d.out.println(Report.bwRow(remote, o.reportGbits));
        d.out.println(Report.RESULT_LINE);
        d.out.flush();
        d.closeConnection();
    }

    /** SEND bandwidth, both sides: a sync before each size (and one after each with -a), then close. */
    private void sendBw() throws Exception {
        boolean first = true;
        for (long s : d.sizes()) {
            d.size(s);
            if (o.client()) {
                d.setSendWqes();
            } else if (!first) {
                d.postReceives();
            }
            first = false;
            d.sync();
            BwReport r = o.client() ? runBw() : runBwServer();
            d.out.println(Report.bwRow(r, o.reportGbits));
            d.out.flush();
            if (!o.client() && o.check) {
                for (int i = 0; i < d.qps.length; i++) {
                    d.checkMessages(i, d.recvPayload(i), d.remote(i).psn(), o.iters, "received message");
                }
            }
            if (o.all) {
                d.sync();
            }
        }
        d.out.println(Report.RESULT_LINE);
        d.out.flush();
        d.closeConnection();
    }

    /** run_iter_bw: keep tx_depth requests in flight per QP, signal every cq_mod-th, count completions. */
    private BwReport runBw() throws Exception {
        int n = d.qps.length;
        total = o.iters * n;
        noPeak = o.skipsPeak();
        posted = new long[noPeak ? 1 : (int) total];
        completed = new long[noPeak ? 1 : (int) total];
        scnt = new long[n];
        ccnt = new long[n];
        totScnt = 0;
        totCcnt = 0;
        deadlineNs = o.duration > 0 ? System.nanoTime() + o.duration * 1_000_000_000L : 0;
        timeUp = false;
        held = 0;
        d.progressed();
        if (noPeak) {
            posted[0] = System.nanoTime();
        }
        while (bwStep()) {
            // each step posts what the window allows and polls once
        }
        if (noPeak) {
            completed[0] = System.nanoTime();
        }
        long messages = deadlineNs == 0 ? total : totCcnt;
        return Report.bw(d.size(), messages, posted, completed, noPeak, o.reportGbits);
    }

    /**
     * One turn of {@link #runBw}'s loop: posts while the windows allow, polls once; false when the run is done. In
     * a run of a count (not {@code -D}, which a rehearsal does not run) its branches are each taken both ways in a
     * rehearsal, so that the compiled turn does not trap in the run: the posts and the completions of a turn are
     * counted and tested apart ("posts but no completion", common in the run, never happens over a native device's
     * loopback, where a burst's signaled request completes in its post).
     */
    private boolean bwStep() throws Exception {
        if (!(deadlineNs == 0 ? totScnt < total || totCcnt < total : !timeUp || totCcnt < totScnt)) {
            return false;
        }
        if (deadlineNs != 0 && !timeUp && System.nanoTime() - deadlineNs >= 0) {
            timeUp = true;
        }
        long iters = o.iters;
        int posts = 0;
        for (int i = 0; i < scnt.length && held >= o.holdPolls; i++) {
            while ((deadlineNs == 0 ? scnt[i] < iters : !timeUp) && scnt[i] - ccnt[i] < d.txDepth) {
                SendWr wr = d.firstWr(i);
                if (o.postList == 1) {
                    d.aim(i, scnt[i]);
                    boolean signaled = d.cqMod == 1 || scnt[i] % d.cqMod == d.cqMod - 1
                            || (deadlineNs == 0 && scnt[i] == iters - 1);
                    wr.sendFlags(signaled ? wr.sendFlags() | SendFlags.SIGNALED
                            : wr.sendFlags() & ~SendFlags.SIGNALED);
                }
                if (!noPeak) {
                    posted[(int) totScnt] = System.nanoTime();
                }
                d.qps[i].postSend(wr);
                scnt[i] += o.postList;
                totScnt += o.postList;
                posts++;
            }
        }
        int ne = 0;
        if (totCcnt < totScnt) {
            ne = d.tryPoll(d.sendCq, DataPath.POLL_BATCH);
            if (d.events() && (ne | posts) == 0 && held >= o.holdPolls) {
                ne = d.poll(d.sendCq, DataPath.POLL_BATCH, "waiting for send completions"); // sleeps
            }
            for (int k = 0; k < ne; k++) {
                WorkCompletion wc = d.wc(k);
                d.expect(wc, d.sendOpcode(), -1, "client", totScnt, totCcnt);
                int qp = (int) wc.wrId();
                ccnt[qp] += d.cqMod;
                totCcnt += d.cqMod;
                if (!noPeak) {
                    completed[(int) Math.min(totCcnt, total) - 1] = System.nanoTime();
                }
            }
        }
        if (ne > 0) {
            held = 0;
            d.progressed();
        }
        if ((ne | posts) == 0) {
            // a rehearsal's hold, without a branch: "held is the hold" at a wait, which only the run's 0 makes, had
            // never been seen in the rehearsal and trapped the compiled turn at the run's first empty poll
            held = Math.min(held + 1, o.holdPolls);
            d.idle("waiting for send completions");
        }
        return true;
    }

    /** run_iter_bw_server: count iters receives per QP, reposting while more are due; time first to last. */
    private BwReport runBwServer() throws Exception {
        int n = d.qps.length;
        long total = o.iters * n;
        long[] rcnt = new long[n];
        long got = 0;
        long first = 0;
        d.progressed();
        while (got < total) {
            int ne = d.poll(d.recvCq, DataPath.POLL_BATCH, "waiting for receives");
            if (first == 0) {
                first = System.nanoTime();
            }
            for (int k = 0; k < ne; k++) {
                WorkCompletion wc = d.wc(k);
                d.expect(wc, WcOpcode.RECV, d.recvLength(), "server", got, got);
                int qp = (int) wc.wrId();
                rcnt[qp]++;
                got++;
                if (rcnt[qp] + d.rxDepth <= o.iters) {
                    d.postReceive(qp);
                }
            }
        }
        long end = System.nanoTime();
        return Report.bw(d.size(), total, new long[] {first}, new long[] {end}, true, o.reportGbits);
    }

    /** --check on the client after a bandwidth run: RDMA READ data and atomic results in its send regions. */
    private void checkBw() {
        if (!o.check) {
            return;
        }
        for (int i = 0; i < d.qps.length; i++) {
            if (tool.verb == Verb.READ) {
                d.checkMessages(i, d.sendBase(i), d.remote(i).psn(), o.iters, "data read");
            } else if (tool.verb == Verb.ATOMIC) {
                d.checkAtomicResults(i, o.iters);
            }
        }
    }

    /** --check on the server of RDMA WRITE and atomic bandwidth: what the client's requests left in its regions. */
    private void checkBwTarget() {
        for (int i = 0; i < d.qps.length; i++) {
            if (tool.verb == Verb.WRITE) {
                if (o.connection == QpType.UC) {
                    d.awaitLanded(i, d.recvBase(i), d.remote(i).psn(), o.iters, 2_000);
                }
                d.checkMessages(i, d.recvBase(i), d.remote(i).psn(), o.iters, "data written");
            } else if (tool.verb == Verb.ATOMIC) {
                long[] counts = d.slotCounts(o.iters);
                for (int s = 0; s < counts.length; s++) {
                    long off = (long) s * DataPath.inc(d.size(), d.cacheLine());
                    long initial = DataPath.patternWord(d.local(i).psn(), off >>> 3);
                    long want = o.atomicType == AtomicType.FETCH_AND_ADD
                            ? initial + counts[s] * DataPath.ATOMIC_ADD_VALUE : initial;
                    d.checkWord(d.recvBase(i) + off, want,
                            " --check: atomic target at slot %d (QP %d) is 0x%x, expected 0x%x%n", s, i);
                }
            }
        }
    }
}
