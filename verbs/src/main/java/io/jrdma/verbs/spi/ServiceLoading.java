package io.jrdma.verbs.spi;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** Loading the providers of a service so that a broken one does not hide the others. */
public final class ServiceLoading {

    private ServiceLoading() {
    }

    /**
     * Every provider {@code loader} finds, in its order, leaving out those that fail to load (their devices or
     * connection manager are simply absent). The caller creates the loader: its module is the one that {@code uses}
     * the service.
     */
    public static <T> List<T> all(ServiceLoader<T> loader) {
        List<T> out = new ArrayList<>();
        Iterator<T> it = loader.iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                out.add(it.next());
            } catch (ServiceConfigurationError e) {
                // a broken provider must not hide the others
            }
        }
        return out;
    }
}
