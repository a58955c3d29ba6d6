package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.QpQueueTck;

/** {@link QpQueueTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvQpQueueTck extends QpQueueTck {
}
