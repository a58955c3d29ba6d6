package io.jrdma.verbs;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** A protection domain (ibv_pd): groups the QPs and memory regions that may be used together. */
public interface ProtectionDomain extends AutoCloseable {

    /** The context this PD belongs to. */
    Context context();

    /**
     * Registers native memory for local and remote access (ibv_reg_mr).
     *
     * @param segment native memory from a shared, global or automatic arena (the device's engine may run on
     *                another thread); heap and confined segments are refused with EINVAL
     * @param access  {@link Access} flags; REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE, as in libibverbs
     */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    /** Registers a direct byte buffer's memory (its whole capacity); see {@link #registerMemory(MemorySegment, int)}. */
    default MemoryRegion registerMemory(ByteBuffer directBuffer, int access) {
        if (!directBuffer.isDirect()) {
            throw new VerbsException(Errno.EINVAL, "only direct ByteBuffers can be registered");
        }
        return registerMemory(MemorySegment.ofBuffer(directBuffer.duplicate().clear()), access);
    }

    /** Creates a queue pair (ibv_create_qp); it starts in RESET. Its CQs and SRQ must be of the same context/PD. */
    QueuePair createQp(QpInitAttr attr);

    /**
     * Creates an address handle for UD sends (ibv_create_ah). On RoCE the address must be global (is_global, a
     * dgid the device can reach).
     */
    AddressHandle createAh(AhAttr attr);

    /** Creates a shared receive queue (ibv_create_srq) with at least {@code attr.maxWr()} entries. */
    SharedReceiveQueue createSrq(SrqAttr attr);

    /** Allocates an unbound memory window (ibv_alloc_mw). */
    MemoryWindow allocMw(MwType type);

    /** Deallocates the PD (ibv_dealloc_pd); EBUSY while a QP, MR, MW, AH or SRQ still belongs to it. */
    @Override
    void close();
}
