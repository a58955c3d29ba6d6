package io.jrdma.tools.perftest;

import io.jrdma.tools.PollPark;
import io.jrdma.tools.perftest.Exchange.Dest;
import io.jrdma.tools.perftest.Options.AtomicType;
import io.jrdma.tools.perftest.Tool.Verb;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * What the bandwidth and latency loops of one perftest run share, once {@link Perftest} has made the resources: the
 * QPs with their buffer and its layout (perftest's address rotation), the work requests, polling for completions
 * under {@code --timeout}, the syncs with the peer, and the {@code --check} pattern.
 */
final class DataPath {

    /** CTX_POLL_BATCH. */
    static final int POLL_BATCH = 16;
    static final long ATOMIC_ADD_VALUE = 1;
    private static final long ATOMIC_SWAP_VALUE = 0;
    /** Empty polls between two looks at the clock for --timeout (a power of two). */
    static final long CLOCK_POLLS = 256;
    /** The empty poll of a wait at which the clock for --timeout starts (a wait this long is not one answer's). */
    static final long CLOCK_START = 16;
    /** UD_ADDITION: the GRH a UD receive scatters ahead of the message. */
    static final int GRH_BYTES = 40;
    static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    final Options o;
    final Tool tool;
    final PrintStream out;
    final Context context;
    final MemorySegment buf;
    final QueuePair[] qps;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final int txDepth;
    final int rxDepth;
    final int cqMod;
    private final CompletionChannel channel;
    private final MemoryRegion mr;
    private final Exchange exchange;
    private final Dest[] my;
    private final Dest[] rem;
    /** UD: each QP's address handle to its peer, on the sides that send. */
    private final AddressHandle[] ahs;
    /** UD: the GRH's bytes ahead of each received message; 0 for RC and UC. */
    private final int grh;
    private final boolean withGid;
    private final long region;
    private final int cycle;
    private final int cacheLine;
    /** The message size of the current run (changes with -a). */
    private long size;
    private SendWr[][] wrs;
    private RecvWr[] rwrs;
    private long[] recvPosted;
    private final WorkCompletion[] wcs = new WorkCompletion[POLL_BATCH];
    private long lastProgressNs;
    /**
     * --timeout in nanoseconds, or {@code Long.MAX_VALUE} without one: {@link #idle} then compares alike with or
     * without a timeout, so the JIT compiles the same code for the warm-up's runs (which have one) and the user's.
     */
    private final long timeoutNs;
    private long idlePolls;
    /** What a wait does after its spin ({@link PollPark}). */
    private final PollPark park;
    /** Completions seen (and other progress made), for the timeout message: messages stay constant strings. */
    private long done;
    private int checkFailures;
    /** -R, UD: the peers' QPNs and Q_Keys from the CM ({@link #udPeer}); null without. */
    private int[] udQpn;
    private int[] udQkey;

    /** The verbs objects {@link Perftest} made (and closes): one buffer, its MR, the CQs and the QPs. */
    record Resources(Context context, CompletionChannel channel, MemorySegment buf, MemoryRegion mr,
                     CompletionQueue sendCq, CompletionQueue recvCq, QueuePair[] qps) {
    }

    /**
     * The queue depths and buffer layout of the run, as perftest settles them.
     *
     * @param region    the bytes of each of a QP's two regions
     * @param cycle     the page size both sides agreed on (the rotation's span)
     * @param cacheLine the cache line both sides agreed on (the rotation's stride)
     */
    record Layout(int txDepth, int rxDepth, int cqMod, long region, int cycle, int cacheLine) {
    }

    /** {@code my} are this side's QPs' addresses; the peer's come from {@link #exchangeAddress}. */
    DataPath(Options o, PrintStream out, Resources r, Layout layout, Exchange exchange, Dest[] my,
             boolean withGid) {
        this.o = o;
        this.tool = o.tool;
        this.out = out;
        this.timeoutNs = o.timeoutMs > 0 ? o.timeoutMs * 1_000_000L : Long.MAX_VALUE;
        this.context = r.context();
        this.park = PollPark.of(context, o.rehearsing);
        this.channel = r.channel();
        this.buf = r.buf();
        this.mr = r.mr();
        this.sendCq = r.sendCq();
        this.recvCq = r.recvCq();
        this.qps = r.qps().clone();
        this.txDepth = layout.txDepth();
        this.rxDepth = layout.rxDepth();
        this.cqMod = layout.cqMod();
        this.region = layout.region();
        this.cycle = layout.cycle();
        this.cacheLine = layout.cacheLine();
        this.exchange = exchange;
        this.my = my.clone();
        this.rem = new Dest[my.length];
        this.ahs = new AddressHandle[my.length];
        this.grh = o.connection == QpType.UD ? GRH_BYTES : 0;
        this.withGid = withGid;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    // ---------------------------------------------------------------- the peer

    /** The handshake of QP {@code i}: this side's address out, the peer's in (kept as {@link #remote}). */
    Dest exchangeAddress(int i) throws IOException {
        rem[i] = exchange.handshake(my[i], withGid);
        return rem[i];
    }

    /** This side's address of QP {@code i}. */
    Dest local(int i) {
        return my[i];
    }

    /** The peer's address of QP {@code i}, as the last {@link #exchangeAddress} brought it. */
    Dest remote(int i) {
        return rem[i];
    }

    /** UD: the address handle QP {@code i}'s sends go through. */
    void addressHandle(int i, AddressHandle ah) {
        ahs[i] = ah;
    }

    /** UD with -R: QP {@code i} sends to the QPN and Q_Key the CM reported, not the handshake's QPN and 0x11111111. */
    void udPeer(int i, int qpn, int qkey) {
        if (udQpn == null) {
            udQpn = new int[qps.length];
            udQkey = new int[qps.length];
            java.util.Arrays.fill(udQpn, -1);
        }
        udQpn[i] = qpn;
        udQkey[i] = qkey;
    }

    /** perftest's ctx_hand_shake as a barrier: both sides wait for each other. */
    void sync() throws IOException {
        exchange.handshake(my[0], withGid);
    }

    /** Sends {@code mine}, returns the peer's bandwidth report. */
    Exchange.BwReport exchangeReports(Exchange.BwReport mine) throws IOException {
        return exchange.exchangeReports(mine);
    }

    /** perftest's ctx_close_connection: a last handshake, then the TCP close. */
    void closeConnection() throws IOException {
        exchange.closeConnection(my[0], withGid);
    }

    // ---------------------------------------------------------------- buffer layout and pattern

    static long inc(long v, long to) {
        return (v + to - 1) / to * to;
    }

    int cacheLine() {
        return cacheLine;
    }

    long size() {
        return size;
    }

    void size(long size) {
        this.size = size;
    }

    /**
     * The sizes of the run: {@code -s}, or with {@code -a} every power of two from 2 up to 2^23 (up to the MTU in UD
     * tests, which {@link Options#limitUdSize} made the largest size).
     */
    long[] sizes() {
        if (!o.all) {
            return new long[] {o.size};
        }
        int n = 63 - Long.numberOfLeadingZeros(o.size);
        long[] s = new long[n];
        for (int i = 0; i < s.length; i++) {
            s[i] = 1L << (i + 1);
        }
        return s;
    }

    /** The bytes a receive of the current size completes with: the message, and in UD the GRH ahead of it. */
    long recvLength() {
        return size + grh;
    }

    /**
     * Where QP {@code qp}'s received messages start: its receive region, or in UD one cache line into it (perftest
     * points each UD receive 40 bytes before the line, so that the message after the GRH is aligned).
     */
    long recvPayload(int qp) {
        return recvBase(qp) + (grh > 0 ? cacheLine : 0);
    }

    long sendBase(int qp) {
        return (long) qp * region;
    }

    long recvBase(int qp) {
        return (qps.length + (long) qp) * region;
    }

    /** The offset, inside its region, of a QP's k-th message of this run (perftest's address rotation). */
    long offset(long k) {
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
     * Fills each QP's two regions with the pattern of its PSN; RDMA WRITE latency keeps perftest's zeroed receive
     * region, whose last message byte it polls.
     */
    void fillPatterns() {
        for (int qp = 0; qp < qps.length; qp++) {
            for (long base : new long[] {sendBase(qp), recvBase(qp)}) {
                boolean zero = tool.verb == Verb.WRITE && !tool.bw && base == recvBase(qp);
                for (long w = 0; w < region / 8; w++) {
                    buf.set(LONG_LE, base + w * 8, zero ? 0 : patternWord(my[qp].psn(), w));
                }
            }
        }
    }

    /** --check: the bytes of {@code base + [from, to)} against the pattern of {@code seed}. */
    void checkBytes(long base, long from, long to, int seed, String what) {
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

    /**
     * --check of a run's messages that landed in {@code qp}'s region at {@code base}, sent by the peer {@code seed}. In
     * UD the GRH of the next receive (the next slot's where messages rotate, else the next QP's) overwrites the tail
     * of a message longer than its slot or region less 40 bytes, as in perftest: only the bytes before it are checked.
     */
    void checkMessages(int qp, long base, int seed, long messages, String what) {
        long last = -1;
        long slot = tool.bw && size <= cycle / 2 ? inc(size, cacheLine) : region;
        long kept = grh > 0 ? Math.min(size, slot - grh) : size;
        for (long k = 0; k < messages; k++) {
            long off = offset(k);
            if (off <= last) {
                break; // the rotation wrapped: every slot has been checked
            }
            checkBytes(base, off, off + kept, seed, what + " (QP " + qp + ")");
            last = off;
        }
    }

    /**
     * Waits (up to {@code boundMs}, driving the device) until the last message of a run shows in {@code qp}'s region:
     * a UC RDMA WRITE completes once sent, not once placed, so the peer's "done" can overtake its last packets.
     */
    void awaitLanded(int qp, long base, int seed, long messages, long boundMs) {
        long off = offset(messages - 1);
        long deadline = System.nanoTime() + boundMs * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            boolean landed = true;
            for (long b = off; b < off + size && landed; b++) {
                landed = buf.get(ValueLayout.JAVA_BYTE, base + b) == patternByte(seed, b);
            }
            if (landed) {
                return;
            }
            context.progress();
            LockSupport.parkNanos(100_000);
        }
    }

    /**
     * --check of the 8-byte word at {@code offset} of the buffer: prints {@code what} (a format taking the got and
     * wanted values last) and counts a failure when it is not {@code want}.
     */
    void checkWord(long offset, long want, String what, Object... args) {
        long got = buf.get(LONG_LE, offset);
        if (got != want) {
            Object[] all = Arrays.copyOf(args, args.length + 2);
            all[args.length] = got;
            all[args.length + 1] = want;
            out.printf(Locale.ROOT, what, all);
            checkFailures++;
        }
    }

    /** Counts a --check failure found by a caller (which printed it). */
    void checkFailed() {
        checkFailures++;
    }

    /** The --check failures so far. */
    int checkFailures() {
        return checkFailures;
    }

    /**
     * --check of atomic results on the client: each slot of the send region holds the original value the last
     * operation on that slot returned (its initial value plus the adds before it; unchanged for CMP_AND_SWAP, whose
     * compare value 0 does not match the pattern... or swaps 0 for 0).
     */
    void checkAtomicResults(int qp, long ops) {
        long[] counts = slotCounts(ops);
        for (int s = 0; s < counts.length; s++) {
            if (counts[s] == 0) {
                continue;
            }
            long off = (long) s * inc(size, cacheLine);
            long initial = patternWord(rem[qp].psn(), off >>> 3);
            long want = o.atomicType == AtomicType.FETCH_AND_ADD ? initial + (counts[s] - 1) * ATOMIC_ADD_VALUE
                    : initial;
            checkWord(sendBase(qp) + off, want, " --check: atomic result at slot %d (QP %d) is 0x%x, expected 0x%x%n",
                    s, qp);
        }
    }

    /** How many of a QP's first {@code ops} messages went to each slot of the rotation. */
    long[] slotCounts(long ops) {
        long stride = inc(size, cacheLine);
        long[] counts = new long[(int) (tool.bw && size <= cycle / 2 ? cycle / stride : 1)];
        for (long k = 0; k < ops; k++) {
            counts[(int) (offset(k) / stride)]++;
        }
        return counts;
    }

    // ---------------------------------------------------------------- work requests

    /** ctx_set_send_wqes: one chain of post_list requests per QP, sge from the QP's send region. */
    void setSendWqes() {
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
                if (grh > 0) {
                    boolean cm = udQpn != null && udQpn[i] >= 0;
                    wr.ud(ahs[i], cm ? udQpn[i] : rem[i].qpn(), cm ? udQkey[i] : Perftest.UD_QKEY);
                } else if (tool.verb == Verb.WRITE || tool.verb == Verb.READ) {
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

    /** The first request of QP {@code qp}'s chain (its only one with post_list 1). */
    SendWr firstWr(int qp) {
        return wrs[qp][0];
    }

    /** Points QP {@code qp}'s single request at its k-th message's offsets (post_list 1). */
    void aim(int qp, long k) {
        SendWr wr = wrs[qp][0];
        long off = offset(k);
        wr.sgList()[0].addr(buf.address() + sendBase(qp) + off);
        if (tool.verb != Verb.SEND) {
            wr.remoteAddr(rem[qp].vaddr() + off);
        }
    }

    /**
     * ctx_set_recv_wqes: rx_depth receives per QP for the current size, into the QP's receive region (in UD 40 bytes
     * longer, from 40 bytes before the message's place: the GRH).
     */
    void postReceives() {
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

    void postReceive(int qp) {
        Sge sge = rwrs[qp].sgList()[0];
        sge.addr(buf.address() + recvPayload(qp) - grh + offset(recvPosted[qp])).length((int) recvLength());
        qps[qp].postRecv(rwrs[qp]);
        recvPosted[qp]++;
    }

    // ---------------------------------------------------------------- waiting

    void progressed() {
        idlePolls = 0;
        done++;
    }

    /** Nothing to do this round, and no completion queue polled: drive the device, then {@link #waited}. */
    void idle(String what) throws TimeoutException {
        context.progress();
        waited(what);
    }

    /**
     * After an empty poll of a device that made progress in it (a completion queue's poll drives a soft device
     * itself: a second pass for each would double an empty poll's cost, and in dedicated mode its sleep): back off,
     * and fail after --timeout without progress.
     */
    private void waited(String what) throws TimeoutException {
        // the clock is read once a wait has lasted CLOCK_START polls and every CLOCK_POLLS empty polls after, not
        // in each, nor once a message: perftest's loops read none, and on the emulated guests of the native
        // provider's overhead runs the reads (vDSO clock_gettime) were 6.8 % of the client's CPU samples, more
        // than libibverbs' provider; on a PVM host, 6 % of a soft ib_send_lat process's (docs/benchmarks)
        long polls = idlePolls;
        if (polls == CLOCK_START) {
            lastProgressNs = System.nanoTime();
        } else if ((polls & (CLOCK_POLLS - 1)) == 0 && polls > CLOCK_START
                && System.nanoTime() - lastProgressNs > timeoutNs) {
            throw new TimeoutException("no progress within " + o.timeoutMs + " ms while " + what + " (" + done
                    + " done)");
        }
        // busy-poll as perftest does, without Thread.onSpinWait's PAUSE: it delays seeing the completion (on an
        // emulated guest it leaves the vCPU's translated code each time: ib_send_lat on kernel rxe, t_typical 1.18x
        // C's without it, 1.28 - 1.32x with it); a long wait on a soft device parks instead (PollPark)
        park.afterEmptyPoll(++idlePolls);
    }

    /** One poll of {@code cq} for up to {@code max} completions, without waiting; they are {@link #wc}. */
    int tryPoll(CompletionQueue cq, int max) {
        return cq.poll(wcs, max);
    }

    /** Whether completions arrive through a channel (-e), so that {@link #poll} sleeps instead of spinning. */
    boolean events() {
        return channel != null;
    }

    /** Polls up to {@code max} completions; with -e, sleeps on the channel while there are none. */
    int poll(CompletionQueue cq, int max, String what) throws TimeoutException {
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
            waited(what);
        }
    }

    /** The k-th completion of the last poll. */
    WorkCompletion wc(int k) {
        return wcs[k];
    }

    void expect(WorkCompletion wc, WcOpcode opcode, long byteLen, String side, long scnt, long ccnt) {
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

    WcOpcode sendOpcode() {
        return switch (tool.verb) {
            case SEND -> WcOpcode.SEND;
            case WRITE -> WcOpcode.RDMA_WRITE;
            case READ -> WcOpcode.RDMA_READ;
            case ATOMIC -> o.atomicType == AtomicType.FETCH_AND_ADD ? WcOpcode.FETCH_ADD : WcOpcode.COMP_SWAP;
        };
    }
}
