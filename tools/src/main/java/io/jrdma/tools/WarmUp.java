package io.jrdma.tools;

import io.jrdma.examples.QpConnect;
import io.jrdma.examples.Resources;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Warms the JIT compiler up on the data path before a tool measures it. A Java program runs its first few thousand
 * work requests interpreted: an {@code ib_send_lat -n 2000} measured cold averages 130 µs where a warm one takes 5,
 * and the cold iterations are the whole p99 of a 20,000-iteration run. So the perftest and pingpong tools first run
 * a warm-up: over RC the tool itself ({@link Rehearsal}); over UC and UD, and for {@code -R}, this loop of
 * SENDs and RDMA WRITEs of the run's message size between two RC QPs of their own context, connected to each other
 * (loopback on the tool's own device: no packet reaches the peer, and the wire protocol with it is unchanged, so
 * the tools still interoperate with rdma-core's), for at most {@link #DEFAULT_ITERATIONS} iterations and
 * {@link #BUDGET_NS}. The C tools need none of this, so a native provider could skip it; a soft device's counters,
 * trace and capture see the loopback packets, which is why the warm-up is skipped when a trace or capture is set.
 *
 * <p>{@code jrdma.warmup} / {@code JRDMA_WARMUP} sets the iterations ({@code 0} turns it off).
 */
public final class WarmUp {

    /** Iterations when nothing is set: enough for the JIT's top tier to compile the engine's passes. */
    public static final int DEFAULT_ITERATIONS = 20_000;
    /** The warm-up's longest run. */
    public static final long BUDGET_NS = TimeUnit.MILLISECONDS.toNanos(700);
    private static final int DEPTH = 16;
    private static final int MAX_SIZE = 1 << 16;
    private static final long POLL_BOUND_NS = TimeUnit.SECONDS.toNanos(2);

    private WarmUp() {
    }

    /** The iterations the settings ask for: {@code jrdma.warmup} / {@code JRDMA_WARMUP}, else the default. */
    public static int iterations() {
        if (set("jrdma.trace", "JRDMA_TRACE") || set("jrdma.capture", "JRDMA_CAPTURE")) {
            return 0; // a traced or captured run shows the peer's packets only
        }
        String v = System.getProperty("jrdma.warmup", System.getenv("JRDMA_WARMUP"));
        if (v == null || v.isBlank()) {
            return DEFAULT_ITERATIONS;
        }
        try {
            return Math.max(0, Integer.parseInt(v.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("jrdma.warmup / JRDMA_WARMUP must be a number of iterations, not '"
                    + v + "'", e);
        }
    }

    private static boolean set(String property, String env) {
        String v = System.getProperty(property, System.getenv(env));
        return v != null && !v.isBlank();
    }

    /**
     * Runs the warm-up on {@code ctx} (port {@code port}, GID index {@code gidIndex} or none when negative,
     * {@code size}-byte messages,
     * capped at 64 KiB) for {@link #iterations()}. Best effort: a device that cannot loop back to itself (a verb
     * refused) ends it early, said on {@code err}, and the tool goes on cold.
     *
     * @return the iterations run
     */
    public static int run(Context ctx, int port, int gidIndex, long size, PrintStream err) {
        int iterations = iterations();
        if (iterations == 0) {
            return 0;
        }
        int bytes = Math.clamp(size, 1, MAX_SIZE);
        try (Arena arena = Arena.ofShared();
             Pair pair = new Pair(ctx, arena, port, gidIndex >= 0 ? gidIndex : routableGid(ctx, port), bytes)) {
            return pair.run(iterations, bytes);
        } catch (VerbsException | IllegalStateException e) {
            err.println(String.format(Locale.ROOT, "warm-up skipped: %s", e.getMessage()));
            return 0;
        }
    }

    /** The first IPv4-mapped GID of an Ethernet port (RoCE needs a GRH even to loop back), else none (-1). */
    private static int routableGid(Context ctx, int port) {
        PortAttr attr = ctx.queryPort(port);
        if (attr.linkLayer() != LinkLayer.ETHERNET) {
            return -1;
        }
        for (int i = 0; i < attr.gidTblLen(); i++) {
            if (ctx.queryGid(port, i).isIpv4Mapped()) {
                return i;
            }
        }
        return -1;
    }

    /** Two RC QPs of one context connected to each other, each with its own CQ. */
    private static final class Pair implements AutoCloseable {
        private final ProtectionDomain pd;
        private final MemoryRegion mr;
        private final CompletionQueue cqA;
        private final CompletionQueue cqB;
        private final QueuePair a;
        private final QueuePair b;
        private final WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};

        Pair(Context ctx, Arena arena, int port, int gidIndex, int bytes) {
            pd = ctx.allocPd();
            MemorySegment buf = arena.allocate(2L * bytes, 64);
            mr = pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            cqA = ctx.createCq(2 * DEPTH);
            cqB = ctx.createCq(2 * DEPTH);
            a = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cqA).recvCq(cqA)
                    .cap(new QpCap(DEPTH, DEPTH, 1, 1, 0)));
            b = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cqB).recvCq(cqB)
                    .cap(new QpCap(DEPTH, DEPTH, 1, 1, 0)));
            QpConnect.Options o = QpConnect.Options.DEFAULTS.withPort(port)
                    .withAccess(Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            o = gidIndex >= 0 ? o.withGrh(gidIndex, 64) : o.withoutGrh();
            Gid gid = gidIndex >= 0 ? ctx.queryGid(port, gidIndex) : Gid.ZERO;
            int lid = ctx.queryPort(port).lid();
            var addrA = new QpConnect.Address(lid, a.qpNum(), ThreadLocalRandom.current().nextInt(1 << 24), gid);
            var addrB = new QpConnect.Address(lid, b.qpNum(), ThreadLocalRandom.current().nextInt(1 << 24), gid);
            QpConnect.init(a, o);
            QpConnect.init(b, o);
            QpConnect.connect(a, addrA, addrB, o);
            QpConnect.connect(b, addrB, addrA, o);
        }

        int run(int iterations, int bytes) {
            RecvWr recv = new RecvWr().wrId(2).sg(new Sge(mr.address() + bytes, bytes, mr.lkey()));
            for (int i = 0; i < DEPTH; i++) {
                b.postRecv(recv);
            }
            SendWr send = new SendWr().wrId(1).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(mr.address(), bytes, mr.lkey()));
            long start = System.nanoTime();
            int i = 0;
            while (i < iterations && System.nanoTime() - start < BUDGET_NS) {
                boolean write = (i & 1) == 1;
                send.opcode(write ? WrOpcode.RDMA_WRITE : WrOpcode.SEND);
                if (write) {
                    send.remote(mr.address() + bytes, mr.rkey());
                }
                a.postSend(send);
                await(cqA);
                if (!write) {
                    await(cqB);
                    b.postRecv(recv);
                }
                i++;
            }
            return i;
        }

        /** Polls {@code cq} until one successful completion, bounded in time. */
        private void await(CompletionQueue cq) {
            long start = System.nanoTime();
            while (cq.poll(wcs, 1) == 0) {
                if (System.nanoTime() - start > POLL_BOUND_NS) {
                    throw new IllegalStateException("no loopback completion within 2 s");
                }
                Thread.onSpinWait();
            }
            if (!wcs[0].isSuccess()) {
                throw new IllegalStateException("loopback completion " + wcs[0]);
            }
        }

        @Override
        public void close() {
            Resources.closeAll(a, b, cqA, cqB, mr, pd);
        }
    }
}
