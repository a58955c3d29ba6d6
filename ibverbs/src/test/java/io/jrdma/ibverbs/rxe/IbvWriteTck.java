package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.WriteTck;

/** {@link WriteTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvWriteTck extends WriteTck {
}
