package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.SrqTck;

/** {@link SrqTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvSrqTck extends SrqTck {
}
