package io.jrdma.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region (ibv_mr): native memory the device may read and write, named by its keys.
 *
 * <p>Addresses are the segment's native addresses ({@link MemorySegment#address()}), as virtual addresses are
 * in libibverbs, so a remote peer names bytes of this region by {@code address() + offset}.
 */
public interface MemoryRegion extends AutoCloseable {

    /** The registered memory. */
    MemorySegment segment();

    /** The first virtual address of the region (ibv_mr.addr). */
    long address();

    /** The length in bytes (ibv_mr.length). */
    long length();

    /** The local key, for scatter/gather entries (ibv_mr.lkey). */
    int lkey();

    /** The remote key, for a peer's RDMA and atomic operations (ibv_mr.rkey). */
    int rkey();

    /** The access flags the region was registered with ({@link Access}). */
    int access();

    /** The protection domain the region belongs to. */
    ProtectionDomain pd();

    /**
     * Deregisters the region (ibv_dereg_mr): both keys stop working at once; the memory is the caller's.
     *
     * @throws VerbsException EINVAL while memory windows are bound to the region (as rxe, IBA 10.6.7.2.6)
     */
    @Override
    void close();
}
