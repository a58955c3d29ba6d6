package io.jrdma.tools.scale;

import io.jrdma.examples.QpConnect;
import io.jrdma.examples.Resources;
import io.jrdma.soft.Counter;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.link.Link;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One side of {@code jrdma scale}: a soft device with one PD, a send CQ and a receive CQ shared by all QPs, three
 * memory regions (the data it sends, the area its peer WRITEs into, the area its peer's SENDs land in), and N RC
 * QPs, each connected to the peer's QP of the same index. Every QP RDMA-WRITEs and SENDs K messages; the receiver
 * checks every completion (status, opcode, QP, length, order) and every byte of every message against the pattern
 * its peer's seed gives for that QP and message. Then, with all QPs idle, it measures what one QP costs (see
 * {@link Report}).
 *
 * <p>Before the baseline of the measurement the side allocates everything of its own that grows with N (arrays,
 * buffers, CQs) and runs a warm-up QP pair through every path once, so the difference between the two snapshots is
 * what the device keeps for the N QPs.
 */
final class Side implements AutoCloseable {

    /** Which end of the TCP exchange this side is. */
    enum Role {
        SERVER, CLIENT;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final int WRITE = 0;
    static final int SEND = 1;

    private static final int IB_PORT = 1;
    private static final int GID_INDEX = 1;
    private static final int MIN_RNR_TIMER = 12;
    private static final int RETRY = 7;
    private static final int POLL_BATCH = 64;
    private static final int SPINS = 1_000;
    private static final long PARK_NS = 20_000;
    private static final int MAX_PROBLEMS = 10;
    private static final int WARM_UP_BYTES = 64;
    private static final int FD_MARGIN = 64;

    /** The counters that tell how the traffic went: packets, and every recovery path. */
    private static final Counter[] TRAFFIC_COUNTERS = {Counter.SENT_PKTS, Counter.RCVD_PKTS,
        Counter.RETRANSMITTED_PKTS, Counter.RCVD_SEQ_ERR, Counter.COMPLETER_RETRY_ERR, Counter.OUT_OF_SEQ_REQUEST,
        Counter.DUPLICATE_REQUEST, Counter.SEND_RNR_ERR, Counter.RCVD_DROPPED, Counter.SEND_ERR};

    private final Config cfg;
    private final String address;
    private final PrintWriter out;
    private final String who;
    private final int corruptQp;

    private SoftContext ctx;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private final Arena arena = Arena.ofShared();
    private MemorySegment src;
    private MemorySegment writeArea;
    private MemorySegment recvArea;
    private MemoryRegion srcMr;
    private MemoryRegion writeMr;
    private MemoryRegion recvMr;

    private QueuePair[] qps;
    private int[] psn;
    private int[] remoteQpn;
    private int[] remotePsn;
    private int[] sendsDone;
    private int[] recvsDone;
    private boolean[] bad;
    private final WorkCompletion[] wcs = new WorkCompletion[POLL_BATCH];
    private final SendWr wr = new SendWr();
    private final Sge[] sendSge = {new Sge()};
    private final RecvWr rwr = new RecvWr();
    private final Sge[] recvSge = {new Sge()};
    private final long seed = ThreadLocalRandom.current().nextLong();
    private final List<String> problems = new ArrayList<>();
    private long outstanding;
    private long sendsCompleted;
    private long recvsCompleted;
    private int sendFailures;
    private int spins;
    private int warmUpPort = -1;

    /**
     * A side that will open a device on {@code address}; {@code corruptQp} (for tests, -1 normally) names a QP whose
     * first RDMA WRITE this side damages in one word, which the peer must report.
     */
    Side(Role role, Config cfg, String address, PrintWriter out, int corruptQp) {
        this.corruptQp = corruptQp;
        this.cfg = cfg;
        this.address = address;
        this.out = out;
        this.who = role.label();
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /**
     * Runs the side over {@code ex}: setup, exchange, connection, traffic, verification, measurement.
     *
     * @return 0 when both sides moved and verified every message, 1 otherwise
     */
    int run(Exchange ex) throws IOException, TimeoutException {
        int n = cfg.qps();
        say(String.format(Locale.ROOT, "%d RC QPs on %s, max_send_wr %d, max_recv_wr %d, max_inline_data %d, "
                + "rd_atomic %d, %d x (RDMA WRITE + SEND) of %d B per QP, path MTU %d, %s engine", n, address,
                cfg.sendWr(), cfg.recvWr(), cfg.inline(), cfg.rdAtomic(), cfg.messages(), cfg.size(),
                cfg.mtu().bytes(), cfg.threading().name().toLowerCase(Locale.ROOT)));
        open();
        warmUp();
        checkFileLimit();
        Memory.Snapshot before = Memory.baseline();

        long t0 = System.nanoTime();
        createQps();
        long t1 = System.nanoTime();
        Exchange.Hello mine = new Exchange.Hello(n, cfg.messages(), cfg.size(), cfg.mtu().bytes(),
                gid().hi(), gid().lo(), writeMr.rkey(), writeMr.address(), seed);
        ex.sendHello(mine);
        Exchange.Hello peer = ex.receiveHello(mine);
        ex.sendQps(qpNumbers(), psn);
        ex.receiveQps(remoteQpn, remotePsn);
        long t2 = System.nanoTime();
        connectAll(Gid.of(peer.gidHi(), peer.gidLo()));
        long t3 = System.nanoTime();
        say(String.format(Locale.ROOT, "created %d QPs in %.2f s, exchanged in %.2f s, connected (RTR, RTS) in "
                + "%.2f s", n, secs(t1 - t0), secs(t2 - t1), secs(t3 - t2)));
        ex.signal(Exchange.READY, 0);
        ex.await(Exchange.READY, this::drive);

        long[] counted = counters();
        long t4 = System.nanoTime();
        traffic(peer);
        long t5 = System.nanoTime();
        long[] now = counters();
        ex.signal(Exchange.SENT, sendFailures);
        int peerSendFailures = ex.await(Exchange.SENT, this::drive);
        int badQps = verify(peer.seed());
        ex.signal(Exchange.VERIFIED, badQps);
        int peerBadQps = ex.await(Exchange.VERIFIED, this::drive);
        say(String.format(Locale.ROOT, "traffic: %,d send requests (%,d B) done in %.2f s, %.1f MB/s each way",
                cfg.sends(), cfg.bytes(), secs(t5 - t4), cfg.bytes() / 1e6 / Math.max(1e-9, secs(t5 - t4))));
        StringBuilder sb = new StringBuilder("device counters during the traffic:");
        for (int c = 0; c < TRAFFIC_COUNTERS.length; c++) {
            sb.append(' ').append(TRAFFIC_COUNTERS[c].rxeName()).append('=').append(now[c] - counted[c]);
        }
        say(sb.toString());
        for (String p : problems) {
            say("problem: " + p);
        }
        boolean ok = badQps == 0 && peerBadQps == 0 && sendFailures == 0 && peerSendFailures == 0;
        say(String.format(Locale.ROOT, "verified: %d of %d QPs received all %d WRITEs and %d SENDs intact%s", n - badQps,
                n, cfg.messages(), cfg.messages(), peerBadQps == 0 ? "" : "; the peer found " + peerBadQps
                        + " QPs with wrong or missing data"));

        Memory.Snapshot after = Memory.measure(before);
        Report report = Report.of(cfg, before, after, sourcePorts());
        report.print(out, who);
        out.println(report.resultLine(who, n - badQps, ok));
        ex.signal(Exchange.MEASURED, 0);
        ex.await(Exchange.MEASURED, this::drive);
        return ok ? 0 : 1;
    }

    // ------------------------------------------------------------------------------------------------- setup

    private void open() {
        ctx = SoftDevice.builder().name("scale-" + who).address(address).threading(cfg.threading()).build().open();
        pd = ctx.allocPd();
        int n = cfg.qps();
        long area = (long) n * cfg.messages() * cfg.size();
        sendCq = ctx.createCq((int) cfg.sends());
        recvCq = ctx.createCq((int) cfg.receives());
        src = arena.allocate(2 * area, 4096);
        writeArea = arena.allocate(area, 4096);
        recvArea = arena.allocate(area, 4096);
        srcMr = pd.registerMemory(src, Access.LOCAL_WRITE);
        writeMr = pd.registerMemory(writeArea, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        recvMr = pd.registerMemory(recvArea, Access.LOCAL_WRITE);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < cfg.messages(); j++) {
                Payload.fill(src, sourceOffset(i, j, WRITE), cfg.size(), seed, i, j, WRITE);
                Payload.fill(src, sourceOffset(i, j, SEND), cfg.size(), seed, i, j, SEND);
            }
        }
        if (corruptQp >= 0 && corruptQp < n) {
            long at = sourceOffset(corruptQp, 0, WRITE);
            src.set(ValueLayout.JAVA_LONG_UNALIGNED, at, ~src.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
            say("damaging the first RDMA WRITE of QP " + corruptQp + " (test of the receiver's check)");
        }
        qps = new QueuePair[n];
        psn = new int[n];
        remoteQpn = new int[n];
        remotePsn = new int[n];
        sendsDone = new int[n];
        recvsDone = new int[n];
        bad = new boolean[n];
    }

    private Gid gid() {
        return ctx.queryGid(IB_PORT, GID_INDEX);
    }

    /** A pair of QPs on this device, connected to each other, moves one WRITE and one SEND, and is destroyed. */
    private void warmUp() throws TimeoutException {
        QueuePair a = createQp();
        QueuePair b = createQp();
        try {
            connect(a, b.qpNum(), 0, 0, gid());
            connect(b, a.qpNum(), 0, 0, gid());
            warmUpPort = Link.sourcePortFor(Link.flowLabel(a.qpNum(), b.qpNum())); // both ends use this port
            rwr.reset().wrId(-1).sg(recvSge);
            recvSge[0].set(recvMr.address(), WARM_UP_BYTES, recvMr.lkey());
            b.postRecv(rwr);
            sendSge[0].set(srcMr.address(), WARM_UP_BYTES, srcMr.lkey());
            wr.reset().wrId(-1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).sg(sendSge)
                    .remote(writeMr.address(), writeMr.rkey());
            a.postSend(wr);
            wr.reset().wrId(-2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sg(sendSge);
            a.postSend(wr);
            long deadline = System.nanoTime() + cfg.timeout().toNanos();
            int done = 0;
            while (done < 3) {
                int got = warmUpPoll(sendCq) + warmUpPoll(recvCq);
                done += got;
                if (got == 0 && System.nanoTime() - deadline > 0) {
                    throw new TimeoutException("the warm-up QP pair on this device did not complete within "
                            + cfg.timeout().toSeconds() + " s");
                }
                idle(got);
            }
        } finally {
            Resources.closeAll(a, b);
        }
    }

    private int warmUpPoll(CompletionQueue cq) {
        int n = cq.poll(wcs, POLL_BATCH);
        for (int k = 0; k < n; k++) {
            if (!wcs[k].isSuccess()) {
                throw new IllegalStateException("the warm-up QP pair on this device failed: " + wcs[k]);
            }
        }
        return n;
    }

    /**
     * Every QP may need a UDP socket of its own (one per distinct source port, as kernel rxe spreads flows): fail
     * clearly rather than have the device fall back to port 4791 when descriptors run out.
     */
    private void checkFileLimit() {
        long max = Memory.maxFds();
        long open = Memory.openFds();
        if (max > 0 && open >= 0 && open + cfg.qps() + FD_MARGIN > max) {
            throw new IllegalStateException(cfg.qps() + " QPs may need up to " + cfg.qps() + " UDP source-port "
                    + "sockets, but this process has only " + (max - open) + " of its " + max + " file descriptors "
                    + "left: raise the limit (ulimit -n) or run fewer QPs");
        }
    }

    private QueuePair createQp() {
        return pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq)
                .cap(new QpCap(cfg.sendWr(), cfg.recvWr(), 1, 1, cfg.inline())));
    }

    private void createQps() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < qps.length; i++) {
            qps[i] = createQp();
            psn[i] = random.nextInt(1 << 24);
            QpConnect.init(qps[i], connectOptions());
            rwr.reset().sg(recvSge);
            for (int j = 0; j < cfg.messages(); j++) {
                recvSge[0].set(recvMr.address() + areaOffset(i, j), cfg.size(), recvMr.lkey());
                qps[i].postRecv(rwr.wrId(messageIndex(i, j)));
            }
        }
    }

    private int[] qpNumbers() {
        int[] qpn = new int[qps.length];
        for (int i = 0; i < qps.length; i++) {
            qpn[i] = qps[i].qpNum();
        }
        return qpn;
    }

    private void connectAll(Gid peerGid) {
        for (int i = 0; i < qps.length; i++) {
            connect(qps[i], remoteQpn[i], remotePsn[i], psn[i], peerGid);
        }
    }

    /**
     * INIT (when the QP is in RESET), RTR and RTS. No LIDs are exchanged (0, as on RoCE); of this side's address only
     * the PSN counts, so its GID is left zero rather than queried once a QP.
     */
    private void connect(QueuePair qp, int destQpn, int rqPsn, int sqPsn, Gid dgid) {
        QpConnect.connect(qp, new QpConnect.Address(0, qp.qpNum(), sqPsn, Gid.ZERO),
                new QpConnect.Address(0, destQpn, rqPsn, dgid), connectOptions());
    }

    /** Remote writes only, a GRH from GID index {@value #GID_INDEX} (hop limit 64), the configured MTU and timeouts. */
    private QpConnect.Options connectOptions() {
        return QpConnect.Options.DEFAULTS.withPort(IB_PORT).withAccess(Access.REMOTE_WRITE).withGrh(GID_INDEX, 64)
                .withMtu(cfg.mtu()).withRdAtomic(cfg.rdAtomic()).withMinRnrTimer(MIN_RNR_TIMER)
                .withTimeout(cfg.ackTimeout()).withRetry(RETRY, RETRY);
    }

    /**
     * The UDP source ports the QPs send from (rxe's flow-label ports), one socket each, less the warm-up pair's, whose
     * socket was open before the baseline: the sockets the N QPs added.
     */
    private Set<Integer> sourcePorts() {
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < qps.length; i++) {
            ports.add(Link.sourcePortFor(Link.flowLabel(qps[i].qpNum(), remoteQpn[i])));
        }
        ports.remove(warmUpPort);
        return ports;
    }

    // ------------------------------------------------------------------------------------------------- traffic

    /** Posts every message round-robin over the QPs (within --inflight), polling all along; waits for all. */
    private void traffic(Exchange.Hello peer) throws TimeoutException {
        long deadline = System.nanoTime() + cfg.timeout().toNanos();
        for (int j = 0; j < cfg.messages(); j++) {
            for (int i = 0; i < qps.length; i++) {
                for (int op = WRITE; op <= SEND; op++) {
                    while (cfg.inflight() > 0 && outstanding >= cfg.inflight()) {
                        idle(poll());
                        checkDeadline(deadline);
                    }
                    post(i, j, op, peer);
                }
                if ((i & 63) == 63) {
                    poll();
                }
            }
        }
        while (sendsCompleted < cfg.sends() || recvsCompleted < cfg.receives()) {
            idle(poll());
            checkDeadline(deadline);
        }
    }

    private void post(int i, int j, int op, Exchange.Hello peer) {
        sendSge[0].set(srcMr.address() + sourceOffset(i, j, op), cfg.size(), srcMr.lkey());
        wr.reset().wrId((long) messageIndex(i, j) << 1 | op).sendFlags(SendFlags.SIGNALED).sg(sendSge);
        if (op == WRITE) {
            wr.opcode(WrOpcode.RDMA_WRITE).remote(peer.vaddr() + areaOffset(i, j), peer.rkey());
        } else {
            wr.opcode(WrOpcode.SEND);
        }
        qps[i].postSend(wr);
        outstanding++;
    }

    private int poll() {
        int got = 0;
        int n = sendCq.poll(wcs, POLL_BATCH);
        for (int k = 0; k < n; k++) {
            onSendCompletion(wcs[k]);
        }
        got += n;
        n = recvCq.poll(wcs, POLL_BATCH);
        for (int k = 0; k < n; k++) {
            onRecvCompletion(wcs[k]);
        }
        return got + n;
    }

    private void onSendCompletion(WorkCompletion wc) {
        outstanding--;
        sendsCompleted++;
        long index = wc.wrId() >>> 1;
        int op = (int) (wc.wrId() & 1);
        if (index >= (long) qps.length * cfg.messages()) {
            problem(-1, "send completion with unknown wr_id " + wc.wrId());
            sendFailures++;
            return;
        }
        int i = (int) (index / cfg.messages());
        WcOpcode expected = op == WRITE ? WcOpcode.RDMA_WRITE : WcOpcode.SEND;
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != expected || wc.qpNum() != qps[i].qpNum()) {
            sendFailures++;
            problem(i, "send completion " + wc.wrId() + ": " + wc.status() + " " + wc.opcode() + " on QP 0x"
                    + Integer.toHexString(wc.qpNum()) + ", expected SUCCESS " + expected + " on QP 0x"
                    + Integer.toHexString(qps[i].qpNum()));
            return;
        }
        sendsDone[i]++;
    }

    private void onRecvCompletion(WorkCompletion wc) {
        recvsCompleted++;
        long index = wc.wrId();
        if (index < 0 || index >= (long) qps.length * cfg.messages()) {
            problem(-1, "receive completion with unknown wr_id " + index);
            return;
        }
        int i = (int) (index / cfg.messages());
        int j = (int) (index % cfg.messages());
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.RECV || wc.qpNum() != qps[i].qpNum()
                || wc.byteLen() != cfg.size() || j != recvsDone[i]) {
            problem(i, "receive completion " + index + " (QP " + i + " message " + j + "): " + wc.status() + " "
                    + wc.opcode() + " " + wc.byteLen() + " B on QP 0x" + Integer.toHexString(wc.qpNum())
                    + ", expected SUCCESS RECV " + cfg.size() + " B on QP 0x" + Integer.toHexString(qps[i].qpNum())
                    + " as message " + recvsDone[i]);
            return;
        }
        recvsDone[i]++;
    }

    private void checkDeadline(long deadline) throws TimeoutException {
        if (System.nanoTime() - deadline > 0) {
            int unfinished = 0;
            int first = -1;
            for (int i = 0; i < qps.length; i++) {
                if (sendsDone[i] < 2 * cfg.messages() || recvsDone[i] < cfg.messages()) {
                    unfinished++;
                    first = first < 0 ? i : first;
                }
            }
            throw new TimeoutException(String.format(Locale.ROOT, "traffic did not finish within %d s: %,d of %,d "
                    + "send and %,d of %,d receive completions; %d QPs unfinished (the first: QP %d, %s)",
                    cfg.timeout().toSeconds(), sendsCompleted, cfg.sends(), recvsCompleted, cfg.receives(),
                    unfinished, first, first < 0 ? "-" : qps[first].state()));
        }
    }

    /** After nothing came: spin a while, then park, so that two engines and two pollers share two cores. */
    private void idle(int got) {
        if (got > 0) {
            spins = 0;
        } else if (++spins < SPINS) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(PARK_NS);
        }
    }

    private long[] counters() {
        long[] v = new long[TRAFFIC_COUNTERS.length];
        for (int c = 0; c < v.length; c++) {
            v[c] = ctx.counters().get(TRAFFIC_COUNTERS[c]);
        }
        return v;
    }

    /** Drives the device while a barrier is awaited (needed in invoker mode, where nothing else does). */
    private void drive() {
        ctx.progress();
    }

    // ------------------------------------------------------------------------------------------------- checks

    /** Checks every message the peer wrote and sent; returns how many QPs had wrong or missing data. */
    private int verify(long peerSeed) {
        int badQps = 0;
        for (int i = 0; i < qps.length; i++) {
            if (recvsDone[i] != cfg.messages()) {
                problem(i, "QP " + i + " received " + recvsDone[i] + " of " + cfg.messages() + " SENDs");
            }
            for (int j = 0; j < cfg.messages() && !bad[i]; j++) {
                checkData(i, j, WRITE, writeArea, peerSeed);
                checkData(i, j, SEND, recvArea, peerSeed);
            }
            if (bad[i] || sendsDone[i] != 2 * cfg.messages()) {
                badQps++;
            }
        }
        return badQps;
    }

    private void checkData(int i, int j, int op, MemorySegment area, long peerSeed) {
        long at = Payload.mismatch(area, areaOffset(i, j), cfg.size(), peerSeed, i, j, op);
        if (at >= 0) {
            problem(i, String.format(Locale.ROOT, "QP %d message %d (%s): wrong data at byte %d: 0x%016x",
                    i, j, op == WRITE ? "RDMA WRITE" : "SEND", at,
                    area.get(ValueLayout.JAVA_LONG_UNALIGNED, areaOffset(i, j) + at)));
        }
    }

    private void problem(int qp, String text) {
        if (qp >= 0) {
            bad[qp] = true;
        }
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(text);
        }
    }

    // ------------------------------------------------------------------------------------------------- layout

    private int messageIndex(int i, int j) {
        return i * cfg.messages() + j;
    }

    /** Where message {@code j} of QP {@code i} lands in the write area and the receive area. */
    private long areaOffset(int i, int j) {
        return (long) messageIndex(i, j) * cfg.size();
    }

    /** Where this side keeps the data of message {@code j} of QP {@code i} sent by {@code op}. */
    private long sourceOffset(int i, int j, int op) {
        return ((long) messageIndex(i, j) * 2 + op) * cfg.size();
    }

    private void say(String line) {
        out.println(who + ": " + line);
        out.flush();
    }

    private static double secs(long ns) {
        return ns / 1e9;
    }

    /** Destroys the QPs (timed: the cost of tearing down N QPs), then the rest in libibverbs' order. */
    @Override
    public void close() {
        RuntimeException failure = null;
        int created = 0;
        for (int i = 0; qps != null && i < qps.length; i++) {
            created += qps[i] != null ? 1 : 0;
        }
        if (created > 0) {
            long t0 = System.nanoTime();
            try {
                Resources.closeAll(qps);
            } catch (RuntimeException e) {
                failure = e;
            }
            say(String.format(Locale.ROOT, "destroyed %d QPs in %.2f s", created, secs(System.nanoTime() - t0)));
        }
        try {
            Resources.closeAll(srcMr, writeMr, recvMr, sendCq, recvCq, pd, ctx);
        } catch (RuntimeException e) {
            failure = failure == null ? e : failure;
        }
        if (failure == null) {
            arena.close(); // the device is gone: nothing can reach the buffers any more
        }
        if (failure != null) {
            throw failure;
        }
    }
}
