package io.jrdma.bench;

import io.jrdma.examples.QpConnect;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Two soft devices in this process, with invoker threading (no engine threads: the benchmark thread runs both
 * engines, so nothing else competes for the 2 cores), each with a PD, a CQ, a registered 4 KiB buffer and an RC QP,
 * connected to each other at path MTU 1024. Built only from the public API, as the examples do.
 */
final class RcPair implements AutoCloseable {

    /** Bytes of each side's registered buffer. */
    static final int BUFFER_BYTES = 4096;
    /** Send and receive queue depth, and the most WRs a benchmark posts at once. */
    static final int QUEUE_DEPTH = 64;
    /** Inline data each QP accepts. */
    static final int MAX_INLINE = 64;
    /** How long one batch may take before the benchmark gives up. */
    static final long TIMEOUT_NS = 10_000_000_000L;

    private static final int GID_INDEX = 1; // the IPv4-mapped GID, as on rxe
    private static final int PORT = 1;
    private static final int PSN_A = 0x100;
    private static final int PSN_B = 0x200;
    private static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
    /** MTU 1024, 4 READs each way, RNR timer 1 (0.01 ms): the benchmarks post their RECVs ahead, so RNR is rare. */
    private static final QpConnect.Options CONNECT = QpConnect.Options.DEFAULTS.withPort(PORT).withAccess(ACCESS)
            .withMtu(Mtu.MTU_1024).withGrh(GID_INDEX, 64).withRdAtomic(4).withMinRnrTimer(1);

    /** The requester's side (device on the first address). */
    final Side a;
    /** The responder's side (device on the second address). */
    final Side b;

    private RcPair(Side a, Side b) {
        this.a = a;
        this.b = b;
    }

    /** Opens both devices on {@code addressA} and {@code addressB} and connects their QPs. */
    static RcPair open(String addressA, String addressB) {
        Side a = Side.open("jmh-a", addressA);
        try {
            Side b = Side.open("jmh-b", addressB);
            try {
                a.connect(b, PSN_A, PSN_B);
                b.connect(a, PSN_B, PSN_A);
                return new RcPair(a, b);
            } catch (RuntimeException e) {
                b.close();
                throw e;
            }
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
    }

    /**
     * Polls {@code a}'s CQ for {@code sends} completions and {@code b}'s for {@code receives}, running both
     * engines, until all arrived; every one must be successful.
     *
     * @return the sum of the byte lengths of {@code b}'s completions
     * @throws IllegalStateException on an error completion or after {@link #TIMEOUT_NS}
     */
    int await(int sends, int receives) {
        int s = 0;
        int r = 0;
        int bytes = 0;
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (s < sends || r < receives) {
            if (s < sends) {
                s += a.poll(sends - s);
            }
            if (r < receives) {
                int n = b.poll(receives - r);
                for (int i = 0; i < n; i++) {
                    bytes += b.wc[i].byteLen();
                }
                r += n;
            } else {
                b.context.progress(); // the responder's engine: takes the requests in, sends the ACKs
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("batch not complete within " + TIMEOUT_NS / 1_000_000 + " ms: "
                        + s + "/" + sends + " send and " + r + "/" + receives + " receive completions");
            }
        }
        return bytes;
    }

    @Override
    public void close() {
        try {
            b.close();
        } finally {
            a.close();
        }
    }

    /** Closes each non-null resource in order, all of them even when one fails; rethrows the first failure. */
    static void closeAll(AutoCloseable... resources) {
        RuntimeException failure = null;
        for (AutoCloseable r : resources) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException re ? re : new IllegalStateException(e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** One device with its resources. */
    static final class Side implements AutoCloseable {
        final Context context;
        final Arena arena = Arena.ofShared();
        final MemorySegment buffer;
        final WorkCompletion[] wc = new WorkCompletion[QUEUE_DEPTH];
        ProtectionDomain pd;
        MemoryRegion mr;
        CompletionQueue cq;
        QueuePair qp;

        private Side(Context context) {
            this.context = context;
            this.buffer = arena.allocate(BUFFER_BYTES, 4096);
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
        }

        static Side open(String name, String address) {
            SoftDevice device = SoftDevice.builder().name(name).address(address).threading(Threading.INVOKER).build();
            Side side = new Side(device.open());
            try {
                side.pd = side.context.allocPd();
                side.mr = side.pd.registerMemory(side.buffer, ACCESS);
                side.cq = side.context.createCq(2 * QUEUE_DEPTH);
                side.qp = side.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(side.cq).recvCq(side.cq)
                        .cap(new QpCap(QUEUE_DEPTH, QUEUE_DEPTH, 1, 1, MAX_INLINE)));
                return side;
            } catch (RuntimeException e) {
                side.close();
                throw e;
            }
        }

        /** Moves the QP through INIT and RTR to RTS, connected to {@code remote}'s QP, with the given first PSNs. */
        void connect(Side remote, int psn, int remotePsn) {
            QpConnect.connect(qp, new QpConnect.Address(0, qp.qpNum(), psn, context.queryGid(PORT, GID_INDEX)),
                    new QpConnect.Address(0, remote.qp.qpNum(), remotePsn, remote.context.queryGid(PORT, GID_INDEX)),
                    CONNECT);
        }

        /** Polls up to {@code max} completions into {@link #wc}; throws on an error completion. */
        int poll(int max) {
            int n = cq.poll(wc, Math.min(max, wc.length));
            for (int i = 0; i < n; i++) {
                if (!wc[i].isSuccess()) {
                    throw new IllegalStateException("completion with an error on " + context.device().name() + ": "
                            + wc[i]);
                }
            }
            return n;
        }

        @Override
        public void close() {
            // libibverbs' order: QP, MR, CQ, PD, context; the memory last, once the device cannot touch it
            closeAll(qp, mr, cq, pd, context, arena);
        }
    }
}
