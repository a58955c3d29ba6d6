package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.MemorySegment;

/** A protection domain; counts its users so it cannot be closed under them. */
final class SoftPd implements ProtectionDomain {

    /** A thread that owns no arena (never started): a segment it cannot access is confined to its owner. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    final SoftContext context;
    final int handle;
    final UseCount users = new UseCount();
    boolean closed;

    SoftPd(SoftContext context, int handle) {
        this.context = context;
        this.handle = handle;
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        if (segment == null || !segment.isNative()) {
            throw new VerbsException(Errno.EINVAL, "only native memory can be registered (got "
                    + (segment == null ? "null" : "a heap segment") + ")");
        }
        if (segment.byteSize() == 0) {
            // as ibv_reg_mr: the kernel pins at least one page and refuses an empty range (ib_umem_get)
            throw new VerbsException(Errno.EINVAL, "cannot register a zero-length region");
        }
        if (!segment.isAccessibleBy(OTHER_THREAD)) {
            throw new VerbsException(Errno.EINVAL,
                    "the segment belongs to a confined arena; register memory of a shared, global or automatic arena");
        }
        int known = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC
                | Access.MW_BIND;
        if ((access & ~known) != 0) {
            throw new VerbsException(Errno.EINVAL, "unknown access flags 0x" + Integer.toHexString(access & ~known));
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (access & Access.LOCAL_WRITE) == 0) {
            throw new VerbsException(Errno.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE");
        }
        return context.register(this, segment, access);
    }

    @Override
    public QueuePair createQp(QpInitAttr attr) {
        return context.createQp(this, attr);
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        return context.createAh(this, attr);
    }

    @Override
    public SharedReceiveQueue createSrq(SrqAttr attr) {
        return context.createSrq(this, attr);
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        if (type == null) {
            throw new VerbsException(Errno.EINVAL, "memory window type is missing");
        }
        return context.allocMw(this, type);
    }

    @Override
    public void close() {
        context.deallocPd(this);
    }

    /** Destroyed (control path, device lock held): every later use of it fails. */
    void markClosed() {
        closed = true;
    }
}
