package io.jrdma.soft;

import io.jrdma.verbs.Device;
import io.jrdma.verbs.spi.Provider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The soft RoCEv2 provider. Its devices are, first match wins (see {@link DeviceConfig}):
 * <ol>
 *   <li>the system property {@code jrdma.devices} or the environment variable {@code JRDMA_DEVICES}: a
 *       comma-separated list of {@code name=ipv4} (a bare address is named {@code rxe<N>});</li>
 *   <li>the per-user configuration file that {@code jrdma link add|delete} edits
 *       ({@code ~/.config/jrdma/devices.conf}; {@code jrdma.config} / {@code JRDMA_CONFIG} names another);</li>
 *   <li>one device {@code rxe0} on 127.0.0.1.</li>
 * </ol>
 * {@code jrdma.threading} / {@code JRDMA_THREADING} chooses {@code adaptive} (default), {@code invoker} or
 * {@code dedicated}, and
 * {@code jrdma.idle} / {@code JRDMA_IDLE} a dedicated engine's {@link IdleStrategy#named idle strategy}. The
 * list is read again on every call, so a program sees devices added since it started.
 */
public final class SoftProvider implements Provider {

    /** The provider's name. */
    public static final String NAME = "soft";

    private static final Map<String, SoftDevice> DEVICES = new LinkedHashMap<>();

    /** Used by {@link java.util.ServiceLoader}. */
    public SoftProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Device> devices() {
        Threading threading = Threading.named(Settings.get("jrdma.threading", "JRDMA_THREADING", "adaptive"));
        String idle = Settings.get("jrdma.idle", "JRDMA_IDLE", "backoff"); // a device reads it when built
        List<Device> out = new ArrayList<>();
        for (DeviceConfig.Entry e : DeviceConfig.effective().entries()) {
            String key = e.name() + "=" + e.address() + "/" + threading + "/" + idle;
            synchronized (DEVICES) {
                out.add(DEVICES.computeIfAbsent(key, k -> SoftDevice.builder().name(e.name()).address(e.address())
                        .threading(threading).build()));
            }
        }
        return out;
    }
}
