package io.jrdma.examples;

import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.CompletionQueue;
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
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One side of an RC connection, as the examples set it up: an open soft device, a protection domain, one registered
 * buffer, one completion queue for both queues, and one RC QP already in INIT. {@link #connect} takes the QP through
 * RTR to RTS; {@link #close} releases everything in libibverbs' order (QP, MR, CQ, PD, context, memory).
 */
public final class RcPeer implements AutoCloseable {

    /** The port every example uses. */
    public static final int IB_PORT = 1;
    /** The GID index every example uses: 1, the IPv4-mapped address (as on rxe). */
    public static final int GID_INDEX = 1;

    private static final int QUEUE_DEPTH = 16;
    private static final int CQ_DEPTH = 2 * QUEUE_DEPTH;
    /**
     * How the examples connect: port {@value #IB_PORT}, a GRH from GID index {@value #GID_INDEX} (hop limit 64),
     * 4 READs and atomics each way, RNR timer 12 (0.64 ms), ACK timeout 14 (67 ms), 7 retries, RNR retry for ever.
     */
    public static final QpConnect.Options CONNECT = QpConnect.Options.DEFAULTS;
    private static final long SPIN_POLLS = 10_000;
    private static final long PARK_NS = 20_000;
    private static final Runnable NOTHING = () -> { };

    private final SoftContext context;
    private final Arena arena = Arena.ofShared();
    private ProtectionDomain pd;
    private MemorySegment buffer;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private QueuePair qp;

    private RcPeer(SoftContext context) {
        this.context = context;
    }

    /**
     * Opens {@code device} and creates the resources: a zeroed buffer of {@code bufferBytes} registered with
     * {@code mrAccess}, and an RC QP moved to INIT allowing the remote operations in {@code qpAccess}.
     */
    public static RcPeer open(SoftDevice device, long bufferBytes, int mrAccess, int qpAccess) {
        RcPeer peer = new RcPeer(device.open());
        try {
            peer.create(bufferBytes, mrAccess, qpAccess);
            return peer;
        } catch (RuntimeException e) {
            try {
                peer.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void create(long bufferBytes, int mrAccess, int qpAccess) {
        pd = context.allocPd();
        buffer = arena.allocate(bufferBytes, 4096);
        mr = pd.registerMemory(buffer, mrAccess);
        cq = context.createCq(CQ_DEPTH);
        qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq)
                .cap(new QpCap(QUEUE_DEPTH, QUEUE_DEPTH, 1, 1, 0)));
        QpConnect.init(qp, CONNECT.withAccess(qpAccess));
    }

    /** The open device. */
    public SoftContext context() {
        return context;
    }

    /** The registered buffer. */
    public MemorySegment buffer() {
        return buffer;
    }

    /** The memory region of {@link #buffer()}. */
    public MemoryRegion mr() {
        return mr;
    }

    /** The completion queue of both the send and the receive queue. */
    public CompletionQueue cq() {
        return cq;
    }

    /** The RC queue pair. */
    public QueuePair qp() {
        return qp;
    }

    /** What the peer needs to know to connect to this side, with {@code psn} as the first PSN this side sends. */
    public Endpoint endpoint(int psn) {
        return new Endpoint(context.queryPort(IB_PORT).lid(), qp.qpNum(), psn, context.queryGid(IB_PORT, GID_INDEX),
                mr.rkey(), mr.address());
    }

    /** Moves the QP through RTR to RTS, connected to {@code remote}; sends from {@code local.psn()} on. */
    public void connect(Endpoint local, Endpoint remote, Mtu pathMtu) {
        QpConnect.connect(qp, local.address(), remote.address(), CONNECT.withMtu(pathMtu));
    }

    /**
     * Polls the CQ until one completion arrives and fills {@code wc} with it, driving the device's progress when it
     * has no engine thread.
     *
     * @return {@code wc}, whatever its status
     * @throws TimeoutException when no completion arrives within {@code timeout}
     */
    public WorkCompletion await(WorkCompletion wc, Duration timeout) throws TimeoutException {
        return await(wc, timeout, NOTHING);
    }

    /**
     * {@link #await(WorkCompletion, Duration)} that also runs {@code alsoDrive} on every poll: a program with two
     * devices in invoker threading drives the peer's device with it, or the peer never answers.
     */
    public WorkCompletion await(WorkCompletion wc, Duration timeout, Runnable alsoDrive) throws TimeoutException {
        WorkCompletion[] one = {wc};
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        for (long polls = 0; ; polls++) {
            context.progress();
            alsoDrive.run();
            if (cq.poll(one, 1) == 1) {
                return wc;
            }
            if (System.nanoTime() - deadlineNs > 0) {
                throw new TimeoutException("no completion on " + context.device().name() + " within "
                        + timeout.toMillis() + " ms");
            }
            if (polls > SPIN_POLLS) {
                LockSupport.parkNanos(PARK_NS);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * {@link #await} that also requires a successful completion.
     *
     * @throws IllegalStateException when the completion has an error status
     */
    public WorkCompletion awaitSuccess(WorkCompletion wc, Duration timeout) throws TimeoutException {
        return awaitSuccess(wc, timeout, NOTHING);
    }

    /** {@link #awaitSuccess(WorkCompletion, Duration)} that also runs {@code alsoDrive} on every poll. */
    public WorkCompletion awaitSuccess(WorkCompletion wc, Duration timeout, Runnable alsoDrive)
            throws TimeoutException {
        await(wc, timeout, alsoDrive);
        if (!wc.isSuccess()) {
            throw new IllegalStateException("work request " + wc.wrId() + " on " + context.device().name()
                    + " completed with " + wc.status() + " (" + wc.status().message() + ")");
        }
        return wc;
    }

    @Override
    public void close() {
        Resources.closeAll(qp, mr, cq, pd, context); // on failure the memory stays mapped: the device may use it
        arena.close();
    }
}
