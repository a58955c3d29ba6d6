package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.ReadTck;

/** {@link ReadTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvReadTck extends ReadTck {
}
