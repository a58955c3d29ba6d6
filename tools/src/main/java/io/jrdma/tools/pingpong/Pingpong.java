package io.jrdma.tools.pingpong;

import io.jrdma.examples.QpConnect;
import io.jrdma.examples.Resources;
import io.jrdma.tools.PollPark;
import io.jrdma.tools.Rehearsal;
import io.jrdma.tools.ToolSession;
import io.jrdma.tools.pingpong.Exchange.Dest;
import io.jrdma.tools.pingpong.Options.Kind;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
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
import io.jrdma.verbs.Verbs;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;

/**
 * ibv_rc_pingpong and ibv_ud_pingpong over the verbs API, with the real tools' resources, QP attributes, exchange
 * ({@link Exchange}), completion loop and output, so either side interoperates with the real binary:
 * <ul>
 *   <li>RC: buffer of {@code size} bytes (filled with 0x7b), CQ of rx_depth+1, QP caps 1 send / rx_depth receives,
 *       INIT with no remote access; RTR with max_dest_rd_atomic 1, min_rnr_timer 12, a GRH (hop limit 1) when the
 *       peer's GID has a non-zero interface id; RTS with timeout 14, retry 7, rnr_retry 7, max_rd_atomic 1.</li>
 *   <li>UD: buffer of size+40 (receives land after the 40-byte GRH area, sends come from offset 40), qkey
 *       0x11111111, RTR/RTS with only the state and SQ PSN, then an address handle to the peer.</li>
 * </ul>
 * The client sends first; each side sends its next message once its previous send and a receive completed. jrdma
 * additionally checks every completion's opcode and length, and with {@code -c} exits 1 when the server finds
 * invalid data (the real tool only prints it).
 */
final class Pingpong implements ToolSession {

    private static final int RECV_WRID = 1;
    private static final int SEND_WRID = 2;
    private static final int UD_GRH_BYTES = 40;
    private static final int UD_QKEY = 0x11111111;
    private static final int PAGE = 4096;
    /** Empty polls between two looks at the clock for --timeout (a power of two; ibv_rc_pingpong reads none). */
    private static final long CLOCK_POLLS = 256;
    /**
     * Steps a call of {@link #steps} takes: few enough loop turns in loop() for on-stack replacement never to come (a
     * step takes one or two of an iteration's two completions: 100,000 iterations turn it at most 25,000 times).
     */
    private static final int STEPS_PER_CALL = 8;

    private final Options o;
    private final PrintStream out;
    private final PrintStream err;
    private final Arena arena = Arena.ofShared();
    private Context context;
    /** What a wait does after its spin ({@link PollPark}). */
    private PollPark park;
    private CompletionChannel channel;
    private ProtectionDomain pd;
    private MemorySegment buf;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private QueuePair qp;
    private AddressHandle ah;
    private int sendFlags = SendFlags.SIGNALED;
    private final SendWr sendWr = new SendWr();
    private final RecvWr recvWr = new RecvWr();

    // The loop's state: its iteration is a method of its own (step), so that the JIT compiles it from its calls; a
    // loop body inlined in loop(), which runs once, is compiled only on stack replacement after tens of thousands of
    // iterations in one run, which the rehearsal on an emulated guest (a millisecond an iteration) never ran: the
    // measured loop ran in the interpreter there (perftest's Latency, issue 20).
    private long rcnt;
    private long scnt;
    private int routs;
    private int pending;
    private int expectedRecvLen;
    private final WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};

    /** A context opened elsewhere that this run uses and leaves open (a {@link Rehearsal}), or null. */
    private final Context shared;
    /**
     * How long a wait for a completion may last ({@code Long.MAX_VALUE}: no timeout). Computed once: a rehearsal has
     * a timeout and the user's run mostly none, and the test in the wait, never taken the run's way in the
     * rehearsal, trapped the compiled wait at the run's first poll (an emulated guest, both sides).
     */
    private final long boundNs;

    private Pingpong(Options o, PrintStream out, PrintStream err, Context shared) {
        this.o = o;
        this.out = out;
        this.err = err;
        this.shared = shared;
        this.boundNs = o.timeoutMs > 0 ? o.timeoutMs * 1_000_000L : Long.MAX_VALUE;
    }

    /** Runs the tool with {@code args}; returns the exit status (0 success, 1 failure or bad usage, as the real). */
    static int run(Kind kind, String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = Options.parse(kind, args);
        } catch (IllegalArgumentException e) {
            err.println(kind.tool + ": " + e.getMessage());
            out.println(Options.parse(kind, new String[0]).usage());
            return 1;
        }
        if (o.help) {
            out.println(o.usage());
            return 0;
        }
        return ToolSession.execute(kind.tool, new Pingpong(o, out, err, null), out, err);
    }

    @Override
    public int run() throws Exception {
        if (o.odp) {
            throw new IllegalStateException(
                    "The device isn't ODP capable or does not support RC send and receive with ODP");
        }
        context = shared != null ? shared : Verbs.device(o.ibDev).open();
        park = PollPark.of(context, o.rehearsing);
        if (shared == null) {
            Rehearsal.run(context, o.ibPort, o.gidIdx, o.size, o.kind == Kind.RC, err,
                    (ctx, server, tcpPort, iters, quiet) ->
                    new Pingpong(o.rehearsal(server, tcpPort, iters), quiet, quiet, ctx));
        }
        boolean ud = o.kind == Kind.UD;
        long bufBytes = ud ? o.size + UD_GRH_BYTES : o.size;
        PortAttr port = context.queryPort(o.ibPort);
        if (ud && o.size > port.activeMtu().bytes()) {
            throw new IllegalArgumentException("Requested size larger than port MTU (" + port.activeMtu().bytes()
                    + ")");
        }
        buf = arena.allocate(bufBytes, PAGE);
        buf.fill((byte) 0x7b);
        if (o.check && o.serverName != null) {
            for (long i = 0; i < o.size; i += PAGE) {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte) 0); // as the real tool: i / page_size % sizeof(char)
            }
        }
        if (o.events) {
            channel = context.createCompletionChannel();
        }
        pd = context.allocPd();
        mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
        cq = context.createCq(o.rxDepth + 1, channel);
        qp = pd.createQp(new QpInitAttr().qpType(ud ? QpType.UD : QpType.RC).sendCq(cq).recvCq(cq)
                .cap(new QpCap(1, o.rxDepth, 1, 1, 0)));
        if (qp.cap().maxInlineData() >= o.size) {
            sendFlags |= SendFlags.INLINE;
        }
        if (ud) {
            QpConnect.initUd(qp, o.ibPort, UD_QKEY);
        } else {
            QpConnect.init(qp, QpConnect.Options.DEFAULTS.withPort(o.ibPort).withAccess(0));
        }
        recvWr.wrId(RECV_WRID).sg(new Sge(mr.address(), (int) bufBytes, mr.lkey()));
        int routs = postRecv(o.rxDepth);
        if (routs < o.rxDepth) {
            throw new IllegalStateException("Couldn't post receive (" + routs + ")");
        }
        if (channel != null) {
            cq.requestNotify(false);
        }
        Gid gid = o.gidIdx >= 0 ? context.queryGid(o.ibPort, o.gidIdx) : Gid.ZERO;
        Dest local = new Dest(port.lid(), qp.qpNum(), ThreadLocalRandom.current().nextInt(1 << 24), gid);
        out.printf(Locale.ROOT, "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s%n", local.lid(),
                local.qpn(), local.psn(), ud ? ":" : ",", gid.toCompactString());
        out.flush();
        long exchangeTimeout = o.timeoutMs;
        Dest remote = o.serverName != null
                ? Exchange.client(o.serverName, o.port, local, exchangeTimeout)
                : Exchange.server(o.port, local, r -> connect(local, r), exchangeTimeout);
        out.printf(Locale.ROOT, "  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", remote.lid(),
                remote.qpn(), remote.psn(), remote.gid().toCompactString());
        out.flush();
        if (o.serverName != null) {
            connect(local, remote);
        }
        sendWr.wrId(SEND_WRID).opcode(WrOpcode.SEND).sendFlags(sendFlags)
                .sg(new Sge(mr.address() + (ud ? UD_GRH_BYTES : 0), (int) o.size, mr.lkey()));
        if (ud) {
            sendWr.ud(ah, remote.qpn(), UD_QKEY);
        }
        return loop(routs);
    }

    /** ibv_*_pingpong's pp_connect_ctx: a GRH with hop limit 1 when the peer has a GID, one READ each way. */
    private void connect(Dest local, Dest remote) {
        QpConnect.Options c = QpConnect.Options.DEFAULTS.withPort(o.ibPort).withSl(o.sl);
        c = remote.needsGrh() ? c.withGrh(o.gidIdx, 1) : c.withoutGrh();
        if (o.kind == Kind.UD) {
            QpConnect.connectUd(qp, local.psn());
            ah = pd.createAh(c.addressVector(remote.address()));
            return;
        }
        QpConnect.connect(qp, local.address(), remote.address(),
                c.withMtu(Mtu.ofBytes(o.mtu)).withRdAtomic(1).withMinRnrTimer(12).withTimeout(14));
    }

    private int postRecv(int n) {
        for (int i = 0; i < n; i++) {
            try {
                qp.postRecv(recvWr);
            } catch (RuntimeException e) {
                return i;
            }
        }
        return n;
    }

    private int loop(int routsAtStart) throws Exception {
        boolean client = o.serverName != null;
        pending = RECV_WRID;
        if (client) {
            qp.postSend(sendWr);
            pending |= SEND_WRID;
        }
        long startNs = System.nanoTime();
        rcnt = 0;
        scnt = 0;
        routs = routsAtStart;
        expectedRecvLen = (int) (o.kind == Kind.UD ? o.size + UD_GRH_BYTES : o.size);
        while (unfinished()) {
            steps();
        }
        long endNs = System.nanoTime();
        float usec = (float) ((endNs - startNs) / 1000L);
        long bytes = o.size * o.iters * 2;
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1000000.,
                bytes * 8. / usec);
        out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", o.iters, usec / 1000000.,
                usec / o.iters);
        if (!client && o.check) {
            boolean bad = false;
            for (long i = 0; i < o.size; i += PAGE) {
                if (buf.get(ValueLayout.JAVA_BYTE, i) != 0) {
                    out.printf(Locale.ROOT, "invalid data in page %d%n", i / PAGE);
                    bad = true;
                }
            }
            if (bad) {
                return 1;
            }
        }
        return 0;
    }

    /**
     * At most {@link #STEPS_PER_CALL} steps of the loop, fewer at its end. The loop's turns as a method called often,
     * which the JIT compiles from its calls within the rehearsal; a loop turning once a step in {@code loop()} was
     * replaced on the stack by the JIT's last tier 15 s into a 20,000-iteration run (27 s) on the emulated guests
     * (a compile of the loop with its steps inlined, on the one vCPU the run uses).
     */
    private void steps() throws TimeoutException {
        for (int i = 0; i < STEPS_PER_CALL && unfinished(); i++) {
            step();
        }
    }

    /** Whether a send or a receive of the run is still to complete. */
    private boolean unfinished() {
        return rcnt < o.iters || scnt < o.iters;
    }

    /** One poll of the loop and the completions it took: a receive reposted, the next send posted. */
    private void step() throws TimeoutException {
        int ne = poll(wcs);
        for (int i = 0; i < ne; i++) {
            WorkCompletion wc = wcs[i];
            if (!wc.isSuccess()) {
                throw new IllegalStateException(String.format(Locale.ROOT, "Failed status %s (%d) for wr_id %d",
                        wc.status().message(), wc.status().code(), (int) wc.wrId()));
            }
            switch ((int) wc.wrId()) {
                case SEND_WRID -> {
                    expect(wc, WcOpcode.SEND, -1);
                    scnt++;
                }
                case RECV_WRID -> {
                    expect(wc, WcOpcode.RECV, expectedRecvLen);
                    if (--routs <= 1) {
                        routs += postRecv(o.rxDepth - routs);
                        if (routs < o.rxDepth) {
                            throw new IllegalStateException("Couldn't post receive (" + routs + ")");
                        }
                    }
                    rcnt++;
                }
                default -> throw new IllegalStateException("Completion for unknown wr_id " + (int) wc.wrId());
            }
            pending &= ~(int) wc.wrId();
            if (scnt < o.iters && pending == 0) {
                qp.postSend(sendWr);
                pending = RECV_WRID | SEND_WRID;
            }
        }
    }

    private static void expect(WorkCompletion wc, WcOpcode opcode, int byteLen) {
        if (wc.opcode() != opcode || (byteLen >= 0 && wc.byteLen() != byteLen)) {
            throw new IllegalStateException("unexpected completion " + wc + " (expected " + opcode
                    + (byteLen >= 0 ? ", " + byteLen + " bytes" : "") + ")");
        }
    }

    /** Polls up to 2 completions, waiting (spinning, or on the channel with -e) for at least one. */
    private int poll(WorkCompletion[] wcs) throws TimeoutException {
        // without a timeout the bound is "never", so the JIT compiles one comparison for runs with one and without
        long startNs = System.nanoTime();
        for (long polls = 0; ; polls++) {
            if (channel != null) {
                CompletionQueue ev = channel.awaitEvent(o.timeoutMs > 0 ? Duration.ofMillis(o.timeoutMs)
                        : Duration.ofSeconds(3600));
                if (ev != null) {
                    ev.ackEvents(1);
                    ev.requestNotify(false);
                }
            } else {
                context.progress();
            }
            int ne = cq.poll(wcs, 2);
            if (ne > 0 || (channel != null && ne == 0 && o.timeoutMs == 0)) {
                return ne;
            }
            // a spin reads the clock now and then, a wait on the channel (which can last the timeout) each time
            if ((channel != null || (polls & (CLOCK_POLLS - 1)) == CLOCK_POLLS - 1)
                    && System.nanoTime() - startNs > boundNs) {
                throw new TimeoutException("no completion within " + o.timeoutMs + " ms");
            }
            if (channel == null) { // busy-poll as ibv_rc_pingpong does (no PAUSE); on a soft device park when it lasts
                park.afterEmptyPoll(polls);
            }
        }
    }

    @Override
    public void close() {
        Resources.closeAll(qp, cq, mr, ah, pd, channel, shared == null ? context : null);
        arena.close();
    }
}
