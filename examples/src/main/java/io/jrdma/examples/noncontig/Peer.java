package io.jrdma.examples.noncontig;

import io.jrdma.examples.Endpoint;
import io.jrdma.examples.QpConnect;
import io.jrdma.examples.RcPeer;
import io.jrdma.examples.Resources;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One side of the benchmark's RC connection: an open soft device, one registered buffer holding every region this
 * side uses, one CQ for both queues, and an RC QP sized for the layout (send and receive queues as deep as the
 * work requests of one message, as many SGEs per request as the benchmark uses).
 */
final class Peer implements AutoCloseable {

    static final int IB_PORT = 1;
    static final int GID_INDEX = 1;
    private static final int MIN_RNR_TIMER = 1; // 0.01 ms: RECVs are posted before the SENDs, so RNR is rare
    private static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    private final SoftContext context;
    private final Arena arena = Arena.ofShared();
    private ProtectionDomain pd;
    private MemorySegment buffer;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private QueuePair qp;

    private Peer(SoftContext context) {
        this.context = context;
    }

    /** Opens {@code device}; {@link #create} then makes the resources, once the device's limits are known. */
    static Peer open(SoftDevice device) {
        return new Peer(device.open());
    }

    /**
     * Creates a zeroed buffer of {@code bytes}, registered, and a QP of {@code wrDepth} requests of up to
     * {@code maxSge} entries on each queue, in INIT. On failure the caller closes this peer.
     */
    void create(long bytes, int wrDepth, int maxSge) {
        pd = context.allocPd();
        buffer = arena.allocate(bytes, 4096);
        mr = pd.registerMemory(buffer, ACCESS);
        cq = context.createCq(2 * wrDepth + 4);
        qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq)
                .cap(new QpCap(wrDepth, wrDepth, maxSge, maxSge, 0)));
        QpConnect.init(qp, RcPeer.CONNECT.withPort(IB_PORT).withAccess(ACCESS));
    }

    SoftContext context() {
        return context;
    }

    MemorySegment buffer() {
        return buffer;
    }

    MemoryRegion mr() {
        return mr;
    }

    CompletionQueue cq() {
        return cq;
    }

    QueuePair qp() {
        return qp;
    }

    Endpoint endpoint(int psn) {
        return new Endpoint(context.queryPort(IB_PORT).lid(), qp.qpNum(), psn, context.queryGid(IB_PORT, GID_INDEX),
                mr.rkey(), mr.address());
    }

    /** Moves the QP through RTR to RTS, connected to {@code remote}, with {@code rdAtomic} READs in flight. */
    void connect(Endpoint local, Endpoint remote, Mtu pathMtu, int rdAtomic) {
        QpConnect.connect(qp, local.address(), remote.address(), RcPeer.CONNECT.withPort(IB_PORT).withMtu(pathMtu)
                .withRdAtomic(rdAtomic).withMinRnrTimer(MIN_RNR_TIMER));
    }

    @Override
    public void close() {
        Resources.closeAll(qp, mr, cq, pd, context); // on failure the memory stays mapped: the device may use it
        arena.close();
    }
}
