package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.UcTck;

/** {@link UcTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvUcTck extends UcTck {
}
