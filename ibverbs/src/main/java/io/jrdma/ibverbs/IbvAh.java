package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.ContextStructs.AH;
import static io.jrdma.ibverbs.ContextStructs.AH_CONTEXT;
import static io.jrdma.ibverbs.ContextStructs.AH_PD;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** An address handle (struct ibv_ah) for UD sends. */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class IbvAh implements AddressHandle {

    final IbvPd pd;
    final MemorySegment ptr;
    private final AhAttr attr;
    private volatile boolean closed;

    private IbvAh(IbvPd pd, MemorySegment ptr, AhAttr attr) {
        this.pd = pd;
        this.ptr = ptr;
        this.attr = new AhAttr().copyFrom(attr);
    }

    /** ibv_create_ah (context lock held). */
    static IbvAh create(IbvPd pd, AhAttr attr) {
        AttrChecks.av(pd.context, attr, "ah_attr");
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment a = tmp.allocate(QpStructs.AH_ATTR);
            AttrCodec.writeAh(a, 0, attr);
            LibIbverbs.Result r = LibIbverbs.call(pd.context.lib.createAh, pd.ptr, a);
            if (r.isNull()) {
                throw Errors.of(r.errno(), "ibv_create_ah(" + attr + ")");
            }
            MemorySegment ah = r.pointer().reinterpret(AH.byteSize());
            SelfCheck.pointer(ah, AH_CONTEXT, pd.context.ptr, "ibv_ah.context");
            SelfCheck.pointer(ah, AH_PD, pd.ptr, "ibv_ah.pd");
            return new IbvAh(pd, ah, attr);
        }
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public AhAttr attr() {
        return new AhAttr().copyFrom(attr);
    }

    /** Whether the handle is destroyed. */
    boolean closed() {
        return closed;
    }

    @Override
    public void close() {
        synchronized (pd.context) {
            if (closed) {
                return;
            }
            LibIbverbs.Result r = LibIbverbs.call(pd.context.lib.destroyAh, ptr);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_destroy_ah");
            }
            closed = true;
            pd.release();
        }
    }
}
