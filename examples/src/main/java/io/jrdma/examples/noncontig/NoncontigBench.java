package io.jrdma.examples.noncontig;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The measurement engine of {@code jrdma noncontig}: two soft devices in one process, A (sender and reader) and B
 * (receiver and READ target), one RC connection, and one registered buffer per side laid out as:
 * <pre>
 *   A: [strided region: the layout's blocks, gaps 0] [staging: contiguous, the pack variants' buffer]
 *   B: [contiguous region: WRITE target, READ source, pack RECV buffer] [strided region]
 * </pre>
 * Every message carries the {@link Tape} bytes of a new seed; before a measured point the regions are cleared to
 * 0, after every message the destination is compared with what was sent, and after each point the gaps between
 * the destination's blocks (and the bytes past its end) must still be 0. Work requests, SGE lists and completion
 * arrays are built before a point is measured; the timed loop only copies, posts and polls.
 */
final class NoncontigBench implements AutoCloseable {

    private static final long PAGE = 4096;
    private static final int RD_ATOMIC = 16;
    private static final int WARMUP_BATCH = 20;
    private static final long SPIN_POLLS = 1_000;
    private static final long PARK_NS = 10_000;
    private static final int WARMUP_ROUNDS = 100;
    /** Rounds over all methods per layout. */
    static final int ROUNDS = 5;

    private final NoncontigConfig cfg;
    private final Peer a;
    private final Peer b;
    private final Tape tape;
    private final int deviceMaxSge;
    private final int sendSge;
    private final int readSge;
    private final long payloadMax;
    private final long spanMax;
    private final long aStaging;
    private final long bStrided;
    private final MemorySegment zeros;
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    private final long deadlineNs;
    private final boolean dedicated;
    private int seed;
    private Consumer<Method> afterTransfer; // tests only: damages a destination to prove verification fails

    // the point being measured
    private Layout layout;
    private SendWr sendChain;
    private SendWr lastSend;
    private RecvWr recvChain;
    private long[] recvLengths;
    private int recvSeen;

    private NoncontigBench(NoncontigConfig cfg, Peer a, Peer b, Tape tape, int deviceMaxSge, int sendSge,
            int readSge, Arena arena) {
        this.cfg = cfg;
        this.a = a;
        this.b = b;
        this.tape = tape;
        this.deviceMaxSge = deviceMaxSge;
        this.sendSge = sendSge;
        this.readSge = readSge;
        this.payloadMax = cfg.layouts().stream().mapToLong(Layout::messageBytes).max().orElseThrow();
        this.spanMax = cfg.layouts().stream().mapToLong(Layout::span).max().orElseThrow();
        this.aStaging = align(spanMax);
        this.bStrided = align(payloadMax);
        this.zeros = arena.allocate(64 << 10);
        this.deadlineNs = cfg.timeout().toNanos();
        this.dedicated = cfg.threading() == Threading.DEDICATED;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    private static long align(long n) {
        return (n + PAGE - 1) & -PAGE;
    }

    /**
     * Opens both devices, sizes the QPs for the layouts and connects them.
     *
     * @throws IllegalArgumentException when {@code --max-sge} exceeds the device's max_sge or a layout needs more
     *                                  work requests per message than a queue may hold
     */
    static NoncontigBench open(NoncontigConfig cfg, Tape tape, Arena arena) {
        SoftDevice da = SoftDevice.builder().name("noncontig-a").address(cfg.addrA()).threading(cfg.threading())
                .build();
        SoftDevice db = SoftDevice.builder().name("noncontig-b").address(cfg.addrB()).threading(cfg.threading())
                .build();
        Peer a = Peer.open(da);
        Peer b = null;
        try {
            b = Peer.open(db);
            DeviceAttr attr = a.context().queryDevice();
            int deviceMaxSge = attr.maxSge();
            if (cfg.maxSge() > deviceMaxSge) {
                throw new IllegalArgumentException("--max-sge " + cfg.maxSge() + " is more than the device's max_sge "
                        + deviceMaxSge);
            }
            int sendSge = cfg.maxSge() == 0 ? deviceMaxSge : cfg.maxSge();
            int readSge = Math.min(sendSge, attr.maxSgeRd());
            int blockNumMax = cfg.layouts().stream().mapToInt(Layout::blockNum).max().orElseThrow();
            int wrs = (blockNumMax + readSge - 1) / readSge;
            int depth = wrs + 1;
            if (depth > attr.maxQpWr()) {
                throw new IllegalArgumentException("block_num " + blockNumMax + " at " + readSge + " SGEs per work "
                        + "request needs " + wrs + " work requests per message; a queue holds at most "
                        + (attr.maxQpWr() - 1) + " (raise --max-sge or lower --block-num)");
            }
            NoncontigBench bench = new NoncontigBench(cfg, a, b, tape, deviceMaxSge, sendSge, readSge, arena);
            a.create(bench.aStaging + bench.payloadMax, depth, sendSge);
            b.create(bench.bStrided + bench.spanMax, depth, sendSge);
            int rd = Math.min(RD_ATOMIC, attr.maxQpRdAtom());
            a.connect(a.endpoint(0x100), b.endpoint(0x200), cfg.mtu(), rd);
            b.connect(b.endpoint(0x200), a.endpoint(0x100), cfg.mtu(), rd);
            return bench;
        } catch (RuntimeException e) {
            closeQuietly(e, b);
            closeQuietly(e, a);
            throw e;
        }
    }

    private static void closeQuietly(RuntimeException e, Peer p) {
        if (p == null) {
            return;
        }
        try {
            p.close();
        } catch (RuntimeException suppressed) {
            e.addSuppressed(suppressed);
        }
    }

    /** The device's max_sge. */
    int deviceMaxSge() {
        return deviceMaxSge;
    }

    /** The most SGEs per SEND, WRITE and RECV the benchmark uses. */
    int sendSge() {
        return sendSge;
    }

    /** The most SGEs per READ the benchmark uses. */
    int readSge() {
        return readSge;
    }

    /**
     * Warms the JIT up before the first measurement: every method in turn, {@link #WARMUP_BATCH} messages each, on
     * {@code l}, until {@code budgetNs} has passed (at least one round, at most {@link #WARMUP_ROUNDS}). Without it,
     * whichever method is measured first would pay for compiling the engine's packet path.
     */
    void warmUp(Layout l, long budgetNs) {
        layout = l;
        a.buffer().fill((byte) 0);
        b.buffer().fill((byte) 0);
        long end = System.nanoTime() + budgetNs;
        for (int round = 0; round < WARMUP_ROUNDS && (round == 0 || System.nanoTime() - end < 0); round++) {
            for (Method m : Method.values()) {
                prepare(m, l);
                for (int i = 0; i < WARMUP_BATCH; i++) {
                    message(m);
                }
            }
        }
    }

    /**
     * Measures every method on {@code l}, interleaved so that a slow spell of a noisy machine hits all methods
     * alike: {@link #ROUNDS} rounds, each running every method in turn for its share of the iterations and of the
     * duration (at least one message per round). {@code warmup} unmeasured messages precede each method's first
     * batch.
     *
     * @return one result per method, in {@link Method} order
     */
    List<Result> measure(Layout l) {
        Method[] methods = Method.values();
        layout = l;
        a.buffer().fill((byte) 0);
        b.buffer().fill((byte) 0);
        int perRound = (cfg.iterations() + ROUNDS - 1) / ROUNDS;
        long roundNs = cfg.duration().toNanos() / ROUNDS;
        long[][] t = new long[methods.length][cfg.iterations()];
        int[] n = new int[methods.length];
        for (int round = 0; round < ROUNDS; round++) {
            for (Method m : methods) {
                int k = m.ordinal();
                prepare(m, l);
                for (int i = 0; round == 0 && i < cfg.warmup(); i++) {
                    message(m);
                }
                long end = System.nanoTime() + roundNs;
                int limit = Math.min(cfg.iterations(), n[k] + perRound);
                for (int i = 0; n[k] < limit && (i == 0 || System.nanoTime() - end < 0); i++) {
                    t[k][n[k]++] = message(m);
                }
                checkUntouched(m);
            }
        }
        List<Result> out = new ArrayList<>(methods.length);
        for (Method m : methods) {
            out.add(result(m, l, Arrays.copyOf(t[m.ordinal()], n[m.ordinal()])));
        }
        return out;
    }

    private Result result(Method m, Layout l, long[] t) {
        Arrays.sort(t);
        long sum = 0;
        for (long x : t) {
            sum += x;
        }
        int perWr = m.zeroCopy() ? perWr(m) : 1;
        int wrs = m.zeroCopy() ? l.workRequests(perWr) : 1;
        return new Result(m, l, perWr, wrs, t.length, t[t.length / 2], sum / t.length, t[0]);
    }

    private int perWr(Method method) {
        return method.operation() == Method.Operation.READ ? readSge : sendSge;
    }

    /** One message: fill the source (untimed), move it (timed), verify the destination (untimed). */
    private long message(Method method) {
        int s = ++seed;
        fillSource(method, s);
        long t0 = System.nanoTime();
        switch (method) {
            case GATHER_WRITE -> {
                lastSend.immData(s);
                post(method);
            }
            case SCATTER_READ -> post(method);
            case PACK_WRITE -> {
                pack();
                lastSend.immData(s);
                post(method);
            }
            case PACK_READ -> {
                post(method);
                unpack(a.buffer(), aStaging, a.buffer(), 0);
            }
            case SG_SEND_RECV -> post(method);
            case PACK_SEND_RECV -> {
                pack();
                post(method);
                unpack(b.buffer(), 0, b.buffer(), bStrided);
            }
            default -> throw new IllegalStateException("unknown method " + method);
        }
        long t = System.nanoTime() - t0;
        if (afterTransfer != null) {
            afterTransfer.accept(method);
        }
        verify(method, s);
        return t;
    }

    /** Posts the receiver's RECVs (if any), then the sender's chain, and waits for every completion expected. */
    private void post(Method method) {
        recvSeen = 0;
        if (recvChain != null) {
            b.qp().postRecv(recvChain);
        }
        a.qp().postSend(sendChain);
        int recvs = recvChain == null ? 0 : recvLengths.length;
        awaitCompletions(method, recvs);
    }

    private void pack() {
        MemorySegment buf = a.buffer();
        int bs = layout.blockSize();
        for (int i = 0; i < layout.blockNum(); i++) {
            MemorySegment.copy(buf, layout.blockOffset(i), buf, aStaging + (long) i * bs, bs);
        }
    }

    private void unpack(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset) {
        int bs = layout.blockSize();
        for (int i = 0; i < layout.blockNum(); i++) {
            MemorySegment.copy(src, srcOffset + (long) i * bs, dst, dstOffset + layout.blockOffset(i), bs);
        }
    }

    /**
     * Waits for the signaled send completion at A and {@code recvs} receive completions at B, driving both devices
     * (a no-op with dedicated engine threads).
     */
    private void awaitCompletions(Method method, int recvs) {
        boolean sendDone = false;
        long polls = 0;
        long deadline = System.nanoTime() + deadlineNs;
        while (!sendDone || recvSeen < recvs) {
            a.context().progress();
            b.context().progress();
            int n = a.cq().poll(wcs, wcs.length);
            for (int i = 0; i < n; i++) {
                checkSuccess(method, wcs[i], "A");
                sendDone |= wcs[i].wrId() == lastSend.wrId();
            }
            if (recvs > 0) {
                n = b.cq().poll(wcs, wcs.length);
                for (int i = 0; i < n; i++) {
                    checkRecv(method, wcs[i]);
                }
            }
            if (dedicated && ++polls > SPIN_POLLS) {
                LockSupport.parkNanos(PARK_NS); // leave the cores to the engine threads
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(method.label() + ", " + layout + ": no completion within "
                        + cfg.timeout().toMillis() + " ms (send done: " + sendDone + ", receives done: " + recvSeen
                        + " of " + recvs + ")");
            }
        }
    }

    private void checkSuccess(Method method, WorkCompletion wc, String side) {
        if (!wc.isSuccess()) {
            throw new IllegalStateException(method.label() + ", " + layout + ": work request " + wc.wrId() + " on "
                    + side + " completed with " + wc.status() + " (" + wc.status().message() + ")");
        }
    }

    private void checkRecv(Method method, WorkCompletion wc) {
        checkSuccess(method, wc, "B");
        int i = recvSeen++;
        boolean withImm = method.operation() == Method.Operation.WRITE;
        if (wc.wrId() != i || (withImm ? wc.opcode() != WcOpcode.RECV_RDMA_WITH_IMM || wc.immData() != seed
                : Integer.toUnsignedLong(wc.byteLen()) != recvLengths[i])) {
            throw new VerificationFailedException(method.label() + ", " + layout + ": receive completion " + i
                    + " is " + wc + ", want wrId " + i + (withImm ? " with immediate " + seed
                    : " of " + recvLengths[i] + " bytes"));
        }
    }

    /**
     * Builds the work requests of {@code method} for {@code l} and clears its destination, so that a message that
     * does not arrive leaves zeros (never tape bytes) behind.
     */
    private void prepare(Method method, Layout l) {
        layout = l;
        clearDestination(method);
        long bytes = l.messageBytes();
        long aAddr = a.mr().address();
        long bAddr = b.mr().address();
        int aKey = a.mr().lkey();
        int bKey = b.mr().lkey();
        int rkey = b.mr().rkey();
        recvChain = null;
        switch (method) {
            case GATHER_WRITE -> {
                sendChain = stridedChain(WrOpcode.RDMA_WRITE, aAddr, aKey, sendSge, bAddr, rkey);
                lastSend.opcode(WrOpcode.RDMA_WRITE_WITH_IMM);
                notifyRecv();
            }
            case PACK_WRITE -> {
                sendChain = one(WrOpcode.RDMA_WRITE_WITH_IMM, aAddr + aStaging, bytes, aKey).remote(bAddr, rkey);
                notifyRecv();
            }
            case SCATTER_READ -> sendChain = stridedChain(WrOpcode.RDMA_READ, aAddr, aKey, readSge, bAddr, rkey);
            case PACK_READ -> sendChain = one(WrOpcode.RDMA_READ, aAddr + aStaging, bytes, aKey).remote(bAddr, rkey);
            case SG_SEND_RECV -> {
                sendChain = stridedChain(WrOpcode.SEND, aAddr, aKey, sendSge, 0, 0);
                recvChain = stridedRecvs(bAddr + bStrided, bKey);
            }
            case PACK_SEND_RECV -> {
                sendChain = one(WrOpcode.SEND, aAddr + aStaging, bytes, aKey);
                recvChain = new RecvWr().wrId(0).sg(new Sge(bAddr, (int) bytes, bKey));
                recvLengths = new long[] {bytes};
            }
            default -> throw new IllegalStateException("unknown method " + method);
        }
    }

    private SendWr one(WrOpcode op, long addr, long length, int lkey) {
        lastSend = new SendWr().wrId(0).opcode(op).sendFlags(SendFlags.SIGNALED).sg(new Sge(addr, (int) length,
                lkey));
        return lastSend;
    }

    /** The zero-SGE RECV that a WRITE with immediate consumes, so B learns that the data is in place. */
    private void notifyRecv() {
        recvChain = new RecvWr().wrId(0).sg();
        recvLengths = new long[1];
    }

    /**
     * A chain of {@code op} requests whose SGE lists cover the layout's blocks at {@code base}, {@code perWr} blocks
     * each; request {@code j} targets remote offset {@code j * perWr * blockSize}. Only the last is signaled: RC
     * completes in order, so its completion means all of them are done.
     */
    private SendWr stridedChain(WrOpcode op, long base, int lkey, int perWr, long remote, int rkey) {
        int wrs = layout.workRequests(perWr);
        SendWr first = null;
        SendWr prev = null;
        for (int j = 0; j < wrs; j++) {
            Sge[] sges = blockSges(base, lkey, j, perWr);
            SendWr wr = new SendWr().wrId(j).opcode(op).sg(sges)
                    .remote(remote + (long) j * perWr * layout.blockSize(), rkey);
            if (prev == null) {
                first = wr;
            } else {
                prev.next(wr);
            }
            prev = wr;
        }
        prev.sendFlags(SendFlags.SIGNALED);
        lastSend = prev;
        return first;
    }

    /** One RECV per SEND of the zero-copy chain, with the same partition of the blocks into SGE lists. */
    private RecvWr stridedRecvs(long base, int lkey) {
        int wrs = layout.workRequests(sendSge);
        recvLengths = new long[wrs];
        RecvWr first = null;
        RecvWr prev = null;
        for (int j = 0; j < wrs; j++) {
            Sge[] sges = blockSges(base, lkey, j, sendSge);
            RecvWr wr = new RecvWr().wrId(j).sg(sges);
            recvLengths[j] = wr.totalLength();
            if (prev == null) {
                first = wr;
            } else {
                prev.next(wr);
            }
            prev = wr;
        }
        return first;
    }

    private Sge[] blockSges(long base, int lkey, int wr, int perWr) {
        int from = wr * perWr;
        int to = Math.min(layout.blockNum(), from + perWr);
        Sge[] sges = new Sge[to - from];
        for (int i = from; i < to; i++) {
            sges[i - from] = new Sge(base + layout.blockOffset(i), layout.blockSize(), lkey);
        }
        return sges;
    }

    private void clearDestination(Method method) {
        switch (method.operation()) {
            case WRITE -> b.buffer().asSlice(0, layout.messageBytes()).fill((byte) 0);
            case READ -> a.buffer().asSlice(0, layout.span()).fill((byte) 0);
            case SEND_RECV -> b.buffer().asSlice(bStrided, layout.span()).fill((byte) 0);
            default -> throw new IllegalStateException("unknown operation " + method.operation());
        }
    }

    private void fillSource(Method method, int s) {
        if (method.operation() == Method.Operation.READ) {
            tape.fill(b.buffer(), 0, 0, layout.messageBytes(), s);
            return;
        }
        int bs = layout.blockSize();
        for (int i = 0; i < layout.blockNum(); i++) {
            tape.fill(a.buffer(), layout.blockOffset(i), (long) i * bs, bs, s);
        }
    }

    private void verify(Method method, int s) {
        switch (method.operation()) {
            case WRITE -> verifyContiguous(method, b.buffer(), 0, s);
            case READ -> verifyStrided(method, a.buffer(), 0, s, "A");
            case SEND_RECV -> verifyStrided(method, b.buffer(), bStrided, s, "B");
            default -> throw new IllegalStateException("unknown operation " + method.operation());
        }
    }

    private void verifyContiguous(Method method, MemorySegment seg, long offset, int s) {
        long bad = tape.mismatch(seg, offset, 0, layout.messageBytes(), s);
        if (bad >= 0) {
            throw mismatch(method, s, bad, seg.get(ValueLayout.JAVA_BYTE, offset + bad), "B");
        }
    }

    private void verifyStrided(Method method, MemorySegment seg, long offset, int s, String side) {
        int bs = layout.blockSize();
        for (int i = 0; i < layout.blockNum(); i++) {
            long at = offset + layout.blockOffset(i);
            long bad = tape.mismatch(seg, at, (long) i * bs, bs, s);
            if (bad >= 0) {
                byte got = seg.get(ValueLayout.JAVA_BYTE, at + bad - (long) i * bs);
                throw mismatch(method, s, bad, got, side);
            }
        }
    }

    private VerificationFailedException mismatch(Method method, int s, long msgOffset, byte got, String side) {
        return new VerificationFailedException(String.format(
                "%s, %s: side %s's data is wrong at message offset %d (block %d, byte %d) of message %d: "
                        + "expected 0x%02x, got 0x%02x", method.label(), layout, side, msgOffset,
                msgOffset / layout.blockSize(), msgOffset % layout.blockSize(), s, tape.expected(msgOffset, s) & 0xFF,
                got & 0xFF));
    }

    /** After a point: the destination's gaps, and its bytes past the layout, were never written. */
    private void checkUntouched(Method method) {
        switch (method.operation()) {
            case WRITE -> checkZero(method, b.buffer(), layout.messageBytes(), bStrided - layout.messageBytes(),
                    "B's contiguous region past the message");
            case READ -> checkGaps(method, a.buffer(), 0, aStaging, "A");
            case SEND_RECV -> checkGaps(method, b.buffer(), bStrided, b.buffer().byteSize() - bStrided, "B");
            default -> throw new IllegalStateException("unknown operation " + method.operation());
        }
    }

    private void checkGaps(Method method, MemorySegment seg, long base, long regionBytes, String side) {
        int bs = layout.blockSize();
        for (int i = 0; i < layout.blockNum(); i++) {
            long end = base + layout.blockOffset(i) + bs;
            long next = i + 1 < layout.blockNum() ? base + layout.blockOffset(i + 1) : base + regionBytes;
            checkZero(method, seg, end, next - end, "side " + side + "'s gap after block " + i);
        }
    }

    private void checkZero(Method method, MemorySegment seg, long offset, long length, String what) {
        long done = 0;
        while (done < length) {
            long n = Math.min(length - done, zeros.byteSize());
            long m = MemorySegment.mismatch(seg, offset + done, offset + done + n, zeros, 0, n);
            if (m >= 0) {
                throw new VerificationFailedException(method.label() + ", " + layout + ": " + what
                        + " was written (byte " + (done + m) + " is not 0): a scatter wrote outside its blocks");
            }
            done += n;
        }
    }

    /** Side A's registered buffer: the strided region at 0, the staging buffer after it. */
    MemorySegment bufferA() {
        return a.buffer();
    }

    /** Side B's registered buffer: the contiguous region at 0, the strided region at {@link #stridedB()}. */
    MemorySegment bufferB() {
        return b.buffer();
    }

    /** Where B's strided region starts in {@link #bufferB()}. */
    long stridedB() {
        return bStrided;
    }

    /** Tests only: runs {@code hook} after every transfer, before the destination is verified. */
    void afterTransfer(Consumer<Method> hook) {
        afterTransfer = hook;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (Peer p : new Peer[] {a, b}) {
            try {
                p.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
