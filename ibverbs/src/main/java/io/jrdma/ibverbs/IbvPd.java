package io.jrdma.ibverbs;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.MemorySegment;

/**
 * A protection domain (struct ibv_pd). It counts its MRs, MWs, QPs, SRQs and AHs, so it is not deallocated under
 * them (EBUSY). Its resources' control-path calls run under its context's lock.
 */
final class IbvPd implements ProtectionDomain {

    /** A thread that owns no arena (never started): a segment it cannot access is confined to its owner. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });
    private static final int KNOWN_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
            | Access.REMOTE_ATOMIC | Access.MW_BIND;

    final IbvContext context;
    final MemorySegment ptr;
    private int users;
    boolean closed;

    IbvPd(IbvContext context, MemorySegment ptr) {
        this.context = context;
        this.ptr = ptr;
    }

    @Override
    public Context context() {
        return context;
    }

    /** One more resource of this PD (context lock held). */
    void retain() {
        users++;
    }

    /** One resource fewer (context lock held). */
    void release() {
        users--;
    }

    /** Throws EINVAL when this PD or its context is closed (context lock held). */
    void checkOpen() {
        context.checkOpen();
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "protection domain is deallocated");
        }
    }

    /**
     * ibv_reg_mr over the segment's own address (zero copy). Heap and confined segments are refused as the soft
     * provider refuses them; ENOMEM and EPERM from the kernel explain the memlock limit.
     */
    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        if (segment == null || !segment.isNative()) {
            throw new VerbsException(Errno.EINVAL, "only native memory can be registered (got "
                    + (segment == null ? "null" : "a heap segment") + "); allocate it from an Arena");
        }
        if (segment.byteSize() == 0) {
            throw new VerbsException(Errno.EINVAL, "cannot register a zero-length region");
        }
        if (!segment.isAccessibleBy(OTHER_THREAD)) {
            throw new VerbsException(Errno.EINVAL,
                    "the segment belongs to a confined arena; register memory of a shared, global or automatic arena");
        }
        if ((access & ~KNOWN_ACCESS) != 0) {
            throw new VerbsException(Errno.EINVAL, "unknown access flags 0x"
                    + Integer.toHexString(access & ~KNOWN_ACCESS));
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (access & Access.LOCAL_WRITE) == 0) {
            throw new VerbsException(Errno.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE");
        }
        synchronized (context) {
            checkOpen();
            IbvMr mr = IbvMr.register(this, segment, access);
            users++;
            return mr;
        }
    }

    @Override
    public QueuePair createQp(QpInitAttr attr) {
        synchronized (context) {
            checkOpen();
            IbvQp qp = IbvQp.create(this, attr);
            users++;
            return qp;
        }
    }

    @Override
    public AddressHandle createAh(AhAttr attr) {
        if (attr == null) {
            throw new VerbsException(Errno.EINVAL, "ah_attr is missing");
        }
        synchronized (context) {
            checkOpen();
            IbvAh ah = IbvAh.create(this, attr);
            users++;
            return ah;
        }
    }

    @Override
    public SharedReceiveQueue createSrq(SrqAttr attr) {
        if (attr == null) {
            throw new VerbsException(Errno.EINVAL, "create_srq needs attributes");
        }
        synchronized (context) {
            checkOpen();
            IbvSrq srq = IbvSrq.create(this, attr);
            users++;
            return srq;
        }
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        if (type == null) {
            throw new VerbsException(Errno.EINVAL, "memory window type is missing");
        }
        synchronized (context) {
            checkOpen();
            IbvMw mw = IbvMw.alloc(this, type);
            users++;
            return mw;
        }
    }

    @Override
    public void close() {
        synchronized (context) {
            if (closed) {
                return;
            }
            if (users > 0) {
                throw new VerbsException(Errno.EBUSY, "protection domain still has " + users
                        + " memory region(s), window(s), QP(s), SRQ(s) or address handle(s)");
            }
            LibIbverbs.Result r = LibIbverbs.call(context.lib.deallocPd, ptr);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_dealloc_pd");
            }
            closed = true;
            context.pdClosed();
        }
    }

    @Override
    public String toString() {
        return "IbvPd[0x" + Long.toHexString(ptr.address()) + "]";
    }
}
