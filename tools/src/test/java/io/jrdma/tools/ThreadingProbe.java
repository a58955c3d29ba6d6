package io.jrdma.tools;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Verbs;
import java.util.Locale;

/**
 * A child process for {@link ThreadingModesTest}: prints {@code NAME THREADING} for each device the provider lists,
 * one a line, so that a test sees which threading a JVM started as the tests start the tools' JVMs gives its devices.
 */
public final class ThreadingProbe {

    private ThreadingProbe() {
    }

    /** Entry point. */
    public static void main(String[] args) {
        for (Device d : Verbs.devices()) {
            System.out.println(d.name() + " " + ((SoftDevice) d).threading().name().toLowerCase(Locale.ROOT));
        }
    }
}
