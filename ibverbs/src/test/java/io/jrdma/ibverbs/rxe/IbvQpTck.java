package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.QpTck;

/** {@link QpTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvQpTck extends QpTck {
}
