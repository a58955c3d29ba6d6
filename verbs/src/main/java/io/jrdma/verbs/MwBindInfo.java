package io.jrdma.verbs;

/**
 * What a memory window is bound to (ibv_mw_bind_info): a range of a memory region and the remote rights it
 * grants. A length of 0 with no MR unbinds the window. Mutable and reusable.
 */
public final class MwBindInfo {

    private MemoryRegion mr;
    private long addr;
    private long length;
    private int mwAccessFlags;

    /** No MR, zero range, no rights. */
    public MwBindInfo() {
    }

    /** The region the window lies in (ibv_mw_bind_info.mr). */
    public MemoryRegion mr() {
        return mr;
    }

    /** Sets the region; returns this. */
    public MwBindInfo mr(MemoryRegion mr) {
        this.mr = mr;
        return this;
    }

    /** The window's first virtual address (ibv_mw_bind_info.addr). */
    public long addr() {
        return addr;
    }

    /** Sets the first address; returns this. */
    public MwBindInfo addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** The window's length in bytes (ibv_mw_bind_info.length). */
    public long length() {
        return length;
    }

    /** Sets the length; returns this. */
    public MwBindInfo length(long length) {
        this.length = length;
        return this;
    }

    /** The remote rights ({@link Access} REMOTE_* bits) the window grants (ibv_mw_bind_info.mw_access_flags). */
    public int mwAccessFlags() {
        return mwAccessFlags;
    }

    /** Sets the remote rights; returns this. */
    public MwBindInfo mwAccessFlags(int mwAccessFlags) {
        this.mwAccessFlags = mwAccessFlags;
        return this;
    }

    /** Copies every field of {@code other}; returns this. */
    public MwBindInfo copyFrom(MwBindInfo other) {
        mr = other.mr;
        addr = other.addr;
        length = other.length;
        mwAccessFlags = other.mwAccessFlags;
        return this;
    }

    @Override
    public String toString() {
        return String.format("MwBindInfo{addr=0x%x, length=%d, access=%s}", addr, length,
                Access.describe(mwAccessFlags));
    }
}
