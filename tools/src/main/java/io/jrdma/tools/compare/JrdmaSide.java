package io.jrdma.tools.compare;

import io.jrdma.examples.Endpoint;
import io.jrdma.examples.QpConnect;
import io.jrdma.examples.Resources;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.WorkCompletion;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;

/**
 * One side of a jrdma benchmark: a soft device on this child's address, one protection domain, one registered
 * buffer, a send CQ and a receive CQ (the latter on a completion channel for blocking waits), and {@code qps} RC QPs,
 * connected to the peer's over the control connection (lines {@code ep <index> <endpoint>}, then {@code ready}
 * from the server once its QPs are in RTS).
 */
final class JrdmaSide implements AutoCloseable {

    private static final int PORT = 1;
    private static final int GID_INDEX = 1;
    private static final int MIN_RNR_TIMER = 12; // 0.64 ms
    private static final int ACK_TIMEOUT = 14;   // 67 ms
    private static final int RETRY = 7;

    final SoftContext context;
    final Arena arena = Arena.ofShared();
    final MemorySegment buf;
    final Endpoint[] remote;
    private final int rdAtomic;
    private ProtectionDomain pd;
    private MemoryRegion mr;
    private CompletionChannel channel;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair[] qps;
    private final int[] psn;
    private boolean debug;

    private JrdmaSide(SoftContext context, long bufferBytes, int qpCount) {
        this.context = context;
        this.buf = arena.allocate(Math.max(64, bufferBytes), 4096);
        this.remote = new Endpoint[qpCount];
        this.psn = new int[qpCount];
        DeviceAttr dev = context.queryDevice();
        this.rdAtomic = Math.min(dev.maxQpRdAtom(), dev.maxQpInitRdAtom());
    }

    /**
     * Opens the device {@code bench-<role>} on {@code p.self} with {@code p.threading} and creates the resources.
     *
     * @param sqDepth  send queue depth of each QP
     * @param rqDepth  receive queue depth of each QP (0: no receive CQ)
     * @param inline   max inline data of each QP
     * @param blocking whether the receive CQ gets a completion channel
     */
    static JrdmaSide open(Params p, long bufferBytes, int qpCount, int sqDepth, int rqDepth, int inline,
            boolean blocking) {
        SoftDevice device = SoftDevice.builder().name("bench-" + p.str("role")).address(p.str("self"))
                .threading(Threading.valueOf(p.str("threading").toUpperCase(Locale.ROOT)))
                .sharedMemory(!p.has("udp_only")).build();
        JrdmaSide side = new JrdmaSide(device.open(), bufferBytes, qpCount);
        side.debug = p.str("debug", "false").equals("true");
        try {
            side.create(qpCount, sqDepth, rqDepth, inline, blocking);
            return side;
        } catch (RuntimeException e) {
            try {
                side.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void create(int qpCount, int sqDepth, int rqDepth, int inline, boolean blocking) {
        pd = context.allocPd();
        mr = pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        if (blocking) {
            channel = context.createCompletionChannel();
        }
        sendCq = context.createCq(Math.max(16, sqDepth * qpCount), null);
        if (rqDepth > 0) {
            recvCq = context.createCq(Math.max(16, rqDepth * qpCount), channel);
        }
        qps = new QueuePair[qpCount];
        for (int i = 0; i < qpCount; i++) {
            qps[i] = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(sendCq)
                    .recvCq(recvCq != null ? recvCq : sendCq)
                    .cap(new QpCap(sqDepth, Math.max(1, rqDepth), 1, 1, inline)));
            QpConnect.init(qps[i], connectOptions());
            psn[i] = ThreadLocalRandom.current().nextInt(1 << 24);
        }
    }

    /**
     * Swaps endpoints with the peer and moves every QP to RTS. The client waits for the server's {@code ready}, so
     * that it never sends before the server's QPs can receive.
     */
    void connect(Control control, boolean server, long deadlineNs) throws IOException, TimeoutException {
        if (server) {
            sendEndpoints(control);
            receiveEndpoints(control, deadlineNs);
            connectAll();
            control.send("ready");
        } else {
            receiveEndpoints(control, deadlineNs);
            sendEndpoints(control);
            connectAll();
            control.await("ready", deadlineNs);
        }
    }

    private void sendEndpoints(Control control) throws IOException {
        PortAttr port = context.queryPort(PORT);
        for (int i = 0; i < qps.length; i++) {
            Endpoint e = new Endpoint(port.lid(), qps[i].qpNum(), psn[i], context.queryGid(PORT, GID_INDEX),
                    mr.rkey(), mr.address());
            control.send("ep " + i + " " + e.encode());
        }
    }

    private void receiveEndpoints(Control control, long deadlineNs) throws IOException, TimeoutException {
        for (int i = 0; i < qps.length; i++) {
            String[] a = control.await("ep", deadlineNs).args();
            if (a.length != 2 || Integer.parseInt(a[0]) != i) {
                throw new IllegalStateException("bad endpoint message for QP " + i);
            }
            remote[i] = Endpoint.parse(a[1]);
        }
    }

    private void connectAll() {
        Mtu mtu = context.queryPort(PORT).activeMtu();
        if (mtu.bytes() > Mtu.MTU_4096.bytes()) {
            mtu = Mtu.MTU_4096;
        }
        QpConnect.Options c = connectOptions().withMtu(mtu);
        for (int i = 0; i < qps.length; i++) {
            QpConnect.readyToReceive(qps[i], remote[i].address(), c);
            QpConnect.readyToSend(qps[i], psn[i], c);
        }
    }

    /** Remote writes and reads, a GRH from GID index {@value #GID_INDEX} (hop limit 64), {@code rdAtomic} each way. */
    private QpConnect.Options connectOptions() {
        return QpConnect.Options.DEFAULTS.withPort(PORT)
                .withAccess(Access.REMOTE_WRITE | Access.REMOTE_READ | Access.LOCAL_WRITE).withGrh(GID_INDEX, 64)
                .withRdAtomic(rdAtomic).withMinRnrTimer(MIN_RNR_TIMER).withTimeout(ACK_TIMEOUT)
                .withRetry(RETRY, RETRY);
    }

    QueuePair qp(int i) {
        return qps[i];
    }

    int lkey() {
        return mr.lkey();
    }

    /** The native address of byte {@code offset} of the buffer. */
    long addr(long offset) {
        return buf.address() + offset;
    }

    CompletionQueue sendCq() {
        return sendCq;
    }

    CompletionQueue recvCq() {
        return recvCq;
    }

    CompletionChannel channel() {
        return channel;
    }

    /** Fails unless {@code wc} succeeded. */
    static void check(WorkCompletion wc, String what) {
        if (!wc.isSuccess()) {
            throw new IllegalStateException(what + " completed with " + wc.status() + " (" + wc.status().message()
                    + "): " + wc);
        }
    }

    /** The device's nonzero counters, {@code name=value} separated by spaces (for diagnostics). */
    String counters() {
        StringBuilder sb = new StringBuilder();
        io.jrdma.soft.Counters c = context.counters();
        for (io.jrdma.soft.Counter k : io.jrdma.soft.Counter.values()) {
            long v = c.get(k);
            if (v != 0) {
                sb.append(sb.isEmpty() ? "" : " ").append(k.rxeName()).append('=').append(v);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        if (debug) {
            System.err.println("counters of " + context.device().name() + ": " + counters());
        }
        // on failure the memory stays mapped: the device may still use it
        Resources.closeAll(qps, sendCq, recvCq, channel, mr, pd, context);
        arena.close();
    }
}
