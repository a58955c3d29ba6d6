package io.jrdma.soft;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The memory side of IBA atomics (9.4.5): 64-bit CmpSwap and FetchAdd on a host-order {@code u64}, as kernel rxe
 * runs them on the target's memory. Each is one hardware atomic instruction through a {@link VarHandle}, so it is
 * atomic with respect to every other atomic of any soft device in the process and to CPU atomics on the same
 * memory, not only to the engine that runs it.
 */
final class AtomicOps {

    /** Native byte order, 8-byte aligned: libibverbs atomics work on the host's own {@code uint64_t}. */
    private static final VarHandle U64 = ValueLayout.JAVA_LONG.varHandle();

    private AtomicOps() {
    }

    /** True when {@code va} may be the target of an atomic: 8-byte aligned (IBA 9.4.5, rxe atomic_reply). */
    static boolean aligned(long va) {
        return (va & 7) == 0;
    }

    /**
     * Compare and swap at {@code offset} of {@code segment}: stores {@code swap} if the value equals
     * {@code compare}. The address must be 8-byte aligned.
     *
     * @return the value before the operation
     */
    static long compareAndSwap(MemorySegment segment, long offset, long compare, long swap) {
        return (long) U64.compareAndExchange(segment, offset, compare, swap);
    }

    /**
     * Fetch and add at {@code offset} of {@code segment}, wrapping modulo 2^64. The address must be 8-byte aligned.
     *
     * @return the value before the operation
     */
    static long fetchAndAdd(MemorySegment segment, long offset, long add) {
        return (long) U64.getAndAdd(segment, offset, add);
    }
}
