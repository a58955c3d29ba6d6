package io.jrdma.verbs.spi;

import io.jrdma.verbs.Device;
import java.util.List;
import java.util.Optional;

/**
 * A source of devices, found with {@link java.util.ServiceLoader}: the soft RoCEv2 provider ({@code soft}) and the
 * native one over libibverbs ({@code ibverbs}). {@link io.jrdma.verbs.Verbs} lists providers by ascending
 * {@link #order()}, then by name.
 */
public interface Provider {

    /** {@link #order()} of providers that drive real devices (the kernel's RDMA stack): listed first. */
    int NATIVE_ORDER = 0;

    /** {@link #order()} of providers that emulate devices in this JVM: listed after the native ones (the default). */
    int SOFTWARE_ORDER = 100;

    /** The provider's name, as {@code jrdma.provider} and a qualified device name ({@code name:device}) spell it. */
    String name();

    /** The devices this provider offers now (configured ones; may be empty). */
    List<Device> devices();

    /**
     * Why this provider offers no device, for error messages: for example "libibverbs.so.1 lists no device
     * (ibv_get_device_list: Function not implemented — no RDMA device or kernel support)". Empty while the
     * provider works, or when it has nothing to explain.
     */
    default Optional<String> unavailableReason() {
        return Optional.empty();
    }

    /** Where this provider's devices come in {@link io.jrdma.verbs.Verbs#devices()}: lower first. */
    default int order() {
        return SOFTWARE_ORDER;
    }
}
