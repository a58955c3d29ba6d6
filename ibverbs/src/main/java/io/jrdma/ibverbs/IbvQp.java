package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.QpStructs.QIA_CAP;
import static io.jrdma.ibverbs.QpStructs.QIA_QP_CONTEXT;
import static io.jrdma.ibverbs.QpStructs.QIA_QP_TYPE;
import static io.jrdma.ibverbs.QpStructs.QIA_RECV_CQ;
import static io.jrdma.ibverbs.QpStructs.QIA_SEND_CQ;
import static io.jrdma.ibverbs.QpStructs.QIA_SQ_SIG_ALL;
import static io.jrdma.ibverbs.QpStructs.QIA_SRQ;
import static io.jrdma.ibverbs.QpStructs.QP;
import static io.jrdma.ibverbs.QpStructs.QP_ATTR;
import static io.jrdma.ibverbs.QpStructs.QP_CONTEXT;
import static io.jrdma.ibverbs.QpStructs.QP_INIT_ATTR;
import static io.jrdma.ibverbs.QpStructs.QP_PD;
import static io.jrdma.ibverbs.QpStructs.QP_QP_CONTEXT;
import static io.jrdma.ibverbs.QpStructs.QP_QP_NUM;
import static io.jrdma.ibverbs.QpStructs.QP_QP_TYPE;
import static io.jrdma.ibverbs.QpStructs.QP_RECV_CQ;
import static io.jrdma.ibverbs.QpStructs.QP_SEND_CQ;
import static io.jrdma.ibverbs.QpStructs.QP_SRQ;
import static io.jrdma.ibverbs.QpStructs.QP_STATE;
import static io.jrdma.ibverbs.QpStructs.QA_QP_STATE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpTransitions;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A queue pair (struct ibv_qp). Posting translates the Java requests into native chains preallocated per QP
 * ({@link SendWrWriter}, {@link RecvWrWriter}) and calls the provider's post_send / post_recv from the context's
 * ops table, allocating nothing. Modify checks the IBTA state machine ({@link QpTransitions}) against the state
 * the device reports, for a clear message, then leaves the values to the kernel.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class IbvQp implements QueuePair {

    /** Most native requests one post call writes (longer chains are posted in batches). */
    static final int SLOTS = 64;

    final IbvContext context;
    final IbvPd pd;
    final MemorySegment ptr;
    private final long id;
    private final int qpn;
    private final QpType type;
    private final QpCap cap;
    private final IbvCq sendCq;
    private final IbvCq recvCq;
    private final IbvSrq srq;
    private final Arena arena = Arena.ofShared();
    private final SendWrWriter sends;
    private final RecvWrWriter recvs;
    private final MemorySegment badSend;
    private final MemorySegment badRecv;
    private final MemorySegment bind;
    private final MemorySegment unbindMr;
    private final MemorySegment postSendFn;
    private final MemorySegment postRecvFn;
    private final Lifecycle lifecycle;
    private volatile boolean closed;

    /**
     * How a QP is made and unmade: by libibverbs (ibv_create_qp, ibv_destroy_qp), or by librdmacm for a CM id
     * (rdma_create_qp, which also moves it to INIT or RTS; rdma_destroy_qp).
     */
    interface Lifecycle {
        /** Creates the QP from the filled ibv_qp_init_attr {@code init}: its pointer, or NULL with the errno. */
        LibIbverbs.Result create(MemorySegment init);

        /** Destroys {@code qp}: 0, or the errno. */
        int destroy(MemorySegment qp);

        /** Whether a new QP must be in RESET (false when the CM has moved it on). */
        default boolean startsInReset() {
            return true;
        }
    }

    private IbvQp(IbvPd pd, MemorySegment ptr, long id, QpType type, QpCap cap, IbvCq sendCq, IbvCq recvCq,
            IbvSrq srq, Lifecycle lifecycle) {
        this.lifecycle = lifecycle;
        this.context = pd.context;
        this.pd = pd;
        this.ptr = ptr;
        this.id = id;
        this.qpn = ptr.get(JAVA_INT, QP_QP_NUM);
        this.type = type;
        this.cap = cap;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.sends = new SendWrWriter(arena, Math.clamp(cap.maxSendWr(), 1, SLOTS), cap.maxSendSge(),
                cap.maxInlineData(), type);
        this.recvs = new RecvWrWriter(arena, Math.clamp(cap.maxRecvWr(), 1, SLOTS), cap.maxRecvSge(),
                "max_recv_sge");
        this.badSend = arena.allocate(8, 8);
        this.badRecv = arena.allocate(8, 8);
        this.bind = arena.allocate(WrStructs.MW_BIND);
        this.unbindMr = arena.allocate(ContextStructs.MR);
        this.postSendFn = context.postSend;
        this.postRecvFn = context.postRecv;
    }

    /** ibv_create_qp with the QP's id as qp_context, then the layout checks (context lock held). */
    static IbvQp create(IbvPd pd, QpInitAttr attr) {
        LibIbverbs lib = pd.context.lib;
        return create(pd, attr, new Lifecycle() {
            @Override
            public LibIbverbs.Result create(MemorySegment init) {
                return LibIbverbs.call(lib.createQp, pd.ptr, init);
            }

            @Override
            public int destroy(MemorySegment qp) {
                LibIbverbs.Result r = LibIbverbs.call(lib.destroyQp, qp);
                return r.value() == 0 ? 0 : LibIbverbs.failure(r);
            }
        });
    }

    /** As {@link #create(IbvPd, QpInitAttr)}, the native QP made and unmade by {@code lifecycle}. */
    static IbvQp create(IbvPd pd, QpInitAttr attr, Lifecycle lifecycle) {
        if (attr == null || attr.qpType() == null) {
            throw new VerbsException(Errno.EINVAL, "create_qp needs attributes with a QP type");
        }
        IbvContext ctx = pd.context;
        IbvCq sendCq = cqOf(ctx, attr.sendCq(), "send");
        IbvCq recvCq = cqOf(ctx, attr.recvCq(), "receive");
        IbvSrq srq = null;
        if (attr.srq() != null) {
            if (!(attr.srq() instanceof IbvSrq s) || s.context != ctx || s.closed()) {
                throw new VerbsException(Errno.EINVAL, "the QP's SRQ must be an open SRQ of the same context");
            }
            if (s.pd != pd) {
                throw new VerbsException(Errno.EINVAL, "the SRQ belongs to another protection domain than the QP");
            }
            srq = s;
        }
        if (attr.cap() == null) {
            throw new VerbsException(Errno.EINVAL, "QpInitAttr.cap is missing");
        }
        AttrChecks.caps(attr.cap(), srq != null, ctx.attrs());
        long id = ctx.qps.reserve();
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment init = tmp.allocate(QP_INIT_ATTR);
            init.set(JAVA_LONG, QIA_QP_CONTEXT, id);
            init.set(JAVA_LONG, QIA_SEND_CQ, sendCq.ptr.address());
            init.set(JAVA_LONG, QIA_RECV_CQ, recvCq.ptr.address());
            init.set(JAVA_LONG, QIA_SRQ, srq == null ? 0 : srq.ptr.address());
            AttrCodec.writeCap(init, QIA_CAP, attr.cap());
            init.set(JAVA_INT, QIA_QP_TYPE, attr.qpType().code());
            init.set(JAVA_INT, QIA_SQ_SIG_ALL, attr.sqSigAll() ? 1 : 0);
            LibIbverbs.Result r = lifecycle.create(init);
            if (r.isNull()) {
                ctx.qps.remove(id);
                throw Errors.of(r.errno(), (lifecycle.startsInReset() ? "ibv_create_qp(" : "rdma_create_qp(")
                        + attr.qpType() + ", " + attr.cap() + ")");
            }
            MemorySegment qp = r.pointer().reinterpret(QP.byteSize());
            SelfCheck.pointer(qp, QP_CONTEXT, ctx.ptr, "ibv_qp.context");
            SelfCheck.pointer(qp, QP_PD, pd.ptr, "ibv_qp.pd");
            SelfCheck.pointer(qp, QP_SEND_CQ, sendCq.ptr, "ibv_qp.send_cq");
            SelfCheck.pointer(qp, QP_RECV_CQ, recvCq.ptr, "ibv_qp.recv_cq");
            SelfCheck.pointer(qp, QP_SRQ, srq == null ? MemorySegment.NULL : srq.ptr, "ibv_qp.srq");
            SelfCheck.pointer(qp, QP_QP_CONTEXT, MemorySegment.ofAddress(id), "ibv_qp.qp_context");
            SelfCheck.value(qp, QP_QP_TYPE, attr.qpType().code(), "ibv_qp.qp_type");
            if (lifecycle.startsInReset()) {
                SelfCheck.value(qp, QP_STATE, QpState.RESET.code(), "ibv_qp.state");
            }
            int qpn = qp.get(JAVA_INT, QP_QP_NUM);
            if (qpn <= 1 || qpn > 0xFFFFFF) {
                throw SelfCheck.mismatch("ibv_qp.qp_num is " + qpn + ", not a 24-bit number above QP1");
            }
            QpCap granted = granted(ctx, qp, AttrCodec.readCap(init, QIA_CAP, new QpCap()));
            IbvQp q = new IbvQp(pd, qp, id, attr.qpType(), granted, sendCq, recvCq, srq, lifecycle);
            ctx.qps.set(id, q);
            sendCq.retain();
            recvCq.retain();
            if (srq != null) {
                srq.retain();
            }
            return q;
        }
    }

    /**
     * The caps a new QP really has: ibv_create_qp writes some back into its init attributes, but kernel rxe reports
     * the queue sizes it rounded up to (a power of two less one) only to ibv_query_qp; the larger of each.
     */
    private static QpCap granted(IbvContext ctx, MemorySegment qp, QpCap created) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment a = SelfCheck.withCanary(tmp, QP_ATTR);
            MemorySegment init = SelfCheck.withCanary(tmp, QP_INIT_ATTR);
            LibIbverbs.Result r = LibIbverbs.call(ctx.lib.queryQp, qp, a, QpAttrMask.CAP.bit(), init);
            if (r.value() != 0) {
                return created;
            }
            SelfCheck.canary(a, QP_ATTR, "ibv_query_qp");
            SelfCheck.canary(init, QP_INIT_ATTR, "ibv_query_qp");
            QpCap q = AttrCodec.readCap(a, QpStructs.QA_CAP, new QpCap());
            return new QpCap(Math.max(created.maxSendWr(), q.maxSendWr()), Math.max(created.maxRecvWr(),
                    q.maxRecvWr()), Math.max(created.maxSendSge(), q.maxSendSge()), Math.max(created.maxRecvSge(),
                    q.maxRecvSge()), Math.max(created.maxInlineData(), q.maxInlineData()));
        }
    }

    private static IbvCq cqOf(IbvContext ctx, Object cq, String role) {
        if (!(cq instanceof IbvCq c) || c.context != ctx || c.closed()) {
            throw new VerbsException(Errno.EINVAL, "the QP's " + role + " CQ must be an open CQ of the same context");
        }
        return c;
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public QpState state() {
        synchronized (context) {
            checkOpen();
            return queryState();
        }
    }

    /** ibv_query_qp for the state alone (context lock held). */
    private QpState queryState() {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment attr = SelfCheck.withCanary(tmp, QP_ATTR);
            MemorySegment init = SelfCheck.withCanary(tmp, QP_INIT_ATTR);
            LibIbverbs.Result r = LibIbverbs.call(context.lib.queryQp, ptr, attr, QpAttrMask.STATE.bit(), init);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_query_qp(QP " + qpn + ")");
            }
            SelfCheck.canary(attr, QP_ATTR, "ibv_query_qp");
            SelfCheck.canary(init, QP_INIT_ATTR, "ibv_query_qp");
            return AttrCodec.state(attr.get(JAVA_INT, QA_QP_STATE));
        }
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public QpCap cap() {
        return new QpCap().copyFrom(cap);
    }

    /** Whether the QP is destroyed. */
    boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "QP " + qpn + " is destroyed");
        }
    }

    @Override
    public void modify(QpAttr attr, Set<QpAttrMask> mask) {
        int bits = QpAttrMask.toBits(mask);
        synchronized (context) {
            checkOpen();
            QpState cur = queryState();
            QpState from = mask.contains(QpAttrMask.CUR_STATE) && attr.curQpState() != null ? attr.curQpState() : cur;
            QpState next = mask.contains(QpAttrMask.STATE) ? attr.qpState() : from;
            if (next == null) {
                throw new VerbsException(Errno.EINVAL, "qp_state is missing");
            }
            QpTransitions.validate(type, from, next, bits);
            AttrChecks.values(context, attr, mask);
            try (Arena tmp = Arena.ofConfined()) {
                MemorySegment a = tmp.allocate(QP_ATTR);
                AttrCodec.writeQp(a, attr);
                LibIbverbs.Result r = LibIbverbs.call(context.lib.modifyQp, ptr, a, bits);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_modify_qp(QP " + qpn + ", " + cur + " -> " + next
                            + ", " + QpAttrMask.names(bits) + ")");
                }
            }
        }
    }

    @Override
    public QpAttr query(QpAttr attr) {
        synchronized (context) {
            checkOpen();
            try (Arena tmp = Arena.ofConfined()) {
                MemorySegment a = SelfCheck.withCanary(tmp, QP_ATTR);
                MemorySegment init = SelfCheck.withCanary(tmp, QP_INIT_ATTR);
                LibIbverbs.Result r = LibIbverbs.call(context.lib.queryQp, ptr, a, QpAttrMask.ALL_BITS, init);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_query_qp(QP " + qpn + ")");
                }
                SelfCheck.canary(a, QP_ATTR, "ibv_query_qp");
                SelfCheck.canary(init, QP_INIT_ATTR, "ibv_query_qp");
                return AttrCodec.readQp(a, attr);
            }
        }
    }

    @Override
    public void postSend(SendWr wr) {
        checkOpen();
        SendWrWriter w = sends;
        int index = 0;
        SendWr cur = wr;
        while (cur != null) {
            int n = w.write(cur);
            if (n > 0) {
                int rc;
                try {
                    rc = (int) Ops.POST.invokeExact(postSendFn, ptr, w.wrs, badSend);
                } catch (Throwable t) {
                    throw new IllegalStateException("post_send failed", t);
                }
                if (rc != 0) {
                    throw Errors.of(Math.abs(rc), index + w.indexOf(badSend.get(JAVA_LONG, 0)), "ibv_post_send",
                            Math.abs(rc) == Errno.ENOMEM.code() ? "the send queue is full" : null);
                }
                w.posted();
            }
            if (w.refusal != null) {
                throw new VerbsException(w.refusalErrno, index + n, w.refusal);
            }
            index += n;
            cur = w.rest;
        }
    }

    @Override
    public void postRecv(RecvWr wr) {
        checkOpen();
        if (srq != null) {
            throw new VerbsException(Errno.EINVAL, 0, "QP " + qpn
                    + " takes its receive requests from an SRQ; post them to the SRQ");
        }
        RecvWrWriter.post(recvs, postRecvFn, ptr, badRecv, wr, "ibv_post_recv");
    }

    /** ibv_bind_mw as verbs.h defines it: its own checks, then the provider's bind_mw from the ops table. */
    @Override
    public int bindMw(MemoryWindow window, MwBind mwBind) {
        if (!(window instanceof IbvMw mw) || mw.closed()) {
            throw new VerbsException(Errno.EINVAL, "bind_mw needs an open memory window of this provider");
        }
        if (mw.type() != io.jrdma.verbs.MwType.TYPE_1) {
            throw new VerbsException(Errno.EINVAL, "ibv_bind_mw binds type 1 windows; bind a type 2 window with a "
                    + "BIND_MW work request");
        }
        var info = mwBind.bindInfo();
        IbvMr mr = null;
        if (info.mr() != null) {
            if (!(info.mr() instanceof IbvMr m) || m.closed()) {
                throw new VerbsException(Errno.EINVAL, "bind_info.mr is not a registered region of this provider");
            }
            mr = m;
        }
        if (mr == null && (info.addr() != 0 || info.length() != 0)) {
            throw new VerbsException(Errno.EINVAL, "bind_info has a range but no memory region");
        }
        if (mr != null && mr.pd != mw.pd) {
            throw new VerbsException(Errno.EPERM, "the memory region belongs to another protection domain than "
                    + "the window");
        }
        synchronized (context) {
            checkOpen();
            if (context.bindMw.address() == 0) {
                throw new VerbsException(Errno.EOPNOTSUPP, "the provider has no bind_mw");
            }
            bind.set(JAVA_LONG, WrStructs.MWB_WR_ID, mwBind.wrId());
            bind.set(JAVA_INT, WrStructs.MWB_SEND_FLAGS, mwBind.sendFlags());
            long bi = WrStructs.MWB_BIND_INFO;
            bind.set(JAVA_LONG, bi + WrStructs.BI_MR, mr != null ? mr.ptr.address() : unbindRegion(mw).address());
            bind.set(JAVA_LONG, bi + WrStructs.BI_ADDR, info.addr());
            bind.set(JAVA_LONG, bi + WrStructs.BI_LENGTH, info.length());
            bind.set(JAVA_INT, bi + WrStructs.BI_MW_ACCESS_FLAGS, info.mwAccessFlags());
            LibIbverbs.Result r = LibIbverbs.callAt(Ops.BIND_MW, context.bindMw, ptr, mw.ptr, bind);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_bind_mw(QP " + qpn + ")");
            }
            return mw.refreshRkey();
        }
    }

    /**
     * The region a zero-length bind (an unbind) names: a zeroed ibv_mr of the window's context and PD, not NULL,
     * because rdma-core 44's rxe provider reads {@code bind_info->mr->lkey} unconditionally in rxe_bind_mw (a
     * segfault for NULL); providers ignore the region of a zero-length bind.
     */
    private MemorySegment unbindRegion(IbvMw mw) {
        MemorySegment placeholder = unbindMr;
        placeholder.set(JAVA_LONG, ContextStructs.MR_CONTEXT, context.ptr.address());
        placeholder.set(JAVA_LONG, ContextStructs.MR_PD, mw.pd.ptr.address());
        return placeholder;
    }

    @Override
    public void close() {
        synchronized (context) {
            if (closed) {
                return;
            }
            int rc = lifecycle.destroy(ptr);
            if (rc != 0) {
                throw Errors.of(rc, "ibv_destroy_qp(QP " + qpn + ")");
            }
            closed = true;
            context.qps.remove(id);
            sendCq.release();
            recvCq.release();
            if (srq != null) {
                srq.release();
            }
            pd.release();
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "IbvQp[" + type + " " + qpn + "]";
    }
}
