package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.SendRecvTck;

/** {@link SendRecvTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvSendRecvTck extends SendRecvTck {
}
