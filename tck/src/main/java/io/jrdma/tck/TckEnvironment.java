package io.jrdma.tck;

import io.jrdma.verbs.Context;

/**
 * What a provider supplies to run the conformance suite: two device contexts that can reach each other. Found
 * with {@link java.util.ServiceLoader} (see EnvironmentLookup for tests run on the module path); a provider's test
 * build registers exactly one implementation, in {@code META-INF/services/io.jrdma.tck.TckEnvironment}.
 */
public interface TckEnvironment {

    /** Opens endpoint {@code 0} or {@code 1}: a fresh context on a device that can reach the other endpoint. */
    Context open(int endpoint);

    /** The GID index that carries the endpoint's routable address (RoCEv2 over IPv4: index 1 on rxe). */
    default int gidIndex() {
        return 1;
    }

    /** A short name for reports. */
    default String name() {
        return getClass().getSimpleName();
    }
}
