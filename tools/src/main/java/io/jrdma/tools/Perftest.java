package io.jrdma.tools;

import io.jrdma.examples.Resources;
import io.jrdma.tools.PerftestExchange.BwReport;
import io.jrdma.tools.PerftestExchange.Dest;
import io.jrdma.tools.PerftestOptions.AtomicType;
import io.jrdma.tools.PerftestTool.Verb;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.Verbs;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The perftest tools ({@link PerftestTool}) over the verbs API, one code path for all eight, with perftest 4.5's
 * resources, QP attributes, TCP exchange ({@link PerftestExchange}), iteration loops and output
 * ({@link PerftestReport}), so that either side interoperates with the real binary.
 *
 * <p>Resources, as perftest: one buffer of {@code 2 * qps} regions of {@code max(size, page)} bytes (rounded up to
 * the cache line), the first {@code qps} the QPs' send regions, the others the regions each QP offers its peer
 * (its vaddr) and receives into; one MR over it (LOCAL_WRITE plus REMOTE_WRITE, REMOTE_READ or REMOTE_ATOMIC by
 * verb); a send CQ of {@code tx_depth * qps} and, for SEND, a receive CQ of {@code rx_depth * qps}; RC QPs whose
 * INIT access is the verb's (REMOTE_WRITE|LOCAL_WRITE for SEND); RTR with the peer's QPN and PSN, path MTU the
 * smaller of the two sides', max_dest_rd_atomic our out_reads, min_rnr_timer 12, a GRH (hop limit 255) when GIDs are
 * in use; RTS (the client, and both sides of latency tests) with timeout 14, retry 7, rnr_retry 7 and
 * max_rd_atomic the peer's out_reads. Bandwidth messages up to half a page rotate through the page in cache-line
 * steps, as perftest's.
 *
 * <p>The exchange, after version, page/cache-line size and MTU: one handshake per QP before connecting, one per QP
 * after, one after RTR, then per tool: WRITE/READ/atomic bandwidth — the client runs, both sync, exchange reports
 * (the server prints the client's) and close; SEND bandwidth — a sync before each size (and after each with -a),
 * then close; SEND latency — a sync before each size, then close; WRITE latency — one sync, no close; READ and
 * atomic latency — one sync, the client runs, then close.
 *
 * <p>jrdma additions: {@code --timeout} bounds every wait; every completion's status and opcode is checked, and
 * every receive's length, exiting 1 on a mismatch; {@code --check} fills each QP's regions with a pattern seeded by
 * that QP's PSN and, where both ends are jrdma, verifies the bytes that arrived (and the atomics' results).
 */
final class Perftest implements ToolSession {

    /** sysconf(_SC_PAGESIZE) as perftest's cycle buffer. */
    static final int PAGE = 4096;
    static final int CACHE_LINE = 64;
    /** perftest calculates the peak only up to this many messages (noPeak above). */
    static final long PEAK_MAX_ITERS = 20000;
    /** CTX_POLL_BATCH. */
    private static final int POLL_BATCH = 16;
    private static final long ATOMIC_ADD_VALUE = 1;
    private static final long ATOMIC_SWAP_VALUE = 0;
    private static final long SPIN_POLLS = 20_000;
    private static final long PARK_NS = 20_000;
    private static final long LINGER_NS = 200_000_000;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final PerftestOptions o;
    private final PerftestTool tool;
    private final PrintStream out;
    private final Arena arena = Arena.ofShared();
    private Context context;
    private CompletionChannel channel;
    private ProtectionDomain pd;
    private MemorySegment buf;
    private MemoryRegion mr;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair[] qps;
    private PerftestExchange exchange;
    private Dest[] my;
    private Dest[] rem;
    private boolean withGid;
    private int gidIndex;
    private Mtu mtu;
    private int cycle = PAGE;
    private int cacheLine = CACHE_LINE;
    private int outReads;
    private int txDepth;
    private int rxDepth;
    private int cqMod;
    private long region;
    /** The message size of the current run (changes with -a). */
    private long size;
    private SendWr[][] wrs;
    private RecvWr[] rwrs;
    private long[] recvPosted;
    private final WorkCompletion[] wcs = new WorkCompletion[POLL_BATCH];
    private long lastProgressNs;
    private long idlePolls;
    /** Completions seen (and other progress made), for the timeout message: messages stay constant strings. */
    private long done;
    private int checkFailures;

    private Perftest(PerftestOptions o, PrintStream out) {
        this.o = o;
        this.tool = o.tool;
        this.out = out;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /** Runs {@code tool} with {@code args}; returns the exit status (0 success, 1 failure or bad usage). */
    static int run(PerftestTool tool, String[] args, PrintStream out, PrintStream err) {
        PerftestOptions o;
        try {
            o = PerftestOptions.parse(tool, args);
        } catch (IllegalArgumentException e) {
            err.println(tool.command + ": " + e.getMessage());
            err.println(" Parser function exited with Error (see jrdma " + tool.command + " --help)");
            return 1;
        }
        if (o.help) {
            out.println(o.usage());
            return 0;
        }
        if (o.version) {
            out.println("Version: " + PerftestExchange.VERSION);
            return 0;
        }
        return ToolSession.execute(tool.command, new Perftest(o, out), out, err);
    }

    @Override
    public int run() throws Exception {
        context = Verbs.device(o.ibDev).open();
        DeviceAttr dev = context.queryDevice();
        PortAttr port = context.queryPort(o.ibPort);
        gidIndex = o.gidIndex >= 0 ? o.gidIndex : port.linkLayer() == LinkLayer.INFINIBAND ? -1 : bestGid(port);
        withGid = gidIndex >= 0;
        Gid gid = withGid ? context.queryGid(o.ibPort, gidIndex) : Gid.ZERO;
        outReads = tool.usesOutReads()
                ? Math.min(o.outReads > 0 ? o.outReads : dev.maxQpRdAtom(), dev.maxQpRdAtom()) : 1;
        txDepth = tool.bw ? (int) Math.min(o.txDepth, o.iters) : 1;
        rxDepth = (int) Math.min(o.rxDepth, o.iters);
        cqMod = tool.bw ? Math.min(o.cqMod, txDepth) : 1;
        if (o.duration > 0) {
            cqMod = 1; // jrdma signals every request in duration mode, so that the run drains exactly
        }
        if (!o.client()) {
            out.println();
            out.println("************************************");
            out.println("* Waiting for client to connect... *");
            out.println("************************************");
            out.flush();
        }
        exchange = o.client() ? PerftestExchange.connect(o.serverName, o.port, o.timeoutMs)
                : PerftestExchange.accept(o.port, o.timeoutMs);
        exchange.exchangeVersions();
        int[] sys = exchange.exchangeSysData(cycle, cacheLine);
        cycle = Math.max(cycle, sys[0]);
        cacheLine = Math.max(cacheLine, sys[1]);
        Mtu local = port.activeMtu();
        if (o.mtu > 0 && o.mtu < local.bytes()) {
            local = Mtu.ofBytes(o.mtu);
        }
        int remoteMtu = exchange.exchangeMtu(local.code());
        mtu = remoteMtu >= Mtu.MTU_256.code() && remoteMtu < local.code() ? Mtu.of(remoteMtu) : local;
        out.println(PerftestReport.testInfo(o, context.device().name(), mtu.bytes(), gidIndex, txDepth, rxDepth,
                cqMod, outReads, o.inlineSize));
        out.flush();

        createResources(port, gid);
        for (int i = 0; i < qps.length; i++) {
            rem[i] = exchange.handshake(my[i], withGid);
        }
        if (withGid && my[0].gid().isIpv4Mapped() != rem[0].gid().isIpv4Mapped()) {
            throw new IllegalStateException("Found Incompatibility issue with GID types. Please Try to use a "
                    + "different IP version.");
        }
        for (int i = 0; i < qps.length; i++) {
            connect(i);
        }
        size = o.all ? 2 : o.size;
        if (tool.verb == Verb.SEND && (!tool.bw || !o.client())) {
            postReceives();
        }
        for (Dest d : my) {
            out.println(PerftestReport.address(true, d, tool.verb, withGid));
        }
        for (int i = 0; i < qps.length; i++) {
            rem[i] = exchange.handshake(my[i], withGid);
            out.println(PerftestReport.address(false, rem[i], tool.verb, withGid));
        }
        exchange.handshake(my[0], withGid); // after RTR
        out.println(PerftestReport.RESULT_LINE);
        boolean table = tool.bw || tool.verb == Verb.SEND || tool.verb == Verb.WRITE || o.client();
        if (table) {
            out.println(tool.bw ? PerftestReport.bwHeader(o.reportGbits) : PerftestReport.LAT_HEADER);
        }
        out.flush();
        if (tool.bw) {
            if (tool.verb == Verb.SEND) {
                sendBw();
            } else if (o.client()) {
                bwClient();
            } else {
                bwServer();
            }
        } else {
            lat();
        }
        if (checkFailures > 0) {
            out.flush();
            throw new IllegalStateException("--check: " + checkFailures + " byte(s) or operand(s) differ from what"
                    + " the peer sent");
        }
        return 0;
    }

    /** perftest's get_best_gid_index on Ethernet: the first IPv4-mapped (RoCE v2) GID, else GID 0. */
    private int bestGid(PortAttr port) {
        for (int i = 0; i < port.gidTblLen(); i++) {
            Gid g = context.queryGid(o.ibPort, i);
            if (g.isIpv4Mapped()) {
                return i;
            }
        }
        return 0;
    }

    private void createResources(PortAttr port, Gid gid) {
        int n = o.numQps;
        region = inc(Math.max(o.size, cycle), cacheLine);
        buf = arena.allocate(region * 2 * n, cycle);
        if (o.events) {
            channel = context.createCompletionChannel();
        }
        pd = context.allocPd();
        int access = Access.LOCAL_WRITE | switch (tool.verb) {
            case SEND -> 0;
            case WRITE -> Access.REMOTE_WRITE;
            case READ -> Access.REMOTE_READ;
            case ATOMIC -> Access.REMOTE_ATOMIC;
        };
        mr = pd.registerMemory(buf, access);
        sendCq = context.createCq(txDepth * n, channel);
        if (tool.verb == Verb.SEND) {
            recvCq = context.createCq(rxDepth * n, channel);
        }
        qps = new QueuePair[n];
        my = new Dest[n];
        rem = new Dest[n];
        int qpAccess = switch (tool.verb) {
            case SEND -> Access.REMOTE_WRITE | Access.LOCAL_WRITE;
            case WRITE -> Access.REMOTE_WRITE;
            case READ -> Access.REMOTE_READ;
            case ATOMIC -> Access.REMOTE_ATOMIC;
        };
        for (int i = 0; i < n; i++) {
            qps[i] = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(sendCq)
                    .recvCq(recvCq != null ? recvCq : sendCq).cap(new QpCap(txDepth, rxDepth, 1, 1, o.inlineSize)));
            qps[i].modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(o.ibPort).qpAccessFlags(qpAccess),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            int psn = ThreadLocalRandom.current().nextInt(1 << 24);
            my[i] = new Dest(port.lid(), outReads, qps[i].qpNum(), psn, mr.rkey(), buf.address() + (n + i) * region,
                    gid, 0);
            fillPattern(i, psn);
        }
    }

    /** RTR, and RTS on the client and on both sides of latency tests (ctx_connect). */
    private void connect(int i) {
        Dest d = rem[i];
        AhAttr av = new AhAttr().dlid(d.lid()).sl(o.sl).srcPathBits(0).portNum(o.ibPort);
        if (withGid) {
            av.isGlobal(true).dgid(d.gid()).sgidIndex(gidIndex).hopLimit(0xff).trafficClass(0);
        }
        qps[i].modify(new QpAttr().qpState(QpState.RTR).ahAttr(av).pathMtu(mtu).destQpNum(d.qpn()).rqPsn(d.psn())
                        .maxDestRdAtomic(my[i].outReads()).minRnrTimer(12),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        if (!tool.bw || o.client()) {
            int maxRd = Math.min(d.outReads(), context.queryDevice().maxQpInitRdAtom());
            qps[i].modify(new QpAttr().qpState(QpState.RTS).sqPsn(my[i].psn()).timeout(o.qpTimeout).retryCnt(7)
                            .rnrRetry(7).maxRdAtomic(Math.max(1, maxRd)),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                            QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
        }
    }

    // ---------------------------------------------------------------- buffer layout and pattern

    private static long inc(long v, long to) {
        return (v + to - 1) / to * to;
    }

    private long sendBase(int qp) {
        return (long) qp * region;
    }

    private long recvBase(int qp) {
        return (qps.length + (long) qp) * region;
    }

    /** The offset, inside its region, of a QP's k-th message of this run (perftest's address rotation). */
    private long offset(long k) {
        long stride = inc(size, cacheLine);
        if (!tool.bw || size > cycle / 2) {
            return 0;
        }
        long slots = cycle / stride;
        long index = o.postList == 1 ? k : k % o.postList;
        return index % slots * stride;
    }

    /** The pattern word at {@code wordIndex} of a region owned by a QP whose PSN is {@code seed}. */
    static long patternWord(int seed, long wordIndex) {
        long z = (wordIndex + 1) * 0x9E3779B97F4A7C15L + seed * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static byte patternByte(int seed, long off) {
        return (byte) (patternWord(seed, off >>> 3) >>> ((off & 7) * 8));
    }

    /**
     * Fills QP {@code qp}'s two regions with the pattern of its PSN; RDMA WRITE latency keeps perftest's zeroed
     * receive region, whose last message byte it polls.
     */
    private void fillPattern(int qp, int seed) {
        for (long base : new long[] {sendBase(qp), recvBase(qp)}) {
            boolean zero = tool.verb == Verb.WRITE && !tool.bw && base == recvBase(qp);
            for (long w = 0; w < region / 8; w++) {
                buf.set(LONG_LE, base + w * 8, zero ? 0 : patternWord(seed, w));
            }
        }
    }

    /** --check: the bytes of {@code base + [from, to)} against the pattern of {@code seed}. */
    private void checkBytes(long base, long from, long to, int seed, String what) {
        for (long off = from; off < to; off++) {
            byte got = buf.get(ValueLayout.JAVA_BYTE, base + off);
            byte want = patternByte(seed, off);
            if (got != want) {
                if (checkFailures < 5) {
                    out.printf(Locale.ROOT, " --check: %s: byte %d is 0x%02x, expected 0x%02x%n", what, off,
                            got & 0xff, want & 0xff);
                }
                checkFailures++;
            }
        }
    }

    /** --check of a run's messages that landed in {@code qp}'s region at {@code base}, sent by the peer {@code seed}. */
    private void checkMessages(int qp, long base, int seed, long messages, String what) {
        long last = -1;
        for (long k = 0; k < messages; k++) {
            long off = offset(k);
            if (off <= last) {
                break; // the rotation wrapped: every slot has been checked
            }
            checkBytes(base, off, off + size, seed, what + " (QP " + qp + ")");
            last = off;
        }
    }

    // ---------------------------------------------------------------- work requests

    /** ctx_set_send_wqes: one chain of post_list requests per QP, sge from the QP's send region. */
    private void setSendWqes() {
        wrs = new SendWr[qps.length][o.postList];
        WrOpcode op = switch (tool.verb) {
            case SEND -> WrOpcode.SEND;
            case WRITE -> WrOpcode.RDMA_WRITE;
            case READ -> WrOpcode.RDMA_READ;
            case ATOMIC -> o.atomicType == AtomicType.FETCH_AND_ADD ? WrOpcode.ATOMIC_FETCH_AND_ADD
                    : WrOpcode.ATOMIC_CMP_AND_SWP;
        };
        int flags = (tool.verb == Verb.SEND || tool.verb == Verb.WRITE) && size <= o.inlineSize
                ? SendFlags.INLINE : 0;
        for (int i = 0; i < qps.length; i++) {
            for (int j = 0; j < o.postList; j++) {
                long off = offset(j);
                SendWr wr = new SendWr().wrId(i).opcode(op)
                        .sg(new Sge(buf.address() + sendBase(i) + off, (int) size, mr.lkey()))
                        .sendFlags(flags | (j == o.postList - 1 ? SendFlags.SIGNALED : 0));
                if (tool.verb == Verb.WRITE || tool.verb == Verb.READ) {
                    wr.remote(rem[i].vaddr() + off, rem[i].rkey());
                } else if (tool.verb == Verb.ATOMIC) {
                    wr.remote(rem[i].vaddr() + off, rem[i].rkey());
                    if (o.atomicType == AtomicType.FETCH_AND_ADD) {
                        wr.compareAdd(ATOMIC_ADD_VALUE);
                    } else {
                        wr.compareAdd(0).swap(ATOMIC_SWAP_VALUE);
                    }
                }
                wrs[i][j] = wr;
                if (j > 0) {
                    wrs[i][j - 1].next(wr);
                }
            }
        }
    }

    /** Points QP {@code qp}'s single request at its k-th message's offsets (post_list 1). */
    private void aim(int qp, long k) {
        SendWr wr = wrs[qp][0];
        long off = offset(k);
        wr.sgList()[0].addr(buf.address() + sendBase(qp) + off);
        if (tool.verb != Verb.SEND) {
            wr.remoteAddr(rem[qp].vaddr() + off);
        }
    }

    /** ctx_set_recv_wqes: rx_depth receives per QP for the current size, into the QP's receive region. */
    private void postReceives() {
        if (rwrs == null) {
            rwrs = new RecvWr[qps.length];
            recvPosted = new long[qps.length];
            for (int i = 0; i < qps.length; i++) {
                rwrs[i] = new RecvWr().wrId(i).sg(new Sge(0, 0, mr.lkey()));
            }
        }
        for (int i = 0; i < qps.length; i++) {
            recvPosted[i] = 0;
            for (int j = 0; j < rxDepth; j++) {
                postReceive(i);
            }
        }
    }

    private void postReceive(int qp) {
        Sge sge = rwrs[qp].sgList()[0];
        sge.addr(buf.address() + recvBase(qp) + offset(recvPosted[qp])).length((int) size);
        qps[qp].postRecv(rwrs[qp]);
        recvPosted[qp]++;
    }

    // ---------------------------------------------------------------- waiting

    private void progressed() {
        idlePolls = 0;
        lastProgressNs = System.nanoTime();
        done++;
    }

    /** Nothing to do this round: drive the device, back off, and fail after --timeout without progress. */
    private void idle(String what) throws TimeoutException {
        context.progress();
        if (o.timeoutMs > 0 && System.nanoTime() - lastProgressNs > o.timeoutMs * 1_000_000L) {
            throw new TimeoutException("no progress within " + o.timeoutMs + " ms while " + what + " (" + done
                    + " done)");
        }
        if (++idlePolls > SPIN_POLLS) {
            LockSupport.parkNanos(PARK_NS);
        } else {
            Thread.onSpinWait();
        }
    }

    /** Polls up to {@code max} completions; with -e, sleeps on the channel while there are none. */
    private int poll(CompletionQueue cq, int max, String what) throws TimeoutException {
        while (true) {
            int ne = cq.poll(wcs, max);
            if (ne > 0) {
                progressed();
                return ne;
            }
            if (channel != null) {
                cq.requestNotify(false);
                ne = cq.poll(wcs, max);
                if (ne > 0) {
                    progressed();
                    return ne;
                }
                CompletionQueue ev = channel.awaitEvent(o.timeoutMs > 0 ? Duration.ofMillis(o.timeoutMs)
                        : Duration.ofHours(1));
                if (ev == null) {
                    if (o.timeoutMs > 0) {
                        throw new TimeoutException("no completion event within " + o.timeoutMs + " ms while "
                                + what);
                    }
                    continue;
                }
                ev.ackEvents(1);
                continue;
            }
            idle(what);
        }
    }

    private void expect(WorkCompletion wc, WcOpcode opcode, long byteLen, String side, long scnt, long ccnt) {
        if (!wc.isSuccess()) {
            throw new IllegalStateException(String.format(Locale.ROOT, "Completion with error at %s: Failed status"
                    + " %d (%s): wr_id %d, scnt=%d, ccnt=%d", side, wc.status().code(), wc.status().message(),
                    wc.wrId(), scnt, ccnt));
        }
        if (wc.opcode() != opcode || (byteLen >= 0 && wc.byteLen() != byteLen)) {
            throw new IllegalStateException("unexpected completion at " + side + ": " + wc + " (expected " + opcode
                    + (byteLen >= 0 ? ", " + byteLen + " bytes" : "") + ")");
        }
    }

    private WcOpcode sendOpcode() {
        return switch (tool.verb) {
            case SEND -> WcOpcode.SEND;
            case WRITE -> WcOpcode.RDMA_WRITE;
            case READ -> WcOpcode.RDMA_READ;
            case ATOMIC -> o.atomicType == AtomicType.FETCH_AND_ADD ? WcOpcode.FETCH_ADD : WcOpcode.COMP_SWAP;
        };
    }

    // ---------------------------------------------------------------- bandwidth

    private long[] sizes() {
        if (!o.all) {
            return new long[] {o.size};
        }
        long[] s = new long[PerftestOptions.ALL_SIZES_LOG_MAX];
        for (int i = 0; i < s.length; i++) {
            s[i] = 1L << (i + 1);
        }
        return s;
    }

    private boolean noPeak() {
        return o.noPeak || o.duration > 0 || o.iters * qps.length > PEAK_MAX_ITERS;
    }

    /** RDMA WRITE/READ/atomic bandwidth, client: run every size, sync, send the last report, close. */
    private void bwClient() throws Exception {
        BwReport last = BwReport.EMPTY;
        for (long s : sizes()) {
            size = s;
            setSendWqes();
            last = runBw();
            out.println(PerftestReport.bwRow(last, o.reportGbits));
            out.flush();
            checkBw();
        }
        out.println(PerftestReport.RESULT_LINE);
        out.flush();
        exchange.handshake(my[0], withGid);
        exchange.exchangeReports(last);
        exchange.closeConnection(my[0], withGid);
    }

    /** RDMA WRITE/READ/atomic bandwidth, server: wait for the client, print its report, close. */
    private void bwServer() throws Exception {
        exchange.handshake(my[0], withGid);
        size = o.all ? 1L << PerftestOptions.ALL_SIZES_LOG_MAX : o.size;
        if (o.check && !o.all) {
            checkBwTarget();
        }
        BwReport remote = exchange.exchangeReports(BwReport.EMPTY);
        out.println(PerftestReport.bwRow(remote, o.reportGbits));
        out.println(PerftestReport.RESULT_LINE);
        out.flush();
        exchange.closeConnection(my[0], withGid);
    }

    /** SEND bandwidth, both sides: a sync before each size (and one after each with -a), then close. */
    private void sendBw() throws Exception {
        boolean first = true;
        for (long s : sizes()) {
            size = s;
            if (o.client()) {
                setSendWqes();
            } else if (!first) {
                postReceives();
            }
            first = false;
            exchange.handshake(my[0], withGid);
            BwReport r = o.client() ? runBw() : runBwServer();
            out.println(PerftestReport.bwRow(r, o.reportGbits));
            out.flush();
            if (!o.client() && o.check) {
                for (int i = 0; i < qps.length; i++) {
                    checkMessages(i, recvBase(i), rem[i].psn(), o.iters, "received message");
                }
            }
            if (o.all) {
                exchange.handshake(my[0], withGid);
            }
        }
        out.println(PerftestReport.RESULT_LINE);
        out.flush();
        exchange.closeConnection(my[0], withGid);
    }

    /** run_iter_bw: keep tx_depth requests in flight per QP, signal every cq_mod-th, count completions. */
    private BwReport runBw() throws Exception {
        int n = qps.length;
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
        progressed();
        if (noPeak) {
            posted[0] = System.nanoTime();
        }
        while (deadlineNs == 0 ? totScnt < total || totCcnt < total : !timeUp || totCcnt < totScnt) {
            boolean busy = false;
            if (deadlineNs != 0 && !timeUp && System.nanoTime() - deadlineNs >= 0) {
                timeUp = true;
            }
            for (int i = 0; i < n; i++) {
                while ((deadlineNs == 0 ? scnt[i] < iters : !timeUp) && scnt[i] - ccnt[i] < txDepth) {
                    SendWr wr = wrs[i][0];
                    if (o.postList == 1) {
                        aim(i, scnt[i]);
                        boolean signaled = cqMod == 1 || scnt[i] % cqMod == cqMod - 1
                                || (deadlineNs == 0 && scnt[i] == iters - 1);
                        wr.sendFlags(signaled ? wr.sendFlags() | SendFlags.SIGNALED
                                : wr.sendFlags() & ~SendFlags.SIGNALED);
                    }
                    if (!noPeak) {
                        posted[(int) totScnt] = System.nanoTime();
                    }
                    qps[i].postSend(wr);
                    scnt[i] += o.postList;
                    totScnt += o.postList;
                    busy = true;
                }
            }
            if (totCcnt < totScnt) {
                int ne = sendCq.poll(wcs, POLL_BATCH);
                if (ne == 0 && !busy && channel != null) {
                    ne = poll(sendCq, POLL_BATCH, "waiting for send completions"); // sleeps on the channel
                }
                for (int k = 0; k < ne; k++) {
                    expect(wcs[k], sendOpcode(), -1, "client", totScnt, totCcnt);
                    int qp = (int) wcs[k].wrId();
                    ccnt[qp] += cqMod;
                    totCcnt += cqMod;
                    if (!noPeak) {
                        completed[(int) Math.min(totCcnt, total) - 1] = System.nanoTime();
                    }
                }
                if (ne > 0) {
                    busy = true;
                    progressed();
                }
            }
            if (!busy) {
                idle("waiting for send completions");
            }
        }
        if (noPeak) {
            completed[0] = System.nanoTime();
        }
        long messages = deadlineNs == 0 ? total : totCcnt;
        return PerftestReport.bw(size, messages, posted, completed, noPeak, o.reportGbits);
    }

    /** run_iter_bw_server: count iters receives per QP, reposting while more are due; time first to last. */
    private BwReport runBwServer() throws Exception {
        int n = qps.length;
        long total = o.iters * n;
        long[] rcnt = new long[n];
        long got = 0;
        long first = 0;
        progressed();
        while (got < total) {
            int ne = poll(recvCq, POLL_BATCH, "waiting for receives");
            if (first == 0) {
                first = System.nanoTime();
            }
            for (int k = 0; k < ne; k++) {
                expect(wcs[k], WcOpcode.RECV, size, "server", got, got);
                int qp = (int) wcs[k].wrId();
                rcnt[qp]++;
                got++;
                if (rcnt[qp] + rxDepth <= o.iters) {
                    postReceive(qp);
                }
            }
        }
        long end = System.nanoTime();
        return PerftestReport.bw(size, total, new long[] {first}, new long[] {end}, true, o.reportGbits);
    }

    /** --check on the client after a bandwidth run: RDMA READ data and atomic results in its send regions. */
    private void checkBw() {
        if (!o.check) {
            return;
        }
        for (int i = 0; i < qps.length; i++) {
            if (tool.verb == Verb.READ) {
                checkMessages(i, sendBase(i), rem[i].psn(), o.iters, "data read");
            } else if (tool.verb == Verb.ATOMIC) {
                checkAtomicResults(i, o.iters);
            }
        }
    }

    /**
     * --check of atomic results on the client: each slot of the send region holds the original value the last
     * operation on that slot returned (its initial value plus the adds before it; unchanged for CMP_AND_SWAP, whose
     * compare value 0 does not match the pattern... or swaps 0 for 0).
     */
    private void checkAtomicResults(int qp, long ops) {
        long[] counts = slotCounts(ops);
        for (int s = 0; s < counts.length; s++) {
            if (counts[s] == 0) {
                continue;
            }
            long off = (long) s * inc(size, cacheLine);
            long initial = patternWord(rem[qp].psn(), off >>> 3);
            long want = o.atomicType == AtomicType.FETCH_AND_ADD ? initial + (counts[s] - 1) * ATOMIC_ADD_VALUE
                    : initial;
            long got = buf.get(LONG_LE, sendBase(qp) + off);
            if (got != want) {
                out.printf(Locale.ROOT, " --check: atomic result at slot %d (QP %d) is 0x%x, expected 0x%x%n", s, qp,
                        got, want);
                checkFailures++;
            }
        }
    }

    /** --check on the server of RDMA WRITE and atomic bandwidth: what the client's requests left in its regions. */
    private void checkBwTarget() {
        for (int i = 0; i < qps.length; i++) {
            if (tool.verb == Verb.WRITE) {
                checkMessages(i, recvBase(i), rem[i].psn(), o.iters, "data written");
            } else if (tool.verb == Verb.ATOMIC) {
                long[] counts = slotCounts(o.iters);
                for (int s = 0; s < counts.length; s++) {
                    long off = (long) s * inc(size, cacheLine);
                    long initial = patternWord(my[i].psn(), off >>> 3);
                    long want = o.atomicType == AtomicType.FETCH_AND_ADD ? initial + counts[s] * ATOMIC_ADD_VALUE
                            : initial;
                    long got = buf.get(LONG_LE, recvBase(i) + off);
                    if (got != want) {
                        out.printf(Locale.ROOT, " --check: atomic target at slot %d (QP %d) is 0x%x, expected 0x%x%n",
                                s, i, got, want);
                        checkFailures++;
                    }
                }
            }
        }
    }

    /** How many of a QP's first {@code ops} messages went to each slot of the rotation. */
    private long[] slotCounts(long ops) {
        long stride = inc(size, cacheLine);
        long[] counts = new long[(int) (tool.bw && size <= cycle / 2 ? cycle / stride : 1)];
        for (long k = 0; k < ops; k++) {
            counts[(int) (offset(k) / stride)]++;
        }
        return counts;
    }

    // ---------------------------------------------------------------- latency

    private void lat() throws Exception {
        Verb verb = tool.verb;
        boolean runs = verb == Verb.SEND || verb == Verb.WRITE || o.client();
        boolean first = true;
        if (verb != Verb.SEND) {
            exchange.handshake(my[0], withGid); // the sync before the run
        }
        for (long s : runs ? sizes() : new long[0]) {
            size = s;
            setSendWqes();
            if (verb == Verb.SEND) {
                if (!first) {
                    postReceives();
                }
                exchange.handshake(my[0], withGid);
            }
            first = false;
            long[] posted = new long[(int) o.iters];
            switch (verb) {
                case SEND -> runLatSend(posted);
                case WRITE -> runLatWrite(posted);
                default -> runLat(posted);
            }
            out.println(PerftestReport.latRow(size, (int) o.iters, posted, verb));
            out.flush();
        }
        if (runs) {
            out.println(PerftestReport.RESULT_LINE);
            out.flush();
            checkLat();
        }
        if (verb != Verb.WRITE) {
            exchange.closeConnection(my[0], withGid);
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
            context.progress();
            Thread.sleep(1);
        }
    }

    /** run_iter_lat_send: the client sends first; each side answers every receive with a send. */
    private void runLatSend(long[] posted) throws Exception {
        long iters = o.iters;
        long scnt = 0;
        long rcnt = 0;
        SendWr wr = wrs[0][0];
        wr.sendFlags(wr.sendFlags() | SendFlags.SIGNALED);
        progressed();
        while (scnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && o.client())) {
                poll(recvCq, 1, "waiting for a receive");
                expect(wcs[0], WcOpcode.RECV, size, o.client() ? "client" : "server", scnt, rcnt);
                rcnt++;
                if (rcnt + rxDepth <= iters) {
                    postReceive(0);
                }
            }
            if (scnt < iters) {
                posted[(int) scnt] = System.nanoTime();
                scnt++;
                qps[0].postSend(wr);
                poll(sendCq, 1, "waiting for a send completion");
                expect(wcs[0], WcOpcode.SEND, -1, o.client() ? "client" : "server", scnt, rcnt);
            }
        }
    }

    /**
     * run_iter_lat_write: each side writes the whole message to the peer with its count in the last byte, then
     * polls the last byte of its own receive region for the peer's next count; the server writes first.
     */
    private void runLatWrite(long[] posted) throws Exception {
        long iters = o.iters;
        long postByte = sendBase(0) + size - 1;
        long pollByte = recvBase(0) + size - 1;
        SendWr wr = wrs[0][0];
        wr.sendFlags(wr.sendFlags() | SendFlags.SIGNALED);
        long scnt = 0;
        long ccnt = 0;
        long rcnt = 0;
        progressed();
        while (scnt < iters || ccnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && !o.client())) {
                rcnt++;
                while ((byte) BYTE.getVolatile(buf, pollByte) != (byte) rcnt) {
                    idle("waiting for the peer's next write");
                }
                progressed();
            }
            if (scnt < iters) {
                posted[(int) scnt] = System.nanoTime();
                BYTE.setVolatile(buf, postByte, (byte) ++scnt);
                qps[0].postSend(wr);
            }
            if (ccnt < iters) {
                poll(sendCq, 1, "waiting for a write completion");
                expect(wcs[0], WcOpcode.RDMA_WRITE, -1, o.client() ? "client" : "server", scnt, ccnt);
                ccnt++;
            }
        }
    }

    /** run_iter_lat: one RDMA READ or atomic at a time, each waited for. */
    private void runLat(long[] posted) throws Exception {
        SendWr wr = wrs[0][0];
        wr.sendFlags(wr.sendFlags() | SendFlags.SIGNALED);
        progressed();
        for (int scnt = 0; scnt < o.iters; scnt++) {
            posted[scnt] = System.nanoTime();
            qps[0].postSend(wr);
            poll(sendCq, 1, "waiting for a completion");
            expect(wcs[0], sendOpcode(), -1, "client", scnt + 1, scnt);
        }
    }

    /** --check after a latency run: the last message that arrived (or the atomic operand) against the pattern. */
    private void checkLat() {
        if (!o.check) {
            return;
        }
        switch (tool.verb) {
            case SEND -> checkBytes(recvBase(0), 0, size, rem[0].psn(), "received message");
            case WRITE -> {
                checkBytes(recvBase(0), 0, size - 1, rem[0].psn(), "data written");
                byte last = buf.get(ValueLayout.JAVA_BYTE, recvBase(0) + size - 1);
                if (last != (byte) o.iters) {
                    out.printf(Locale.ROOT, " --check: the last count written is %d, expected %d%n", last & 0xff,
                            o.iters & 0xff);
                    checkFailures++;
                }
            }
            case READ -> checkBytes(sendBase(0), 0, size, rem[0].psn(), "data read");
            case ATOMIC -> checkAtomicResults(0, o.iters);
        }
    }

    // ---------------------------------------------------------------- teardown

    @Override
    public void close() {
        RuntimeException failure = null;
        if (exchange != null) {
            try {
                exchange.close();
            } catch (IOException e) {
                failure = new IllegalStateException(e);
            }
        }
        try {
            Resources.closeAll(qps, sendCq, recvCq, mr, pd, channel, context);
        } catch (RuntimeException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
        if (failure != null) {
            throw failure;
        }
        arena.close();
    }
}
