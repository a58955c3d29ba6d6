package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.function.Executable;

/**
 * The base of every conformance test: two open contexts ({@link #a}, {@link #b}) from the provider's
 * {@link TckEnvironment}, a cleanup stack that closes what a test made in reverse order, and helpers to build and
 * connect QPs, post, and wait for completions within a bounded time while driving both devices.
 */
public abstract class Tck {

    /** For a provider's test class (the base of every TCK class). */
    protected Tck() {
    }

    /** How long any wait for a completion or event may take before the test fails. */
    protected static final Duration WAIT = Duration.ofSeconds(10);

    /** Every access right an MR may have (except MW_BIND). */
    protected static final int ALL_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
            | Access.REMOTE_ATOMIC;

    private static final TckEnvironment ENVIRONMENT = EnvironmentLookup.find();

    /** Endpoint 0. */
    protected Context a;
    /** Endpoint 1. */
    protected Context b;
    /** One shared arena for the test's buffers, closed after everything else. */
    protected Arena arena;
    private final ArrayDeque<AutoCloseable> cleanup = new ArrayDeque<>();

    /** The provider's environment. */
    protected static TckEnvironment environment() {
        return ENVIRONMENT;
    }

    @BeforeEach
    void openContexts() {
        arena = Arena.ofShared();
        a = ENVIRONMENT.open(0);
        b = ENVIRONMENT.open(1);
    }

    @AfterEach
    void closeAll() throws Exception {
        Exception first = null;
        while (!cleanup.isEmpty()) {
            try {
                cleanup.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        b.close();
        a.close();
        arena.close();
        if (first != null) {
            throw first;
        }
    }

    /** Closes {@code resource} after the test (in reverse order of registration); returns it. */
    protected <T extends AutoCloseable> T closeLater(T resource) {
        cleanup.push(resource);
        return resource;
    }

    /** Drives both devices once (a no-op for providers with their own progress). */
    protected void drive() {
        a.progress();
        b.progress();
    }

    /** The routable GID of a context's port 1. */
    protected Gid gid(Context ctx) {
        return ctx.queryGid(1, ENVIRONMENT.gidIndex());
    }

    /** An address vector to reach {@code remote}. */
    protected AhAttr route(Context remote) {
        return new AhAttr().isGlobal(true).dgid(gid(remote)).sgidIndex(ENVIRONMENT.gidIndex()).portNum(1)
                .hopLimit(64);
    }

    // --------------------------------------------------------------------------------------------- memory

    /** Native memory of {@code bytes}, page aligned, zeroed, freed after the test. */
    protected MemorySegment buffer(long bytes) {
        return arena.allocate(Math.max(1, bytes), 4096);
    }

    /** Fills {@code seg} with a pattern derived from {@code seed}. */
    protected static void fill(MemorySegment seg, int seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7 + (i >>> 8)));
        }
    }

    /** An SGE covering {@code [offset, offset + length)} of a region. */
    protected static Sge sge(MemoryRegion mr, long offset, int length) {
        return new Sge(mr.address() + offset, length, mr.lkey());
    }

    // --------------------------------------------------------------------------------------------- endpoints

    /** One endpoint of a test: a PD, a CQ, a buffer with an MR, and (once made) a QP. */
    protected final class Side {
        public final Context ctx;
        public final ProtectionDomain pd;
        public final CompletionQueue cq;
        public final MemorySegment buf;
        public final MemoryRegion mr;
        public QueuePair qp;

        Side(Context ctx, long bufBytes, int access) {
            this.ctx = ctx;
            pd = closeLater(ctx.allocPd());
            cq = closeLater(ctx.createCq(256));
            buf = buffer(bufBytes);
            mr = closeLater(pd.registerMemory(buf, access));
        }

        /** Creates this side's QP of {@code type} with {@link #defaultCap()}; returns it. */
        public QueuePair createQp(QpType type) {
            return createQp(new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq).cap(defaultCap()));
        }

        /** Creates this side's QP; returns it. */
        public QueuePair createQp(QpInitAttr attr) {
            qp = closeLater(pd.createQp(attr));
            return qp;
        }

        /** The virtual address of {@code offset} in this side's buffer. */
        public long addr(long offset) {
            return mr.address() + offset;
        }

        /** An SGE over this side's buffer. */
        public Sge sge(long offset, int length) {
            return Tck.sge(mr, offset, length);
        }

        /** Posts one receive of {@code [offset, offset + length)}. */
        public void postRecv(long wrId, long offset, int length) {
            qp.postRecv(new RecvWr().wrId(wrId).sg(sge(offset, length)));
        }

        /** Waits for one completion on this side's CQ. */
        public WorkCompletion await() {
            return Tck.this.await(cq);
        }
    }

    /** A side on context {@code a} (endpoint 0). */
    protected Side sideA(long bufBytes, int access) {
        return new Side(a, bufBytes, access);
    }

    /** A side on context {@code b} (endpoint 1). */
    protected Side sideB(long bufBytes, int access) {
        return new Side(b, bufBytes, access);
    }

    /** Queue sizes the helpers use: 64 WRs, 4 SGEs, 64 bytes inline. */
    protected static QpCap defaultCap() {
        return new QpCap().maxSendWr(64).maxRecvWr(64).maxSendSge(4).maxRecvSge(4).maxInlineData(64);
    }

    /** Connection parameters for {@link #connect}. */
    protected static final class Link {
        /** The defaults below; change fields to taste. */
        public Link() {
        }

        public Mtu mtu = Mtu.MTU_1024;
        public int psn = 0x123;
        public int timeout = 14;
        public int retryCnt = 7;
        public int rnrRetry = 7;
        public int minRnrTimer = 1;
        public int maxRd = 4;
        public int qpAccess = Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        public int qkey = 0x11111111;
    }

    /** Two RC sides, one per context, each with a QP, connected to each other (RTS). */
    protected Side[] rcPair(long bufBytes) {
        return connectedPair(QpType.RC, bufBytes, ALL_ACCESS, new Link());
    }

    /** Two sides of {@code type}, connected (RC, UC) or brought to RTS (UD). */
    protected Side[] connectedPair(QpType type, long bufBytes, int access, Link link) {
        Side x = sideA(bufBytes, access);
        Side y = sideB(bufBytes, access);
        x.createQp(type);
        y.createQp(type);
        connect(x, y, link);
        connect(y, x, link);
        return new Side[] {x, y};
    }

    /** Moves {@code local}'s QP through INIT and RTR to RTS, aimed at {@code remote}'s QP (UD: no peer). */
    protected void connect(Side local, Side remote, Link l) {
        QueuePair qp = local.qp;
        if (qp.type() == QpType.UD) {
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(l.qkey),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            qp.modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(l.psn), EnumSet.of(QpAttrMask.STATE,
                    QpAttrMask.SQ_PSN));
            return;
        }
        boolean rc = qp.type() == QpType.RC;
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(l.qpAccess),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        EnumSet<QpAttrMask> rtr = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN);
        if (rc) {
            rtr.add(QpAttrMask.MAX_DEST_RD_ATOMIC);
            rtr.add(QpAttrMask.MIN_RNR_TIMER);
        }
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(l.mtu).destQpNum(remote.qp.qpNum()).rqPsn(l.psn)
                .maxDestRdAtomic(l.maxRd).minRnrTimer(l.minRnrTimer).ahAttr(route(remote.ctx)), rtr);
        EnumSet<QpAttrMask> rts = EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (rc) {
            rts.addAll(EnumSet.of(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC));
        }
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(l.psn).timeout(l.timeout).retryCnt(l.retryCnt)
                .rnrRetry(l.rnrRetry).maxRdAtomic(l.maxRd), rts);
    }

    /** Moves a QP to {@code state} with no other attributes (ERR, SQD, RESET, ...). */
    protected static void moveTo(QueuePair qp, QpState state) {
        qp.modify(new QpAttr().qpState(state), EnumSet.of(QpAttrMask.STATE));
    }

    // --------------------------------------------------------------------------------------------- completions

    /** Waits (bounded by {@link #WAIT}) for one completion on {@code cq}, driving both devices. */
    protected WorkCompletion await(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            drive();
            if (cq.poll(wc, 1) == 1) {
                return wc[0];
            }
            Thread.onSpinWait();
        }
        return fail("no completion within " + WAIT);
    }

    /** Waits for a completion and asserts its status, opcode-independent; returns it. */
    protected WorkCompletion await(CompletionQueue cq, WcStatus status) {
        WorkCompletion wc = await(cq);
        assertEquals(status, wc.status(), () -> "completion " + wc);
        return wc;
    }

    /** Drives both devices for {@code ms} milliseconds and asserts no completion arrived on {@code cq}. */
    protected void assertNoCompletion(CompletionQueue cq, long ms) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            drive();
            if (cq.poll(wc, 1) == 1) {
                fail("unexpected completion " + wc[0]);
            }
            Thread.onSpinWait();
        }
    }

    /** Drives both devices until {@code condition} holds, failing after {@link #WAIT}. */
    protected void awaitCondition(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for " + what);
            }
            drive();
            Thread.onSpinWait();
        }
    }

    /** Asserts that {@code call} throws a {@link VerbsException} with {@code errno}; returns it. */
    protected static VerbsException assertVerbsError(Errno errno, Executable call) {
        VerbsException e = assertThrows(VerbsException.class, call);
        assertEquals(errno, e.errno(), () -> "errno of: " + e.getMessage());
        return e;
    }

    /** Posts one signaled request built by the caller; returns it for chaining in assertions. */
    protected static SendWr signaled(SendWr wr) {
        return wr.signaled(true);
    }

    // --------------------------------------------------------------------------------------------- RC helpers

    /** Waits (bounded by {@link #WAIT}) for {@code n} completions on {@code cq}; returns copies, oldest first. */
    protected java.util.List<WorkCompletion> awaitN(CompletionQueue cq, int n) {
        java.util.List<WorkCompletion> out = new java.util.ArrayList<>(n);
        while (out.size() < n) {
            out.add(new WorkCompletion().copyFrom(await(cq)));
        }
        return out;
    }

    /** A signaled SEND of {@code [offset, offset + length)} of {@code from}'s buffer. */
    protected static SendWr sendWr(Side from, long wrId, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(io.jrdma.verbs.WrOpcode.SEND).sg(from.sge(offset, length)).signaled(true);
    }

    /** A signaled RDMA WRITE of {@code from}'s {@code [offset, +length)} to {@code to}'s buffer at {@code toOffset}. */
    protected static SendWr writeWr(Side from, long wrId, long offset, int length, Side to, long toOffset) {
        return new SendWr().wrId(wrId).opcode(io.jrdma.verbs.WrOpcode.RDMA_WRITE).sg(from.sge(offset, length))
                .remote(to.addr(toOffset), to.mr.rkey()).signaled(true);
    }

    /** A signaled RDMA READ of {@code to}'s buffer at {@code toOffset} into {@code from}'s {@code [offset, +length)}. */
    protected static SendWr readWr(Side from, long wrId, long offset, int length, Side to, long toOffset) {
        return new SendWr().wrId(wrId).opcode(io.jrdma.verbs.WrOpcode.RDMA_READ).sg(from.sge(offset, length))
                .remote(to.addr(toOffset), to.mr.rkey()).signaled(true);
    }

    /**
     * A class C error at the responder (IBA 9.9.3.1.3): with one receive (wrId 100) posted at {@code y}, posts
     * {@code bad} (made signaled, wrId 1) followed by a signaled SEND (wrId 2) at {@code x}; asserts that the bad
     * request completes with {@code status}, the SEND after it is flushed, both QPs end in ERR and {@code y}'s
     * receive is flushed too. Returns the bad request's completion.
     */
    protected WorkCompletion assertFatalRemoteError(Side x, Side y, SendWr bad, WcStatus status) {
        y.postRecv(100, 0, 64);
        bad.wrId(1).signaled(true).next(sendWr(x, 2, 0, 8));
        x.qp.postSend(bad);
        WorkCompletion first = new WorkCompletion().copyFrom(await(x.cq));
        assertEquals(1, first.wrId(), () -> "first completion " + first);
        assertEquals(status, first.status(), () -> "completion " + first);
        assertEquals(x.qp.qpNum(), first.qpNum());
        WorkCompletion second = await(x.cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(2, second.wrId(), "the request after the failed one is flushed");
        WorkCompletion recv = await(y.cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(100, recv.wrId(), "the responder's posted receive is flushed");
        assertEquals(QpState.ERR, x.qp.state(), "the requester's QP is in ERR");
        assertEquals(QpState.ERR, y.qp.state(), "the responder's QP is in ERR after a class C error");
        assertNoCompletion(x.cq, 20);
        assertNoCompletion(y.cq, 20);
        return first;
    }
}
