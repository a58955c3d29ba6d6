package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.MrTck;

/** {@link MrTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvMrTck extends MrTck {
}
