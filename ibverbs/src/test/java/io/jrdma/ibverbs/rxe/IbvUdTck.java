package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.UdTck;

/** {@link UdTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvUdTck extends UdTck {
}
