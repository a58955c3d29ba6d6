package io.jrdma.tools.perftest;

import io.jrdma.tools.perftest.Tool.Verb;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcOpcode;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The latency tests (ib_*_lat): perftest's run_iter_lat_send, run_iter_lat_write and run_iter_lat loops, the syncs
 * around them and the {@code --check} of the last message.
 */
final class Latency {

    private static final long LINGER_NS = 200_000_000;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private final DataPath d;
    private final Options o;
    private final Tool tool;

    // A loop's state: its iteration is a method of its own (the *Step methods), so that the JIT compiles it from
    // its calls; a loop body inlined in a method that runs once is compiled only on stack replacement, after tens of
    // thousands of iterations in one run. On the emulated guests of the native provider's overhead runs, where an
    // iteration takes about a millisecond, the rehearsal ran too few for that, and the measured loop ran in the
    // interpreter: about 11 µs an iteration (3 % of the server's CPU samples), t_typical 1.27x C's against 1.08 -
    // 1.16x with it compiled (docs/benchmarks, issue 20).
    private long[] posted;
    private SendWr wr;
    private long scnt;
    private long rcnt;
    private long ccnt;

    Latency(DataPath d) {
        this.d = d;
        this.o = d.o;
        this.tool = d.tool;
    }

    /** Runs every size (SEND and WRITE on both sides, READ and atomics on the client), then closes or lingers. */
    void run() throws Exception {
        Verb verb = tool.verb;
        boolean runs = verb == Verb.SEND || verb == Verb.WRITE || o.client();
        boolean first = true;
        if (verb != Verb.SEND) {
            d.sync(); // the sync before the run
        }
        for (long s : runs ? d.sizes() : new long[0]) {
            d.size(s);
            d.setSendWqes();
            if (verb == Verb.SEND) {
                if (!first) {
                    d.postReceives();
                }
                d.sync();
            }
            first = false;
            long[] posted = new long[(int) o.iters];
            switch (verb) {
                case SEND -> runLatSend(posted);
                case WRITE -> runLatWrite(posted);
                default -> runLat(posted);
            }
            d.out.println(Report.latRow(d.size(), (int) o.iters, posted, verb));
            d.out.flush();
        }
        if (runs) {
            d.out.println(Report.RESULT_LINE);
            d.out.flush();
            checkLat();
        }
        if (verb != Verb.WRITE) {
            d.closeConnection();
        } else {
            linger();
        }
    }

    /**
     * RDMA WRITE latency ends without a TCP close to wait for: the peer may still need the ACK of its last write,
     * which leaves after the data that ended our loop. Keep the QP a moment before destroying it.
     */
    private void linger() throws InterruptedException {
        long end = System.nanoTime() + LINGER_NS;
        while (System.nanoTime() - end < 0) {
            d.context.progress();
            Thread.sleep(1);
        }
    }

    private String side() {
        return o.client() ? "client" : "server";
    }

    /** Starts a loop: the first work request, signaled, and the counts at 0. */
    private void begin(long[] postedTimes) {
        posted = postedTimes;
        wr = d.firstWr(0);
        wr.sendFlags(wr.sendFlags() | SendFlags.SIGNALED);
        scnt = 0;
        rcnt = 0;
        ccnt = 0;
        d.progressed();
    }

    /** run_iter_lat_send: the client sends first; each side answers every receive with a send. */
    private void runLatSend(long[] postedTimes) throws Exception {
        begin(postedTimes);
        while (latSendStep()) {
            // each step is one receive and one send
        }
    }

    /** One iteration of {@link #runLatSend}; false when the loop is done. */
    private boolean latSendStep() throws Exception {
        long iters = o.iters;
        if (rcnt < iters && !(scnt < 1 && o.client())) {
            d.poll(d.recvCq, 1, "waiting for a receive");
            d.expect(d.wc(0), WcOpcode.RECV, d.recvLength(), side(), scnt, rcnt);
            rcnt++;
            if (rcnt + d.rxDepth <= iters) {
                d.postReceive(0);
            }
        }
        if (scnt < iters) {
            posted[(int) scnt] = System.nanoTime();
            scnt++;
            d.qps[0].postSend(wr);
            d.poll(d.sendCq, 1, "waiting for a send completion");
            d.expect(d.wc(0), WcOpcode.SEND, -1, side(), scnt, rcnt);
        }
        return scnt < iters || rcnt < iters;
    }

    /**
     * run_iter_lat_write: each side writes the whole message to the peer with its count in the last byte, then
     * polls the last byte of its own receive region for the peer's next count; the server writes first.
     */
    private void runLatWrite(long[] postedTimes) throws Exception {
        begin(postedTimes);
        long postByte = d.sendBase(0) + d.size() - 1;
        long pollByte = d.recvBase(0) + d.size() - 1;
        while (latWriteStep(postByte, pollByte)) {
            // each step is one write each way
        }
    }

    /** One iteration of {@link #runLatWrite}; false when the loop is done. */
    private boolean latWriteStep(long postByte, long pollByte) throws Exception {
        long iters = o.iters;
        if (rcnt < iters && !(scnt < 1 && !o.client())) {
            rcnt++;
            while ((byte) BYTE.getVolatile(d.buf, pollByte) != (byte) rcnt) {
                d.idle("waiting for the peer's next write");
            }
            d.progressed();
        }
        if (scnt < iters) {
            posted[(int) scnt] = System.nanoTime();
            BYTE.setVolatile(d.buf, postByte, (byte) ++scnt);
            d.qps[0].postSend(wr);
        }
        if (ccnt < iters) {
            d.poll(d.sendCq, 1, "waiting for a write completion");
            d.expect(d.wc(0), WcOpcode.RDMA_WRITE, -1, side(), scnt, ccnt);
            ccnt++;
        }
        return scnt < iters || ccnt < iters || rcnt < iters;
    }

    /** run_iter_lat: one RDMA READ or atomic at a time, each waited for. */
    private void runLat(long[] postedTimes) throws Exception {
        begin(postedTimes);
        while (scnt < o.iters) {
            latStep();
        }
    }

    /** One iteration of {@link #runLat}. */
    private void latStep() throws Exception {
        posted[(int) scnt] = System.nanoTime();
        d.qps[0].postSend(wr);
        d.poll(d.sendCq, 1, "waiting for a completion");
        d.expect(d.wc(0), d.sendOpcode(), -1, "client", scnt + 1, scnt);
        scnt++;
    }

    /** --check after a latency run: the last message that arrived (or the atomic operand) against the pattern. */
    private void checkLat() {
        if (!o.check) {
            return;
        }
        long size = d.size();
        int peer = d.remote(0).psn();
        switch (tool.verb) {
            case SEND -> d.checkBytes(d.recvPayload(0), 0, size, peer, "received message");
            case WRITE -> {
                d.checkBytes(d.recvBase(0), 0, size - 1, peer, "data written");
                byte last = d.buf.get(ValueLayout.JAVA_BYTE, d.recvBase(0) + size - 1);
                if (last != (byte) o.iters) {
                    d.out.printf(Locale.ROOT, " --check: the last count written is %d, expected %d%n", last & 0xff,
                            o.iters & 0xff);
                    d.checkFailed();
                }
            }
            case READ -> d.checkBytes(d.sendBase(0), 0, size, peer, "data read");
            case ATOMIC -> d.checkAtomicResults(0, o.iters);
        }
    }
}
