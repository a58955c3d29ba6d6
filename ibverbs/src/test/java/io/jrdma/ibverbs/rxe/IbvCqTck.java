package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.CqTck;

/** {@link CqTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvCqTck extends CqTck {
}
