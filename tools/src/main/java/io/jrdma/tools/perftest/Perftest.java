package io.jrdma.tools.perftest;

import io.jrdma.cm.CmId;
import io.jrdma.examples.QpConnect;
import io.jrdma.examples.Resources;
import io.jrdma.tools.ToolSession;
import io.jrdma.tools.Rehearsal;
import io.jrdma.tools.perftest.Exchange.Dest;
import io.jrdma.tools.perftest.Tool.Verb;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
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
import io.jrdma.verbs.Verbs;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * The perftest tools ({@link Tool}) over the verbs API, one code path for all eight, with perftest 4.5's
 * resources, QP attributes, TCP exchange ({@link Exchange}), iteration loops and output
 * ({@link Report}), so that either side interoperates with the real binary.
 *
 * <p>Resources, as perftest: one buffer of {@code 2 * qps} regions of {@code max(size, page)} bytes (rounded up to
 * the cache line), the first {@code qps} the QPs' send regions, the others the regions each QP offers its peer
 * (its vaddr) and receives into; one MR over it (LOCAL_WRITE plus REMOTE_WRITE, REMOTE_READ or REMOTE_ATOMIC by
 * verb); a send CQ of {@code tx_depth * qps} and, for SEND, a receive CQ of {@code rx_depth * qps}; RC QPs whose
 * INIT access is the verb's (REMOTE_WRITE|LOCAL_WRITE for SEND); RTR with the peer's QPN and PSN, path MTU the
 * smaller of the two sides', max_dest_rd_atomic our out_reads, min_rnr_timer 12, a GRH (hop limit 255) when GIDs are
 * in use; RTS (the client, and both sides of latency tests) with timeout 14, retry 7, rnr_retry 7 and
 * max_rd_atomic the peer's out_reads. Bandwidth messages up to half a page rotate through the page in cache-line
 * steps, as perftest's. {@code -c UC}: UC QPs, whose RTR and RTS carry only the path (and PSNs). {@code -c UD}: UD QPs
 * with Q_Key 0x11111111 (INIT), RTR by state alone, RTS and an address handle to the peer (the GRH's as above) on
 * the sides that send; each send names the peer's QPN from the handshake and that Q_Key; each receive is 40 bytes
 * longer and starts 40 bytes before its message's cache line, for the GRH (one cache line more in the buffer); a
 * message may not exceed the path MTU ({@link Options#limitUdSize}).
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
 *
 * <p>This class sets the run up (device, exchange, resources, connection) and tears it down; the loops are
 * {@link Bandwidth}'s and {@link Latency}'s, over the {@link DataPath} they share.
 */
final class Perftest implements ToolSession {

    /** sysconf(_SC_PAGESIZE) as perftest's cycle buffer. */
    static final int PAGE = 4096;
    static final int CACHE_LINE = 64;
    /** perftest's DEF_QKEY: the Q_Key of every UD QP, and of every UD send (it is not exchanged). */
    static final int UD_QKEY = 0x11111111;
    /** The message size a rehearsal of {@code -a} (every size) runs. */
    private static final long REHEARSAL_ALL_SIZE = 1 << 16;

    private final Options o;
    private final Tool tool;
    private final PrintStream out;
    private final PrintStream err;
    private final Arena arena = Arena.ofShared();
    private Context context;
    private CompletionChannel channel;
    private ProtectionDomain pd;
    private MemoryRegion mr;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair[] qps;
    /** UD: the address handle of each QP's peer, on the sides that send (null elsewhere). */
    private AddressHandle[] ahs;
    private Exchange exchange;
    /** -R: the test QPs' CM connections (null otherwise). */
    private CmConnections cm;
    /** -R, UD: the peers' QPNs and Q_Keys the CM reported. */
    private int[] udQpn;
    private int[] udQkey;
    /** The device the resources live on: {@link #context}, or with -R the CM id's. */
    private Context resCtx;
    private MemorySegment buf;
    private long region;
    private DataPath data;
    private boolean withGid;
    private int gidIndex;
    private Mtu mtu;
    private int cycle = PAGE;
    private int cacheLine = CACHE_LINE;
    private int outReads;
    private int txDepth;
    private int rxDepth;
    private int cqMod;

    /** A context opened elsewhere that this run uses and leaves open (a {@link Rehearsal}), or null. */
    private final Context shared;

    private Perftest(Options o, PrintStream out, PrintStream err) {
        this(o, out, err, null);
    }

    /** A run on {@code shared} (null: the run opens {@code o}'s device, and closes it at the end). */
    Perftest(Options o, PrintStream out, PrintStream err, Context shared) {
        this.o = o;
        this.tool = o.tool;
        this.out = out;
        this.err = err;
        this.shared = shared;
    }

    /** Runs {@code tool} with {@code args}; returns the exit status (0 success, 1 failure or bad usage). */
    static int run(Tool tool, String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = Options.parse(tool, args);
        } catch (Options.Exit e) {
            err.println(e.getMessage());
            return 1;
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
            out.println("Version: " + Exchange.VERSION);
            return 0;
        }
        return ToolSession.execute(tool.command, new Perftest(o, out, err), out, err);
    }

    @Override
    public int run() throws Exception {
        context = shared != null ? shared : Verbs.device(o.ibDev).open();
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
        if (shared == null) {
            long size = o.all ? REHEARSAL_ALL_SIZE : o.size;
            boolean rehearsable = o.connection == QpType.RC && !o.rdmaCm;
            Rehearsal.run(context, o.ibPort, gidIndex, size, rehearsable, err, (ctx, server, tcpPort, iters, quiet)
                    -> new Perftest(o.rehearsal(server, tcpPort, iters, size, ctx), quiet, quiet, ctx));
        }
        if (!o.client()) {
            out.println();
            out.println("************************************");
            out.println("* Waiting for client to connect... *");
            out.println("************************************");
            out.flush();
        }
        if (o.rdmaCm) {
            exchange = o.client() ? Exchange.connectCm(o.serverName, o.port, o.timeoutMs)
                    : Exchange.acceptCm(o.port, o.timeoutMs);
        } else {
            exchange = o.client() ? Exchange.connect(o.serverName, o.port, o.timeoutMs)
                    : Exchange.accept(o.port, o.timeoutMs);
        }
        if (context.needsProgress()) {
            exchange.driveWhileWaiting(context::progress); // an invoker-mode device answers its peer meanwhile
        }
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
        String udWarning;
        try {
            udWarning = o.limitUdSize(mtu.bytes());
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(" Couldn't get context for the device");
            return 1;
        }
        if (!udWarning.isEmpty()) {
            err.println(udWarning);
        }
        if (o.rdmaCm) {
            qps = new QueuePair[o.numQps];
            ahs = new AddressHandle[o.numQps];
            cm = new CmConnections(o, outReads);
            cm.connect(exchange, new Dest(0, 0, 0, 0, 0, 0, Gid.ZERO, 0), withGid, new CmHost());
            exchange.binaryGidIndex(gidIndex);
            finishResources(port, gid);
        } else {
            makeResources(context);
            for (int i = 0; i < o.numQps; i++) {
                makeQp(i, null);
            }
            finishResources(port, gid);
        }
        out.println(Report.testInfo(o, context.device().name(), mtu.bytes(), gidIndex, txDepth, rxDepth,
                cqMod, outReads, o.inlineSize));
        out.flush();
        for (int i = 0; i < qps.length; i++) {
            data.exchangeAddress(i);
        }
        if (!o.rdmaCm && withGid
                && data.local(0).gid().isIpv4Mapped() != data.remote(0).gid().isIpv4Mapped()) {
            throw new IllegalStateException("Found Incompatibility issue with GID types. Please Try to use a "
                    + "different IP version.");
        }
        for (int i = 0; i < qps.length && !o.rdmaCm; i++) {
            connect(i);
        }
        for (int i = 0; i < qps.length && o.rdmaCm; i++) {
            if (ahs[i] != null) {
                data.addressHandle(i, ahs[i]);
                data.udPeer(i, udQpn[i], udQkey[i]);
            }
        }
        data.size(o.all ? 2 : o.size);
        if (tool.verb == Verb.SEND && (!tool.bw || !o.client())) {
            data.postReceives();
        }
        // The sync after RTR: ib_send_bw's comes before the second round of addresses, the other tools' after it.
        // The items pair by their order, so with -q 2 or more a sync out of place hands each QP the address of the
        // one before it.
        boolean syncFirst = tool.bw && tool.verb == Verb.SEND;
        if (syncFirst) {
            data.sync();
        }
        for (int i = 0; i < qps.length; i++) {
            out.println(Report.address(true, data.local(i), tool.verb, withGid));
        }
        for (int i = 0; i < qps.length; i++) {
            out.println(Report.address(false, data.exchangeAddress(i), tool.verb, withGid));
        }
        if (!syncFirst) {
            data.sync();
        }
        out.println(Report.RESULT_LINE);
        boolean table = tool.bw || tool.verb == Verb.SEND || tool.verb == Verb.WRITE || o.client();
        if (table) {
            out.println(tool.bw ? Report.bwHeader(o.reportGbits) : Report.LAT_HEADER);
        }
        out.flush();
        if (tool.bw) {
            new Bandwidth(data).run();
        } else {
            new Latency(data).run();
        }
        if (cm != null) {
            cm.disconnect();
        }
        if (data.checkFailures() > 0) {
            out.flush();
            throw new IllegalStateException("--check: " + data.checkFailures() + " byte(s) or operand(s) differ from"
                    + " what the peer sent");
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

    /** ctx_init's buffer, PD, MR and CQs, on {@code ctx} (with -R the CM id's device). */
    private void makeResources(Context ctx) {
        int n = o.numQps;
        resCtx = ctx;
        region = DataPath.inc(Math.max(o.size, cycle), cacheLine);
        // UD: a receive starts 40 bytes (the GRH) before its message's cache line, so the last one ends a line later
        long tail = o.connection == QpType.UD ? cacheLine : 0;
        buf = arena.allocate(region * 2 * n + tail, cycle);
        if (o.events) {
            channel = ctx.createCompletionChannel();
        }
        pd = ctx.allocPd();
        int access = Access.LOCAL_WRITE | switch (tool.verb) {
            case SEND -> 0;
            case WRITE -> Access.REMOTE_WRITE;
            case READ -> Access.REMOTE_READ;
            case ATOMIC -> Access.REMOTE_ATOMIC;
        };
        mr = pd.registerMemory(buf, access);
        sendCq = ctx.createCq(txDepth * n, channel);
        if (tool.verb == Verb.SEND) {
            recvCq = ctx.createCq(rxDepth * n, channel);
        }
        qps = new QueuePair[n];
        ahs = new AddressHandle[n];
    }

    /** QP {@code i}: on {@code id} (-R: the CM moves it to INIT, or RTS for UD) or made and moved to INIT here. */
    private QueuePair makeQp(int i, CmId id) {
        QpInitAttr attr = new QpInitAttr().qpType(o.connection).sendCq(sendCq)
                .recvCq(recvCq != null ? recvCq : sendCq).cap(new QpCap(txDepth, rxDepth, 1, 1, o.inlineSize));
        if (id != null) {
            qps[i] = id.createQp(pd, attr);
            return qps[i];
        }
        qps[i] = pd.createQp(attr);
        int qpAccess = switch (tool.verb) {
            case SEND -> Access.REMOTE_WRITE | Access.LOCAL_WRITE;
            case WRITE -> Access.REMOTE_WRITE;
            case READ -> Access.REMOTE_READ;
            case ATOMIC -> Access.REMOTE_ATOMIC;
        };
        if (o.connection == QpType.UD) {
            QpConnect.initUd(qps[i], o.ibPort, UD_QKEY);
        } else {
            QpConnect.init(qps[i], QpConnect.Options.DEFAULTS.withPort(o.ibPort).withAccess(qpAccess));
        }
        return qps[i];
    }

    /** set_up_connection: each QP's address (a random PSN, its receive region), and the data path over them. */
    private void finishResources(PortAttr port, Gid gid) {
        int n = o.numQps;
        Dest[] my = new Dest[n];
        for (int i = 0; i < n; i++) {
            int psn = ThreadLocalRandom.current().nextInt(1 << 24);
            my[i] = new Dest(port.lid(), outReads, qps[i].qpNum(), psn, mr.rkey(), buf.address() + (n + i) * region,
                    gid, 0);
        }
        data = new DataPath(o, out, new DataPath.Resources(resCtx, channel, buf, mr, sendCq, recvCq, qps),
                new DataPath.Layout(txDepth, rxDepth, cqMod, region, cycle, cacheLine), exchange, my, withGid);
        data.fillPatterns();
    }

    /** What {@link CmConnections} asks of this run: resources on the first id's device, QPs, UD peers. */
    private final class CmHost implements CmConnections.Host {
        @Override
        public QueuePair createQp(int i, CmId id) {
            if (pd == null) {
                makeResources(id.context());
                udQpn = new int[o.numQps];
                udQkey = new int[o.numQps];
            }
            return makeQp(i, id);
        }

        @Override
        public AddressHandle udPeer(int i, AhAttr ah, int qpn, int qkey) {
            ahs[i] = pd.createAh(ah);
            udQpn[i] = qpn;
            udQkey[i] = qkey;
            return ahs[i];
        }

        @Override
        public MemorySegment scratch(int i) {
            return buf.asSlice((o.numQps + i) * region, region);
        }

        @Override
        public int lkey() {
            return mr.lkey();
        }

        @Override
        public int gidIndex() {
            return Math.max(gidIndex, 0);
        }

        @Override
        public CompletionQueue sendCq() {
            return sendCq;
        }

        @Override
        public CompletionQueue recvCq() {
            return recvCq != null ? recvCq : sendCq;
        }
    }

    /**
     * RTR, and RTS on the client and on both sides of latency tests (ctx_connect): perftest's GRH has hop limit 0xff,
     * its QPs answer as many READs as they announced and have in flight as many as the peer answers (at least 1).
     * UC's RTR and RTS carry no RDMA READ, RNR or retry attributes; UD's RTR is the state alone and its sending sides
     * make an address handle to the peer from the same address vector.
     */
    private void connect(int i) {
        Dest d = data.remote(i);
        Dest me = data.local(i);
        QpConnect.Options c = QpConnect.Options.DEFAULTS.withPort(o.ibPort).withSl(o.sl).withMtu(mtu)
                .withMinRnrTimer(12).withTimeout(o.qpTimeout);
        c = withGid ? c.withGrh(gidIndex, 0xff) : c.withoutGrh();
        boolean sends = !tool.bw || o.client();
        switch (o.connection) {
            case RC -> {
                QpConnect.readyToReceive(qps[i], d.address(), c.withRdAtomic(me.outReads()));
                if (sends) {
                    int maxRd = Math.min(d.outReads(), context.queryDevice().maxQpInitRdAtom());
                    QpConnect.readyToSend(qps[i], me.psn(), c.withRdAtomic(me.outReads(), Math.max(1, maxRd)));
                }
            }
            case UC -> {
                qps[i].modify(new QpAttr().qpState(QpState.RTR).ahAttr(c.addressVector(d.address())).pathMtu(mtu)
                        .destQpNum(d.qpn()).rqPsn(d.psn()), EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
                        QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN));
                if (sends) {
                    readyToSendUnreliable(i, me.psn());
                }
            }
            case UD -> {
                qps[i].modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
                if (sends) {
                    readyToSendUnreliable(i, me.psn());
                    ahs[i] = pd.createAh(c.addressVector(d.address()));
                    data.addressHandle(i, ahs[i]);
                }
            }
        }
    }

    /** RTR to RTS of a UC or UD QP: the state and the first PSN only. */
    private void readyToSendUnreliable(int i, int psn) {
        qps[i].modify(new QpAttr().qpState(QpState.RTS).sqPsn(psn), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.SQ_PSN));
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
            if (cm != null) {
                // the context this process opened stays open (until exit): the soft CM runs its agent (QP 1) on it
                Resources.closeAll(ahs, (AutoCloseable) cm::closeIds, sendCq, recvCq, mr, pd, channel, cm);
            } else {
                AutoCloseable[] first = qps == null ? null
                        : Stream.concat(Arrays.stream(qps), Arrays.stream(ahs)).toArray(AutoCloseable[]::new);
                Resources.closeAll(first, sendCq, recvCq, mr, pd, channel, shared == null ? context : null);
            }
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
