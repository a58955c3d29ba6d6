package io.jrdma.tools.compare;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The read-bw scenario: the client RDMA-READs {@code size}-byte messages from a ring of {@code ring} slots per QP in
 * the server's memory into {@code depth} local slots per QP, keeping {@code depth} READs outstanding per QP and
 * signalling every {@code signal}-th. The server only serves (its engine thread, or its own progress loop in
 * invoker mode). Every slot of the server carries a pattern word in its first and last 8 bytes; the client clears
 * both words of a local slot before reading into it and checks them after the READ completed.
 */
final class JrdmaRead {

    private static final int POLL = 32;

    private JrdmaRead() {
    }

    private record Geometry(int size, int qps, int depth, int signal, int ring) {

        static Geometry of(Params p) {
            int size = p.integer("size");
            if (size < 16) {
                throw new IllegalArgumentException("read messages must be at least 16 bytes, not " + size);
            }
            int depth = p.integer("depth");
            return new Geometry(size, p.integer("qps", 1), depth, Math.clamp(p.integer("signal"), 1, depth),
                    p.integer("ring", 2 * depth));
        }

        long sourceOffset(int q, long slot) {
            return ((long) q * ring + slot) * size;
        }

        long localOffset(int q, long slot) {
            return ((long) q * depth + slot) * size;
        }
    }

    /** The pattern word {@code which} (0 first, 1 last) of slot {@code slot} of QP {@code q}. */
    static long pattern(int q, long slot, int which) {
        long z = (slot * 2 + which + 1) * 0x9E3779B97F4A7C15L + (q + 1) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The server: fills the pattern (one word wrong with the corrupt hook), then serves until {@code fin}. */
    static String serve(Params p, Control control, Deadline deadline) throws Exception {
        Geometry g = Geometry.of(p);
        long corrupt = p.lng("corrupt", -1);
        try (JrdmaSide side = JrdmaSide.open(p, (long) g.qps() * g.ring() * g.size(), g.qps(), 16, 0, 0, false)) {
            for (int q = 0; q < g.qps(); q++) {
                for (long s = 0; s < g.ring(); s++) {
                    long off = g.sourceOffset(q, s);
                    long first = pattern(q, s, 0);
                    side.buf.set(ValueLayout.JAVA_LONG_UNALIGNED, off, q == 0 && s == corrupt % g.ring()
                            && corrupt >= 0 ? ~first : first);
                    side.buf.set(ValueLayout.JAVA_LONG_UNALIGNED, off + g.size() - 8, pattern(q, s, 1));
                }
            }
            side.connect(control, true, deadline.nanos());
            while (control.poll("fin") == null) {
                deadline.check("serving RDMA READs");
                if (side.context.progress() == 0) {
                    Thread.onSpinWait();
                }
            }
            return Window.peerFields(control);
        }
    }

    /** The client: reads until the measured interval is over, verifying every message. */
    static String read(Params p, Control control, Deadline deadline) throws Exception {
        Geometry g = Geometry.of(p);
        Window window = new Window(control, p.lng("warmup_ms") * 1_000_000L, p.lng("duration_ms") * 1_000_000L);
        try (JrdmaSide side = JrdmaSide.open(p, (long) g.qps() * g.depth() * g.size(), g.qps(), g.depth(), 0, 0,
                false)) {
            side.connect(control, false, deadline.nanos());
            MemorySegment buf = side.buf;
            SendWr wr = new SendWr().opcode(WrOpcode.RDMA_READ).sg(new Sge(0, g.size(), side.lkey()));
            long[] posted = new long[g.qps()];
            long[] completed = new long[g.qps()];
            WorkCompletion[] wcs = JrdmaWrite.completions(POLL);
            CompletionQueue cq = side.sendCq();
            long count = 0;
            boolean stopping = false;
            while (true) {
                if (!stopping && window.done()) {
                    stopping = true;
                }
                if (stopping && drained(posted, completed, g.signal())) {
                    break;
                }
                if (deadline.passed()) {
                    throw deadline.timeout("reading (" + count + " messages so far)");
                }
                for (int q = 0; q < g.qps(); q++) {
                    long room = g.depth() - (posted[q] - completed[q]);
                    if (stopping) {
                        room = Math.min(room, (g.signal() - posted[q] % g.signal()) % g.signal());
                    }
                    for (long i = 0; i < room; i++) {
                        long k = posted[q];
                        long local = g.localOffset(q, k % g.depth());
                        buf.set(ValueLayout.JAVA_LONG_UNALIGNED, local, 0L);
                        buf.set(ValueLayout.JAVA_LONG_UNALIGNED, local + g.size() - 8, 0L);
                        wr.sgList()[0].addr(side.addr(local));
                        wr.remote(side.remote[q].vaddr() + g.sourceOffset(q, k % g.ring()), side.remote[q].rkey());
                        wr.wrId(k << 8 | q);
                        wr.sendFlags(k % g.signal() == g.signal() - 1 ? SendFlags.SIGNALED : 0);
                        side.qp(q).postSend(wr);
                        posted[q] = k + 1;
                    }
                }
                int ne = cq.poll(wcs);
                for (int i = 0; i < ne; i++) {
                    JrdmaSide.check(wcs[i], "RDMA READ");
                    int q = (int) (wcs[i].wrId() & 0xFF);
                    long upTo = (wcs[i].wrId() >>> 8) + 1;
                    for (long k = completed[q]; k < upTo; k++) {
                        verify(buf, g, q, k);
                    }
                    count += upTo - completed[q];
                    completed[q] = upTo;
                }
                if (!window.done()) {
                    window.tick(count);
                }
                if (ne == 0) {
                    Thread.onSpinWait();
                }
            }
            control.send("fin");
            return window.fields(g.size());
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

    private static void verify(MemorySegment buf, Geometry g, int q, long k) {
        long local = g.localOffset(q, k % g.depth());
        long slot = k % g.ring();
        long first = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, local);
        long last = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, local + g.size() - 8);
        if (first != pattern(q, slot, 0) || last != pattern(q, slot, 1)) {
            throw new BenchFailure("QP " + q + " READ " + k + " of slot " + slot + ": words 0x"
                    + Long.toHexString(first) + " / 0x" + Long.toHexString(last) + ", expected 0x"
                    + Long.toHexString(pattern(q, slot, 0)) + " / 0x" + Long.toHexString(pattern(q, slot, 1)));
        }
    }
}
