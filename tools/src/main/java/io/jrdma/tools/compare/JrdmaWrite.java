package io.jrdma.tools.compare;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A stream of RDMA WRITEs into a ring of message slots in the receiver's memory, with credit-based flow control:
 * the write-bw scenario (64 KiB messages) and the msg-rate scenario (2-byte messages, inline, posted in chains).
 *
 * <p>The sender keeps at most {@code depth} WRs outstanding per QP, signals every {@code signal}-th and posts
 * {@code batch} at a time as one chain. Message {@code k} of a QP goes to slot {@code k % ring} of that QP's ring.
 * The receiver polls its memory for each message in order (the QP places packets in PSN order, so the last bytes
 * arriving mean the whole message is there), and every {@code ring / 8} messages RDMA-WRITEs its consumed count
 * (8 bytes, inline) into the sender's credit word for that QP; the sender never runs more than {@code ring}
 * messages ahead of the credit, so a slot is never overwritten before it was read.
 *
 * <p>Verification: a message of 16 bytes or more carries {@code k + 1} in its first and last 8 bytes (both are
 * checked); a shorter one carries the ring lap {@code k / ring + 1} in its 2 bytes. Anything else in a slot than
 * the expected stamp or the previous lap's is a failure.
 *
 * <p>The receiver backs off when it finds nothing new (spin, yield, then park 10 us; see {@link #idle}).
 */
final class JrdmaWrite {

    private static final int IDLE_SPINS = 64;
    private static final long IDLE_PARK_NS = 10_000;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle SHORT = ValueLayout.JAVA_SHORT.varHandle();
    private static final int POLL = 32;
    private static final int CREDIT_SQ = 16;
    /** Re-reads of a slot that holds neither stamp before calling it corrupt (a torn read settles at once). */
    private static final int SETTLE_READS = 100_000;

    private JrdmaWrite() {
    }

    /** The buffer layout and flow-control constants both sides derive from the same parameters. */
    record Geometry(int size, int qps, int depth, int signal, int batch, int ring, int creditEvery, boolean inline) {

        static Geometry of(Params p) {
            int size = p.integer("size");
            if (size < 2 || (size < 16 && size != 2)) {
                throw new IllegalArgumentException("message size must be 2 or at least 16 bytes, not " + size);
            }
            int depth = p.integer("depth");
            int signal = Math.clamp(p.integer("signal"), 1, depth);
            int batch = Math.clamp(p.integer("batch", 1), 1, depth);
            int ring = p.integer("ring", 2 * depth);
            int credit = Math.max(1, ring / 8);
            if (ring < depth || credit + signal > ring) {
                throw new IllegalArgumentException("ring " + ring + " too small for depth " + depth);
            }
            return new Geometry(size, p.integer("qps", 1), depth, signal, batch, ring, credit, size <= 64);
        }

        boolean wide() {
            return size >= 16;
        }

        /** Source slots per QP: inline data is copied at post time, so one per chain position is enough. */
        int sourceSlots() {
            return inline ? batch : depth;
        }

        long sourceOffset(int q, long slot) {
            return ((long) q * sourceSlots() + slot) * size;
        }

        long senderCreditOffset(int q) {
            return align((long) qps * sourceSlots() * size) + 64L * q;
        }

        long senderBytes() {
            return senderCreditOffset(qps);
        }

        long ringOffset(int q, long slot) {
            return ((long) q * ring + slot) * size;
        }

        long receiverCreditOffset(int q) {
            return align((long) qps * ring * size) + 64L * q;
        }

        long receiverBytes() {
            return receiverCreditOffset(qps);
        }

        private static long align(long v) {
            return (v + 63) & ~63L;
        }
    }

    // ------------------------------------------------------------------------------------------------- sender

    /** The client: posts WRITEs until the receiver says stop, then drains and reports its CPU. */
    static String send(Params p, Control control, Deadline deadline) throws Exception {
        Geometry g = Geometry.of(p);
        long corruptAt = p.lng("corrupt", -1);
        try (JrdmaSide side = JrdmaSide.open(p, g.senderBytes(), g.qps(), g.depth(), 0, g.inline() ? 64 : 0,
                false)) {
            side.connect(control, false, deadline.nanos());
            MemorySegment buf = side.buf;
            SendWr[] chain = new SendWr[g.batch()];
            for (int j = 0; j < chain.length; j++) {
                chain[j] = new SendWr().opcode(WrOpcode.RDMA_WRITE).sg(new Sge(0, g.size(), side.lkey()));
                if (j > 0) {
                    chain[j - 1].next(chain[j]);
                }
            }
            int inlineFlag = g.inline() ? SendFlags.INLINE : 0;
            long[] posted = new long[g.qps()];
            long[] completed = new long[g.qps()];
            long[] credit = new long[g.qps()];
            WorkCompletion[] wcs = completions(POLL);
            CompletionQueue cq = side.sendCq();
            boolean stopping = false;
            while (true) {
                if (!stopping && control.stopped()) {
                    stopping = true;
                }
                if (stopping && drained(posted, completed, g.signal())) {
                    break;
                }
                deadline.check("sending RDMA WRITEs");
                for (int q = 0; q < g.qps(); q++) {
                    long room = Math.min(g.depth() - (posted[q] - completed[q]), g.ring() - (posted[q] - credit[q]));
                    if (stopping) {
                        room = Math.min(room, (g.signal() - posted[q] % g.signal()) % g.signal());
                    }
                    int n = (int) Math.min(room, g.batch());
                    if (n <= 0) {
                        continue;
                    }
                    long remote = side.remote[q].vaddr();
                    for (int j = 0; j < n; j++) {
                        long k = posted[q] + j;
                        long src = g.sourceOffset(q, g.inline() ? j : k % g.sourceSlots());
                        stamp(buf, g, src, k, k == corruptAt);
                        SendWr wr = chain[j];
                        wr.sgList()[0].addr(side.addr(src));
                        wr.remoteAddr(remote + g.ringOffset(q, k % g.ring())).rkey(side.remote[q].rkey());
                        wr.wrId(k << 8 | q);
                        wr.sendFlags(inlineFlag | (k % g.signal() == g.signal() - 1 ? SendFlags.SIGNALED : 0));
                    }
                    chain[n - 1].next(null);
                    try {
                        side.qp(q).postSend(chain[0]);
                    } finally {
                        if (n < chain.length) {
                            chain[n - 1].next(chain[n]);
                        }
                    }
                    posted[q] += n;
                }
                int ne = cq.poll(wcs);
                for (int i = 0; i < ne; i++) {
                    JrdmaSide.check(wcs[i], "RDMA WRITE");
                    int q = (int) (wcs[i].wrId() & 0xFF);
                    completed[q] = (wcs[i].wrId() >>> 8) + 1;
                }
                for (int q = 0; q < g.qps(); q++) {
                    long c = (long) LONG.getVolatile(buf, g.senderCreditOffset(q));
                    if (c > posted[q]) {
                        throw new BenchFailure("QP " + q + ": credit " + c + " is beyond the " + posted[q]
                                + " messages posted");
                    }
                    credit[q] = Math.max(credit[q], c);
                }
                if (ne == 0) {
                    Thread.onSpinWait();
                }
            }
            long total = 0;
            for (long n : posted) {
                total += n;
            }
            control.send("done " + total);
            control.await("fin", deadline.nanos(), side.context::progress); // the receiver's credits need our engine
            return Window.peerFields(control) + " msgs_sent=" + total;
        }
    }

    private static boolean drained(long[] posted, long[] completed, int signal) {
        for (int q = 0; q < posted.length; q++) {
            if (posted[q] % signal != 0 || completed[q] != posted[q]) {
                return false;
            }
        }
        return true;
    }

    private static void stamp(MemorySegment buf, Geometry g, long off, long k, boolean corrupt) {
        if (g.wide()) {
            long s = k + 1;
            buf.set(ValueLayout.JAVA_LONG_UNALIGNED, off, corrupt ? s ^ 0xDEAD_0000L : s);
            buf.set(ValueLayout.JAVA_LONG_UNALIGNED, off + g.size() - 8, s);
        } else {
            short lap = (short) (k / g.ring() + 1);
            buf.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, corrupt ? (short) (lap + 7) : lap);
        }
    }

    // ------------------------------------------------------------------------------------------------- receiver

    /**
     * The receiver's back-off when a poll found no new message: spin, then yield, then park 10 us. Its engine runs
     * on its polls (invoker), so it answers the next one within that; meanwhile the CPU goes to whatever else is
     * runnable (the sender's kernel work, the JVMs' own threads), as TCP's receiver gives it up in read(2).
     */
    private static void idle(int emptyPolls) {
        if (emptyPolls < IDLE_SPINS) {
            Thread.onSpinWait();
        } else if (emptyPolls < 2 * IDLE_SPINS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(IDLE_PARK_NS);
        }
    }

    /** The server: consumes and verifies messages in order, returns credits, measures the interval. */
    static String receive(Params p, Control control, Deadline deadline) throws Exception {
        Geometry g = Geometry.of(p);
        Window window = new Window(control, p.lng("warmup_ms") * 1_000_000L, p.lng("duration_ms") * 1_000_000L);
        try (JrdmaSide side = JrdmaSide.open(p, g.receiverBytes(), g.qps(), CREDIT_SQ, 0, 8, false)) {
            side.connect(control, true, deadline.nanos());
            MemorySegment buf = side.buf;
            long[] next = new long[g.qps()];
            long[] credited = new long[g.qps()];
            SendWr creditWr = new SendWr().opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.INLINE | SendFlags.SIGNALED)
                    .sg(new Sge(0, 8, side.lkey()));
            WorkCompletion[] wcs = completions(POLL);
            CompletionQueue cq = side.sendCq();
            long creditsPosted = 0;
            long creditsDone = 0;
            long count = 0;
            long total = -1;
            int idle = 0;
            while (true) {
                int got = 0;
                for (int q = 0; q < g.qps(); q++) {
                    int m = 0;
                    while (m < 64 && arrived(buf, g, q, next[q])) {
                        next[q]++;
                        m++;
                    }
                    got += m;
                    if (next[q] - credited[q] >= g.creditEvery() && creditsPosted - creditsDone < CREDIT_SQ - 1) {
                        long src = g.receiverCreditOffset(q);
                        buf.set(ValueLayout.JAVA_LONG_UNALIGNED, src, next[q]);
                        creditWr.sgList()[0].addr(side.addr(src));
                        creditWr.remote(side.remote[q].vaddr() + g.senderCreditOffset(q), side.remote[q].rkey());
                        side.qp(q).postSend(creditWr);
                        credited[q] = next[q];
                        creditsPosted++;
                    }
                }
                count += got;
                int ne = cq.poll(wcs);
                for (int i = 0; i < ne; i++) {
                    JrdmaSide.check(wcs[i], "credit RDMA WRITE");
                }
                creditsDone += ne;
                if (!window.done()) {
                    window.tick(count);
                } else {
                    if (total < 0) {
                        Control.Msg d = control.poll("done");
                        if (d != null) {
                            total = Long.parseLong(d.args()[0]);
                        }
                    }
                    if (total >= 0 && count >= total) {
                        break;
                    }
                }
                if (deadline.passed()) {
                    throw deadline.timeout("receiving RDMA WRITEs (" + count + " so far)");
                }
                if (got == 0) {
                    idle(++idle);
                } else {
                    idle = 0;
                }
            }
            if (count != total) {
                throw new BenchFailure("received " + count + " messages, the sender posted " + total);
            }
            while (creditsDone < creditsPosted) {
                deadline.check("waiting for credit completions");
                int ne = cq.poll(wcs);
                for (int i = 0; i < ne; i++) {
                    JrdmaSide.check(wcs[i], "credit RDMA WRITE");
                }
                creditsDone += ne;
            }
            control.send("fin");
            return window.fields(g.size());
        }
    }

    /** Whether message {@code k} of QP {@code q} is in its slot; fails on anything but it or the previous lap. */
    private static boolean arrived(MemorySegment buf, Geometry g, int q, long k) {
        long off = g.ringOffset(q, k % g.ring());
        if (g.wide()) {
            long want = k + 1;
            long old = k >= g.ring() ? want - g.ring() : 0;
            long lastOff = off + g.size() - 8;
            long last = (long) LONG.getVolatile(buf, lastOff);
            for (int i = 0; last != want && last != old; i++) {
                if (i == SETTLE_READS) {
                    throw new BenchFailure("QP " + q + " message " + k + ": last word " + last + ", expected " + want);
                }
                Thread.onSpinWait();
                last = (long) LONG.getVolatile(buf, lastOff);
            }
            if (last != want) {
                return false;
            }
            long first = (long) LONG.getVolatile(buf, off);
            if (first != want) {
                throw new BenchFailure("QP " + q + " message " + k + ": first word " + first + ", expected " + want);
            }
            return true;
        }
        short want = (short) (k / g.ring() + 1);
        short old = (short) (want - 1);
        short v = (short) SHORT.getVolatile(buf, off);
        for (int i = 0; v != want && v != old; i++) {
            if (i == SETTLE_READS) {
                throw new BenchFailure("QP " + q + " message " + k + ": value " + v + ", expected " + want);
            }
            Thread.onSpinWait();
            v = (short) SHORT.getVolatile(buf, off);
        }
        return v == want;
    }

    static WorkCompletion[] completions(int n) {
        WorkCompletion[] wcs = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }
}
