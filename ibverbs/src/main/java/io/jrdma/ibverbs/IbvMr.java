package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.ContextStructs.MR;
import static io.jrdma.ibverbs.ContextStructs.MR_ADDR;
import static io.jrdma.ibverbs.ContextStructs.MR_CONTEXT;
import static io.jrdma.ibverbs.ContextStructs.MR_LENGTH;
import static io.jrdma.ibverbs.ContextStructs.MR_LKEY;
import static io.jrdma.ibverbs.ContextStructs.MR_PD;
import static io.jrdma.ibverbs.ContextStructs.MR_RKEY;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;

/** A registered memory region (struct ibv_mr) over a native segment: the device reads and writes it in place. */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class IbvMr implements MemoryRegion {

    final IbvPd pd;
    final MemorySegment ptr;
    private final MemorySegment segment;
    private final int lkey;
    private final int rkey;
    private final int access;
    private boolean closed;

    private IbvMr(IbvPd pd, MemorySegment ptr, MemorySegment segment, int access) {
        this.pd = pd;
        this.ptr = ptr;
        this.segment = segment;
        this.lkey = ptr.get(JAVA_INT, MR_LKEY);
        this.rkey = ptr.get(JAVA_INT, MR_RKEY);
        this.access = access;
    }

    /** ibv_reg_mr (context lock held). */
    static IbvMr register(IbvPd pd, MemorySegment segment, int access) {
        LibIbverbs lib = pd.context.lib;
        LibIbverbs.Result r = LibIbverbs.call(lib.regMr, pd.ptr, segment, segment.byteSize(), access);
        if (r.isNull()) {
            throw Errors.regMr(r.errno(), segment.address(), segment.byteSize());
        }
        MemorySegment mr = r.pointer().reinterpret(MR.byteSize());
        SelfCheck.pointer(mr, MR_CONTEXT, pd.context.ptr, "ibv_mr.context");
        SelfCheck.pointer(mr, MR_PD, pd.ptr, "ibv_mr.pd");
        SelfCheck.pointer(mr, MR_ADDR, segment, "ibv_mr.addr");
        if (mr.get(JAVA_LONG, MR_LENGTH) != segment.byteSize()) {
            throw SelfCheck.mismatch("ibv_mr.length is " + mr.get(JAVA_LONG, MR_LENGTH) + ", expected "
                    + segment.byteSize());
        }
        return new IbvMr(pd, mr, segment, access);
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    /** Whether the region is deregistered (context lock held). */
    boolean closed() {
        return closed;
    }

    /** ibv_dereg_mr; kernel rxe refuses it with EINVAL while memory windows are bound to the region. */
    @Override
    public void close() {
        synchronized (pd.context) {
            if (closed) {
                return;
            }
            LibIbverbs.Result r = LibIbverbs.call(pd.context.lib.deregMr, ptr);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_dereg_mr(" + this + ")");
            }
            closed = true;
            pd.release();
        }
    }

    @Override
    public String toString() {
        return String.format("MR[addr=0x%x len=%d lkey=0x%08x rkey=0x%08x access=%s]", address(), length(), lkey,
                rkey, Access.describe(access));
    }
}
