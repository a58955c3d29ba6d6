package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.IsolationTck;

/** {@link IsolationTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvIsolationTck extends IsolationTck {
}
