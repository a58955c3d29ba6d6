package io.jrdma.ibverbs;

import io.jrdma.verbs.Device;
import io.jrdma.verbs.spi.Provider;
import java.util.List;
import java.util.Optional;

/**
 * The native provider, {@code ibverbs}: the devices libibverbs.so.1 lists (the kernel's names: {@code rxe0},
 * {@code mlx5_0}), listed before the soft provider's. Without the library, without native access, or without a
 * device it lists none, and {@link #unavailableReason()} says why; nothing is thrown at the caller.
 *
 * <p>The library is loaded and the devices are listed once per process, on first use. The system property
 * {@value LibIbverbs#LIBRARY_PROPERTY} names another library than {@value LibIbverbs#DEFAULT_LIBRARY}.
 */
public final class IbvProvider implements Provider {

    /** The provider's name. */
    public static final String NAME = "ibverbs";

    private final DeviceList list;

    /** Used by {@link java.util.ServiceLoader}: the process-wide device list. */
    public IbvProvider() {
        this(null);
    }

    /** A provider over {@code list}, or over the process-wide list when null. */
    IbvProvider(DeviceList list) {
        this.list = list;
    }

    private DeviceList list() {
        return list != null ? list : DeviceList.get();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Device> devices() {
        return List.copyOf(list().devices());
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(list().reason());
    }

    @Override
    public int order() {
        return NATIVE_ORDER;
    }
}
