package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.AtomicTck;

/** {@link AtomicTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvAtomicTck extends AtomicTck {
}
