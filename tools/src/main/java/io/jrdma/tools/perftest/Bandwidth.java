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

    private final DataPath d;
    private final Options o;
    private final Tool tool;

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

    private boolean noPeak() {
        return o.noPeak || o.duration > 0 || o.iters * d.qps.length > PEAK_MAX_ITERS;
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
        long iters = o.iters;
        long total = iters * n;
        boolean noPeak = noPeak();
        long[] posted = new long[noPeak ? 1 : (int) total];
        long[] completed = new long[noPeak ? 1 : (int) total];
        long[] scnt = new long[n];
        long[] ccnt = new long[n];
        long totScnt = 0;
        long totCcnt = 0;
        long deadlineNs = o.duration > 0 ? System.nanoTime() + o.duration * 1_000_000_000L : 0;
        boolean timeUp = false;
        d.progressed();
        if (noPeak) {
            posted[0] = System.nanoTime();
        }
        while (deadlineNs == 0 ? totScnt < total || totCcnt < total : !timeUp || totCcnt < totScnt) {
            boolean busy = false;
            if (deadlineNs != 0 && !timeUp && System.nanoTime() - deadlineNs >= 0) {
                timeUp = true;
            }
            for (int i = 0; i < n; i++) {
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
                    busy = true;
                }
            }
            if (totCcnt < totScnt) {
                int ne = d.tryPoll(d.sendCq, DataPath.POLL_BATCH);
                if (ne == 0 && !busy && d.events()) {
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
                if (ne > 0) {
                    busy = true;
                    d.progressed();
                }
            }
            if (!busy) {
                d.idle("waiting for send completions");
            }
        }
        if (noPeak) {
            completed[0] = System.nanoTime();
        }
        long messages = deadlineNs == 0 ? total : totCcnt;
        return Report.bw(d.size(), messages, posted, completed, noPeak, o.reportGbits);
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
