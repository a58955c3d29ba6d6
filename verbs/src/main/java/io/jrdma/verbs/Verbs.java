package io.jrdma.verbs;

import io.jrdma.verbs.spi.Provider;
import io.jrdma.verbs.spi.ServiceLoading;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/**
 * Entry point: the devices of every installed provider (ibv_get_device_list).
 *
 * <p>Providers are listed by {@link Provider#order()}: native devices (provider {@code ibverbs}) before the soft
 * ones, so a name such as {@code rxe0}, which both the kernel and the soft provider's default device use, names
 * the kernel's device where there is one. A name may be qualified with its provider ({@code ibverbs:rxe0},
 * {@code soft:rxe0}), and the system property {@value #PROVIDER_PROPERTY} or the environment variable
 * {@value #PROVIDER_ENV} (a provider name, such as {@code ibverbs} or {@code soft}) restricts everything to one
 * provider.
 */
public final class Verbs {

    /** The system property that restricts {@link #devices()} and {@link #device} to one provider. */
    public static final String PROVIDER_PROPERTY = "jrdma.provider";
    /** The environment variable read when {@value #PROVIDER_PROPERTY} is not set. */
    public static final String PROVIDER_ENV = "JRDMA_PROVIDER";

    private Verbs() {
    }

    /** Every device of every provider on the class path (or only of the provider chosen), native ones first. */
    public static List<Device> devices() {
        return devices(installed(), restriction());
    }

    /**
     * The device called {@code name} ({@code provider:name} to choose the provider too), or the first device when
     * {@code name} is null.
     *
     * @throws VerbsException ENODEV when there is no such device; the message says why each provider has none
     */
    public static Device device(String name) {
        return device(installed(), restriction(), name);
    }

    /**
     * The provider restriction in force, lower case: {@value #PROVIDER_PROPERTY}, else {@value #PROVIDER_ENV}, else
     * null (every provider). Other provider lookups (the connection manager's) follow it too.
     */
    public static String restriction() {
        String v = System.getProperty(PROVIDER_PROPERTY);
        if (v == null || v.isBlank()) {
            v = System.getenv(PROVIDER_ENV);
        }
        return v == null || v.isBlank() ? null : v.strip().toLowerCase(Locale.ROOT);
    }

    /** The installed providers, in listing order; a provider that fails to load is left out. */
    static List<Provider> installed() {
        return sorted(ServiceLoading.all(ServiceLoader.load(Provider.class)));
    }

    /** {@code providers} by ascending {@link Provider#order()}, then by name. */
    static List<Provider> sorted(List<Provider> providers) {
        List<Provider> out = new ArrayList<>(providers);
        out.sort(Comparator.comparingInt(Provider::order).thenComparing(Provider::name));
        return out;
    }

    /** The devices of {@code providers} (already in order), of the provider named {@code only} when not null. */
    static List<Device> devices(List<Provider> providers, String only) {
        List<Device> all = new ArrayList<>();
        for (Provider p : providers) {
            if (only == null || p.name().equals(only)) {
                all.addAll(p.devices());
            }
        }
        return List.copyOf(all);
    }

    /** {@link #device(String)} over {@code providers} (in order) restricted to {@code only} when not null. */
    static Device device(List<Provider> providers, String only, String name) {
        String wanted = name;
        String providerName = only;
        if (name != null) {
            int colon = name.indexOf(':');
            if (colon > 0) {
                String qualifier = name.substring(0, colon).toLowerCase(Locale.ROOT);
                if (only != null && !only.equals(qualifier)) {
                    throw new VerbsException(Errno.ENODEV, "device '" + name + "' is of provider '" + qualifier
                            + "', but " + PROVIDER_PROPERTY + "/" + PROVIDER_ENV + " allows only '" + only + "'");
                }
                providerName = qualifier;
                wanted = name.substring(colon + 1);
            }
        }
        List<Provider> chosen = new ArrayList<>();
        for (Provider p : providers) {
            if (providerName == null || p.name().equals(providerName)) {
                chosen.add(p);
            }
        }
        if (chosen.isEmpty()) {
            throw new VerbsException(Errno.ENODEV, providerName == null
                    ? "no RDMA device found (is a provider on the class path?)"
                    : "no RDMA provider named '" + providerName + "' (have: "
                            + providers.stream().map(Provider::name).toList() + ")");
        }
        List<Device> all = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Provider p : chosen) {
            for (Device d : p.devices()) {
                all.add(d);
                names.add(p.name() + ":" + d.name());
            }
        }
        if (all.isEmpty()) {
            throw new VerbsException(Errno.ENODEV, "no RDMA device found" + reasons(chosen, " (", ")"));
        }
        if (wanted == null) {
            return all.getFirst();
        }
        for (Device d : all) {
            if (d.name().equals(wanted)) {
                return d;
            }
        }
        throw new VerbsException(Errno.ENODEV, "no RDMA device named '" + name + "' (have: " + names
                + reasons(chosen, "; ", "") + ")");
    }

    /** "ibverbs: reason; soft: reason" for the providers that give a reason, framed; "" when none does. */
    private static String reasons(List<Provider> providers, String before, String after) {
        StringBuilder sb = new StringBuilder();
        for (Provider p : providers) {
            p.unavailableReason().ifPresent(r -> sb.append(sb.isEmpty() ? "" : "; ").append(p.name()).append(": ")
                    .append(r));
        }
        return sb.isEmpty() ? "" : before + sb + after;
    }
}
