package io.jrdma.verbs.spi;

import io.jrdma.verbs.Device;
import java.util.List;

/** A source of devices, found with {@link java.util.ServiceLoader} (the soft RoCEv2 provider, later a native one). */
public interface Provider {

    /** The provider's name. */
    String name();

    /** The devices this provider offers now (configured ones; may be empty). */
    List<Device> devices();
}
