package io.jrdma.soft;

import io.jrdma.verbs.Device;
import io.jrdma.verbs.spi.Provider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The soft RoCEv2 provider. Its devices come from the system property {@code jrdma.devices} or the environment
 * variable {@code JRDMA_DEVICES}: a comma-separated list of {@code name=ipv4} (a bare address is named
 * {@code rxe<N>}); the default is one device {@code rxe0} on 127.0.0.1. {@code jrdma.threading} /
 * {@code JRDMA_THREADING} chooses {@code dedicated} (default) or {@code invoker}.
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
        String spec = setting("jrdma.devices", "JRDMA_DEVICES", "rxe0=127.0.0.1");
        Threading threading = Threading.valueOf(setting("jrdma.threading", "JRDMA_THREADING", "dedicated")
                .toUpperCase(Locale.ROOT));
        List<Device> out = new ArrayList<>();
        int n = 0;
        for (String item : spec.split(",")) {
            String s = item.trim();
            if (s.isEmpty()) {
                continue;
            }
            int eq = s.indexOf('=');
            String name = eq < 0 ? "rxe" + n : s.substring(0, eq).trim();
            String addr = eq < 0 ? s : s.substring(eq + 1).trim();
            n++;
            String key = name + "=" + addr + "/" + threading;
            synchronized (DEVICES) {
                out.add(DEVICES.computeIfAbsent(key, k -> SoftDevice.builder().name(name).address(addr)
                        .threading(threading).build()));
            }
        }
        return out;
    }

    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? fallback : v;
    }
}
