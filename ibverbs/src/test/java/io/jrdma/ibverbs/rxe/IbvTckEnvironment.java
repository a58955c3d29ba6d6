package io.jrdma.ibverbs.rxe;

import io.jrdma.tck.TckEnvironment;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Verbs;

/**
 * The native provider under the conformance suite: both endpoints are contexts on the same kernel device
 * ({@value #DEVICE_PROPERTY}, default {@code rxe0}), which reach each other by the device's loopback, through its
 * routable GID (index {@value #GID_PROPERTY}, default 1: the IPv4-mapped address on rxe).
 */
public final class IbvTckEnvironment implements TckEnvironment {

    /** The system property naming the device. */
    public static final String DEVICE_PROPERTY = "jrdma.tck.device";
    /** The system property naming the GID index. */
    public static final String GID_PROPERTY = "jrdma.tck.gid";

    @Override
    public Context open(int endpoint) {
        return Verbs.device("ibverbs:" + System.getProperty(DEVICE_PROPERTY, "rxe0")).open();
    }

    @Override
    public int gidIndex() {
        return Integer.getInteger(GID_PROPERTY, 1);
    }

    @Override
    public String name() {
        return "ibverbs:" + System.getProperty(DEVICE_PROPERTY, "rxe0");
    }
}
