package io.jrdma.tck.soft;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.tck.TckEnvironment;
import io.jrdma.verbs.Context;

/**
 * The soft device under the conformance suite: endpoint 0 on 127.0.20.1, endpoint 1 on 127.0.20.2, both driven by
 * the test thread (invoker threading), so every run is deterministic.
 */
public final class SoftTckEnvironment implements TckEnvironment {

    @Override
    public Context open(int endpoint) {
        return SoftDevice.builder().name("tck" + endpoint).address("127.0.20." + (endpoint + 1))
                .threading(Threading.INVOKER).build().open();
    }
}
