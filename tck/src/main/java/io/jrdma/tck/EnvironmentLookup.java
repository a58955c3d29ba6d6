package io.jrdma.tck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Finds the provider's {@link TckEnvironment}: with {@link ServiceLoader} (a {@code provides} in a module, or
 * {@code META-INF/services/io.jrdma.tck.TckEnvironment} on the class path), else from that file however the class it
 * names is loaded. The second way is for tests run on the module path: surefire patches the test classes into the
 * module under test, where a {@code META-INF/services} file is not a registration and no test-only {@code provides}
 * can be declared.
 */
final class EnvironmentLookup {

    private static final String FILE = "META-INF/services/" + TckEnvironment.class.getName();

    private EnvironmentLookup() {
    }

    static TckEnvironment find() {
        return ServiceLoader.load(TckEnvironment.class).findFirst().or(EnvironmentLookup::fromServicesFile)
                .orElseThrow(() -> new IllegalStateException("no " + TckEnvironment.class.getName() + " registered"));
    }

    private static Optional<TckEnvironment> fromServicesFile() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            Enumeration<URL> files = loader.getResources(FILE);
            while (files.hasMoreElements()) {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(files.nextElement().openStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        String name = line.replaceFirst("#.*", "").strip();
                        if (!name.isEmpty()) {
                            return Optional.of(instantiate(Class.forName(name, true, loader)));
                        }
                    }
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + FILE, e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(FILE + " names a class that cannot be loaded", e);
        }
    }

    private static TckEnvironment instantiate(Class<?> type) {
        try {
            return type.asSubclass(TckEnvironment.class).getConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
            throw new IllegalStateException("cannot create the TCK environment " + type.getName(), cause);
        }
    }
}
