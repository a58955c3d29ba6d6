package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.QpStructs.SA_MAX_SGE;
import static io.jrdma.ibverbs.QpStructs.SA_MAX_WR;
import static io.jrdma.ibverbs.QpStructs.SA_SRQ_LIMIT;
import static io.jrdma.ibverbs.QpStructs.SIA_ATTR;
import static io.jrdma.ibverbs.QpStructs.SIA_SRQ_CONTEXT;
import static io.jrdma.ibverbs.QpStructs.SRQ;
import static io.jrdma.ibverbs.QpStructs.SRQ_ATTR;
import static io.jrdma.ibverbs.QpStructs.SRQ_CONTEXT;
import static io.jrdma.ibverbs.QpStructs.SRQ_INIT_ATTR;
import static io.jrdma.ibverbs.QpStructs.SRQ_PD;
import static io.jrdma.ibverbs.QpStructs.SRQ_SRQ_CONTEXT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.SrqAttrMask;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A shared receive queue (struct ibv_srq). Posting goes through the provider's post_srq_recv in the context's ops
 * table with a preallocated native chain ({@link RecvWrWriter}); its id in srq_context lets an async event (limit
 * reached) find it.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class IbvSrq implements SharedReceiveQueue {

    final IbvContext context;
    final IbvPd pd;
    final MemorySegment ptr;
    private final long id;
    private final Arena arena = Arena.ofShared();
    private final RecvWrWriter recvs;
    private final MemorySegment badRecv;
    private final MemorySegment postFn;
    private int users;
    private volatile boolean closed;

    private IbvSrq(IbvPd pd, MemorySegment ptr, long id, int maxWr, int maxSge) {
        this.context = pd.context;
        this.pd = pd;
        this.ptr = ptr;
        this.id = id;
        this.recvs = new RecvWrWriter(arena, Math.clamp(maxWr, 1, IbvQp.SLOTS), maxSge, "max_sge of the SRQ");
        this.badRecv = arena.allocate(8, 8);
        this.postFn = context.postSrqRecv;
    }

    /** ibv_create_srq with the SRQ's id as srq_context (context lock held). */
    static IbvSrq create(IbvPd pd, SrqAttr attr) {
        IbvContext ctx = pd.context;
        if (ctx.postSrqRecv.address() == 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "the provider has no post_srq_recv: no SRQ support");
        }
        long id = ctx.srqs.reserve();
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment init = tmp.allocate(SRQ_INIT_ATTR);
            init.set(JAVA_LONG, SIA_SRQ_CONTEXT, id);
            init.set(JAVA_INT, SIA_ATTR + SA_MAX_WR, attr.maxWr());
            init.set(JAVA_INT, SIA_ATTR + SA_MAX_SGE, attr.maxSge());
            init.set(JAVA_INT, SIA_ATTR + SA_SRQ_LIMIT, attr.srqLimit());
            LibIbverbs.Result r = LibIbverbs.call(ctx.lib.createSrq, pd.ptr, init);
            if (r.isNull()) {
                ctx.srqs.remove(id);
                throw Errors.of(r.errno(), "ibv_create_srq(" + attr + ")");
            }
            MemorySegment srq = r.pointer().reinterpret(SRQ.byteSize());
            SelfCheck.pointer(srq, SRQ_CONTEXT, ctx.ptr, "ibv_srq.context");
            SelfCheck.pointer(srq, SRQ_PD, pd.ptr, "ibv_srq.pd");
            SelfCheck.pointer(srq, SRQ_SRQ_CONTEXT, MemorySegment.ofAddress(id), "ibv_srq.srq_context");
            // ibv_create_srq writes the granted sizes back into the init attributes
            IbvSrq s = new IbvSrq(pd, srq, id, init.get(JAVA_INT, SIA_ATTR + SA_MAX_WR),
                    Math.max(attr.maxSge(), init.get(JAVA_INT, SIA_ATTR + SA_MAX_SGE)));
            ctx.srqs.set(id, s);
            return s;
        }
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** One more QP on this SRQ (context lock held). */
    void retain() {
        users++;
    }

    /** One QP fewer (context lock held). */
    void release() {
        users--;
    }

    /** Whether the SRQ is destroyed. */
    boolean closed() {
        return closed;
    }

    @Override
    public void postRecv(RecvWr wr) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "shared receive queue is destroyed");
        }
        RecvWrWriter.post(recvs, postFn, ptr, badRecv, wr, "ibv_post_srq_recv");
    }

    @Override
    public void modify(SrqAttr attr, Set<SrqAttrMask> mask) {
        int bits = 0;
        for (SrqAttrMask m : mask) {
            bits |= m.bit();
        }
        synchronized (context) {
            checkOpen();
            try (Arena tmp = Arena.ofConfined()) {
                MemorySegment a = tmp.allocate(SRQ_ATTR);
                a.set(JAVA_INT, SA_MAX_WR, attr.maxWr());
                a.set(JAVA_INT, SA_MAX_SGE, attr.maxSge());
                a.set(JAVA_INT, SA_SRQ_LIMIT, attr.srqLimit());
                LibIbverbs.Result r = LibIbverbs.call(context.lib.modifySrq, ptr, a, bits);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_modify_srq(" + mask + ", " + attr + ")");
                }
            }
        }
    }

    @Override
    public SrqAttr query(SrqAttr attr) {
        synchronized (context) {
            checkOpen();
            try (Arena tmp = Arena.ofConfined()) {
                MemorySegment a = SelfCheck.withCanary(tmp, SRQ_ATTR);
                LibIbverbs.Result r = LibIbverbs.call(context.lib.querySrq, ptr, a);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_query_srq");
                }
                SelfCheck.canary(a, SRQ_ATTR, "ibv_query_srq");
                return attr.maxWr(a.get(JAVA_INT, SA_MAX_WR)).maxSge(a.get(JAVA_INT, SA_MAX_SGE))
                        .srqLimit(a.get(JAVA_INT, SA_SRQ_LIMIT));
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "shared receive queue is destroyed");
        }
    }

    @Override
    public void close() {
        synchronized (context) {
            if (closed) {
                return;
            }
            if (users > 0) {
                throw new VerbsException(Errno.EBUSY, "shared receive queue is still used by " + users + " QP(s)");
            }
            LibIbverbs.Result r = LibIbverbs.call(context.lib.destroySrq, ptr);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_destroy_srq");
            }
            closed = true;
            context.srqs.remove(id);
            pd.release();
            arena.close();
        }
    }
}
