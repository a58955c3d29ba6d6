package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.ContextStructs.MW;
import static io.jrdma.ibverbs.ContextStructs.MW_CONTEXT;
import static io.jrdma.ibverbs.ContextStructs.MW_PD;
import static io.jrdma.ibverbs.ContextStructs.MW_RKEY;
import static io.jrdma.ibverbs.ContextStructs.MW_TYPE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.MemorySegment;

/**
 * A memory window (struct ibv_mw), allocated and freed through the provider's alloc_mw / dealloc_mw in the
 * context's ops table (verbs.h's inline ibv_alloc_mw and ibv_dealloc_mw). Its {@link #rkey()} follows the binds
 * posted: ibv_bind_mw's (type 1) as the provider sets it, a BIND_MW request's (type 2) when it is posted.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class IbvMw implements MemoryWindow {

    final IbvPd pd;
    final MemorySegment ptr;
    private final MwType type;
    private volatile int rkey;
    private volatile boolean closed;

    private IbvMw(IbvPd pd, MemorySegment ptr, MwType type) {
        this.pd = pd;
        this.ptr = ptr;
        this.type = type;
        this.rkey = ptr.get(JAVA_INT, MW_RKEY);
    }

    /** pd->context->ops.alloc_mw(pd, type) (context lock held). */
    static IbvMw alloc(IbvPd pd, MwType type) {
        IbvContext ctx = pd.context;
        if (ctx.allocMw.address() == 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "the provider has no alloc_mw: no memory window support");
        }
        LibIbverbs.Result r = LibIbverbs.callAt(Ops.ALLOC_MW, ctx.allocMw, pd.ptr, type.code());
        if (r.isNull()) {
            throw Errors.of(r.errno(), "ibv_alloc_mw(" + type + ")");
        }
        MemorySegment mw = r.pointer().reinterpret(MW.byteSize());
        SelfCheck.pointer(mw, MW_CONTEXT, ctx.ptr, "ibv_mw.context");
        SelfCheck.pointer(mw, MW_PD, pd.ptr, "ibv_mw.pd");
        SelfCheck.value(mw, MW_TYPE, type.code(), "ibv_mw.type");
        return new IbvMw(pd, mw, type);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public MwType type() {
        return type;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    /**
     * A BIND_MW request giving the window {@code rkey} was posted: the struct's rkey follows too, as ibv_bind_mw
     * makes it for type 1, since providers take the window's current rkey from it for its next bind or
     * invalidation (kernel rxe refuses a bind naming a stale one with MW_BIND_ERR).
     */
    void rkey(int rkey) {
        this.rkey = rkey;
        ptr.set(JAVA_INT, MW_RKEY, rkey);
    }

    /** Takes the rkey ibv_bind_mw left in the struct; returns it. */
    int refreshRkey() {
        rkey = ptr.get(JAVA_INT, MW_RKEY);
        return rkey;
    }

    /** Whether the window is deallocated. */
    boolean closed() {
        return closed;
    }

    @Override
    public void close() {
        synchronized (pd.context) {
            if (closed) {
                return;
            }
            LibIbverbs.Result r = LibIbverbs.callAt(Ops.DEALLOC_MW, pd.context.deallocMw, ptr);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_dealloc_mw");
            }
            closed = true;
            pd.release();
        }
    }
}
