package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.AsyncEventTck;

/** {@link AsyncEventTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvAsyncEventTck extends AsyncEventTck {
}
