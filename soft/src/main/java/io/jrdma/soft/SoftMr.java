package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;

/** A registered memory region: a native segment, its virtual address range, keys and access rights. */
final class SoftMr implements MemoryRegion {

    final SoftPd pd;
    final MemorySegment segment;
    final long address;
    final long length;
    final int key;
    final int access;
    private volatile boolean valid = true;
    private int boundWindows; // memory windows bound to this region (rxe num_mw); engine lock held

    /** A window was bound to this region (engine lock held). */
    void windowBound() {
        boundWindows++;
    }

    /** A window bound to this region was unbound (engine lock held). */
    void windowUnbound() {
        boundWindows--;
    }

    /** Windows bound to this region now (rxe num_mw): it cannot be deregistered while any is. */
    int boundWindows() {
        return boundWindows;
    }

    private java.nio.ByteBuffer buffer;
    private boolean noBuffer;

    /**
     * A buffer view of the region for the engine to read payload by reference (ICRC), made on first use; null when
     * the memory is not native or larger than a buffer can be (the engine then copies). Engine thread only.
     */
    java.nio.ByteBuffer buffer() {
        if (buffer == null && !noBuffer) {
            if (segment.isNative() && segment.byteSize() <= Integer.MAX_VALUE && !segment.isReadOnly()) {
                buffer = segment.asByteBuffer();
            } else {
                noBuffer = true;
            }
        }
        return buffer;
    }

    SoftMr(SoftPd pd, MemorySegment segment, int key, int access) {
        this.pd = pd;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.key = key;
        this.access = access;
    }

    /** True when {@code [va, va + len)} lies inside the region (overflow-safe). */
    boolean covers(long va, long len) {
        long off = va - address;
        return len >= 0 && off >= 0 && off <= length && len <= length - off;
    }

    boolean allows(int flags) {
        return (access & flags) == flags;
    }

    boolean valid() {
        return valid;
    }

    void invalidate() {
        valid = false;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public void close() {
        pd.context.deregister(this);
    }

    @Override
    public String toString() {
        return String.format("MR[addr=0x%x len=%d key=0x%08x access=%s]", address, length, key,
                Access.describe(access));
    }
}
