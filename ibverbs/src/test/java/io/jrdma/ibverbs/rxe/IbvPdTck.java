package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.PdTck;

/** {@link PdTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvPdTck extends PdTck {
}
