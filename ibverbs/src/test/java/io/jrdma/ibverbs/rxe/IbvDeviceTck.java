package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.DeviceTck;

/** {@link DeviceTck} on a kernel RDMA device through the native provider (run by {@link NativeTckMain}). */
public class IbvDeviceTck extends DeviceTck {
}
