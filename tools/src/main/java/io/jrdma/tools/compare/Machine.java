package io.jrdma.tools.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A one-line description of the machine the benchmark ran on: CPUs, CPU model, JDK, OS. */
final class Machine {

    private Machine() {
    }

    static String describe() {
        return Runtime.getRuntime().availableProcessors() + " CPUs (" + cpuModel() + "), JDK "
                + System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.vendor") + "), "
                + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    private static String cpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            for (String l : lines) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable
        }
        return System.getProperty("os.arch");
    }
}
