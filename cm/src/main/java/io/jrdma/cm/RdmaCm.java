package io.jrdma.cm;

import io.jrdma.cm.spi.CmProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Verbs;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.spi.ServiceLoading;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;

/** Finds the connection manager providers ({@link ServiceLoader}) and picks one for a new event channel. */
final class RdmaCm {

    private RdmaCm() {
    }

    /** The provider named {@code name}, or when null the first available one the provider restriction allows. */
    static CmProvider provider(String name) {
        return choose(installed(), name == null ? Verbs.restriction() : name.strip().toLowerCase(Locale.ROOT),
                name != null);
    }

    /** The installed CM providers by ascending order, then name; a provider that fails to load is left out. */
    static List<CmProvider> installed() {
        List<CmProvider> out = ServiceLoading.all(ServiceLoader.load(CmProvider.class));
        out.sort(Comparator.comparingInt(CmProvider::order).thenComparing(CmProvider::name));
        return out;
    }

    /**
     * The first provider of {@code providers} (in order) named {@code only} (any when null) that is available.
     * When {@code explicit}, the named provider is returned if installed even if the restriction differs.
     *
     * @throws VerbsException ENODEV naming each provider's reason when none is available
     */
    static CmProvider choose(List<CmProvider> providers, String only, boolean explicit) {
        StringBuilder why = new StringBuilder();
        for (CmProvider p : providers) {
            if (only != null && !p.name().equals(only)) {
                continue;
            }
            Optional<String> reason = p.unavailableReason();
            if (reason.isEmpty()) {
                return p;
            }
            why.append(why.isEmpty() ? "" : "; ").append(p.name()).append(": ").append(reason.get());
        }
        String scope = only == null ? "" : (explicit ? " named " : " allowed by " + Verbs.PROVIDER_PROPERTY + " ")
                + "'" + only + "'";
        if (why.isEmpty()) {
            why.append(providers.isEmpty() ? "no connection manager provider is installed (add jrdma-soft or"
                    + " jrdma-ibverbs to the class or module path)" : "no such provider");
        }
        throw new VerbsException(Errno.ENODEV, "no connection manager provider" + scope + " is available: " + why);
    }
}
