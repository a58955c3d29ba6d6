package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.ProtectionDomain;

/**
 * A memory window (kernel rxe's rxe_mw): an rkey in the windows' part of the {@link MrTable} that grants remote
 * access to a range of a memory region. Type 1 windows are always in the VALID state and bound or rebound by
 * {@link SoftQp#bindMw}; a zero-length bind unbinds them. Type 2 windows start FREE, are bound by a BIND_MW work
 * request (and then belong to the QP that bound them, type 2B), and go back to FREE when invalidated by LOCAL_INV or
 * an incoming SEND with Invalidate. Closing a window makes it INVALID and its rkey dies at once.
 *
 * <p>The window's state is changed only under the engine lock (binds and invalidations run in engine passes, close
 * on the control path), and read by the engine, so the responder never sees a half-made bind.
 */
final class SoftMw implements MemoryWindow {

    static final int FREE = 0;
    static final int VALID = 1;
    static final int INVALID = 2;

    final SoftPd pd;
    final MwType type;
    final int slot;

    /**
     * The rkey as the consumer sees it (ibv_mw.rkey): set when a bind is posted, as ibv_bind_mw does, so it can be
     * handed to the peer at once; put back to {@link #key} when a bind fails.
     */
    private volatile int userKey;

    // --- device state, engine lock held
    volatile int key;       // the rkey that works now
    int state;
    volatile boolean closed;
    SoftMr mr;              // the region the window lies in; null while unbound
    long addr;
    long length;
    int access;
    SoftQp qp;              // type 2: the QP that bound it, the only one that may use it

    SoftMw(SoftPd pd, MwType type, int key) {
        this.pd = pd;
        this.type = type;
        this.slot = key >>> 8;
        this.key = key;
        this.userKey = key;
        this.state = type == MwType.TYPE_2 ? FREE : VALID;
    }

    void userKey(int rkey) {
        userKey = rkey;
    }

    /**
     * Whether a request arriving at {@code at} may touch {@code [va, va + len)} with {@code access} through this
     * window: bound and valid, of the QP's PD, bound by that QP (type 2), granting the right, and the range inside
     * the window. rxe_lookup_mw checks all of these but the range, which rxe leaves to the MR's bounds; IBA asks that
     * the access lie inside the window, so this checks the window's bounds too.
     */
    boolean admits(SoftQp at, long va, long len, int access) {
        if (state != VALID || length == 0 || pd != at.pd || (type == MwType.TYPE_2 && qp != at)
                || (this.access & access) != access) {
            return false;
        }
        long off = va - addr;
        return len >= 0 && off >= 0 && off <= length && len <= length - off;
    }

    /** Deallocated (control path, device lock held): no key of it works again. */
    void markClosed() {
        closed = true;
        state = INVALID;
    }

    /**
     * rxe_do_bind_mw: binds the window to {@code [addr, addr + length)} of {@code region} (none for a zero-length
     * unbind) with the consumer's key byte and rights; a type 2 window only for {@code boundBy} (engine lock held).
     */
    void bind(int keyByte, SoftMr region, long addr, long length, int access, SoftQp boundBy) {
        unbind();
        key = (key & ~0xFF) | (keyByte & 0xFF);
        state = VALID;
        this.access = access;
        this.addr = addr;
        this.length = length;
        if (length != 0) {
            mr = region;
            region.windowBound();
        }
        if (type == MwType.TYPE_2) {
            qp = boundBy;
        }
    }

    /** Invalidated (LOCAL_INV, SEND with Invalidate): unbound and FREE until bound again (engine lock held). */
    void invalidate() {
        unbind();
        state = FREE;
    }

    /** Detaches the window from its region and QP (engine lock held). */
    void unbind() {
        if (mr != null) {
            mr.windowUnbound();
            mr = null;
        }
        qp = null;
        addr = 0;
        length = 0;
        access = 0;
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
        return userKey;
    }

    @Override
    public void close() {
        pd.context.deallocMw(this);
    }

    @Override
    public String toString() {
        return String.format("MW[type=%d rkey=0x%08x state=%s addr=0x%x len=%d access=%s]", type.code(), key,
                state == FREE ? "FREE" : state == VALID ? "VALID" : "INVALID", addr, length, Access.describe(access));
    }
}
