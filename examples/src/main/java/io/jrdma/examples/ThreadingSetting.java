package io.jrdma.examples;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import java.net.InetAddress;
import java.util.Optional;

/**
 * The engine threading a program was told to use with the {@code jrdma.threading} system property or the
 * {@code JRDMA_THREADING} environment variable ({@code adaptive}, {@code invoker} or {@code dedicated}, in any
 * case; the property wins, blank counts as unset), as the soft provider reads it for the devices it lists. The
 * examples and tools that build their soft devices themselves read it here, so that one setting chooses the
 * threading of every program; without it they keep the soft device's own default.
 */
public final class ThreadingSetting {

    /** The system property. */
    public static final String PROPERTY = "jrdma.threading";
    /** The environment variable, read when the property is unset. */
    public static final String ENV = "JRDMA_THREADING";

    private ThreadingSetting() {
    }

    /**
     * The threading the setting names, or empty when it is unset.
     *
     * @throws IllegalArgumentException when it names no threading
     */
    public static Optional<Threading> setting() {
        String v = System.getProperty(PROPERTY);
        if (v == null || v.isBlank()) {
            v = System.getenv(ENV);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(parse(v));
    }

    /** The setting, else the soft device's default ({@link #libraryDefault()}). */
    public static Threading orDefault() {
        return setting().orElseGet(ThreadingSetting::libraryDefault);
    }

    /** {@code builder} with the setting's threading when it is set; untouched (the device's default) otherwise. */
    public static SoftDevice.Builder apply(SoftDevice.Builder builder) {
        setting().ifPresent(builder::threading);
        return builder;
    }

    /** The threading a soft device gets when its builder is told none (nothing is opened to find out). */
    public static Threading libraryDefault() {
        return SoftDevice.builder().address(InetAddress.getLoopbackAddress()).build().threading();
    }

    /**
     * The threading {@code name} names: adaptive, invoker or dedicated, in any case ({@link Threading#named}).
     *
     * @throws IllegalArgumentException for any other name
     */
    public static Threading parse(String name) {
        return Threading.named(name);
    }
}
