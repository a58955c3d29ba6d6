package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.MwTck;

/** {@link MwTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvMwTck extends MwTck {
}
