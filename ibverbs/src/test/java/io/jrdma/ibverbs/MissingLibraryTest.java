package io.jrdma.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Verbs;
import io.jrdma.verbs.VerbsException;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Without libibverbs the provider still loads: it lists no device and says why, and nothing (no
 * UnsatisfiedLinkError, no stack) reaches the caller. Simulated by naming a library that does not exist, directly
 * and, in a child JVM, through the system property {@value LibIbverbs#LIBRARY_PROPERTY}.
 */
class MissingLibraryTest {

    private static final String MISSING = "libibverbs-missing.so.99";

    @Test
    void shouldListNoDeviceAndNameTheMissingLibrary() {
        DeviceList list = DeviceList.load(MISSING);
        assertNull(list.lib());
        assertEquals(List.of(), list.devices());
        assertTrue(list.reason().startsWith("cannot load " + MISSING + " ("), list::reason);
        assertTrue(list.reason().endsWith("install rdma-core's libibverbs (Debian/Ubuntu: apt-get install "
                + "libibverbs1 ibverbs-providers)"), list::reason);
        IbvProvider p = new IbvProvider(list);
        assertEquals(List.of(), p.devices());
        assertEquals(list.reason(), p.unavailableReason().orElseThrow());
    }

    /** What the child JVM runs: the devices Verbs lists, and what asking for a native device says. */
    public static void main(String[] args) {
        System.out.println("devices " + Verbs.devices().stream().map(d -> d.provider() + ":" + d.name()).toList());
        try {
            Verbs.device("ibverbs:rxe0");
            System.out.println("unexpected: a device");
        } catch (VerbsException e) {
            System.out.println("error " + e.getMessage());
        }
    }

    @Test
    void shouldLoadTheProviderInAProcessWithoutTheLibrary() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED",
                "-D" + LibIbverbs.LIBRARY_PROPERTY + "=" + MISSING, "-Djrdma.devices=rxe0=127.0.0.1",
                "-cp", childClassPath(), MissingLibraryTest.class.getName()).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child JVM hung");
        assertEquals(0, child.exitValue(), () -> out + err);
        assertTrue(out.contains("devices [soft:rxe0]"), out);
        assertTrue(out.contains("error ENODEV: no RDMA device found (ibverbs: cannot load " + MISSING + " ("), out);
        assertFalse(err.contains("Exception") || err.contains("Error"), err);
    }

    /** This JVM's class path and module path (surefire runs the tests on the latter): the child's class path. */
    private static String childClassPath() {
        return Stream.of("java.class.path", "jdk.module.path")
                .flatMap(p -> Stream.of(System.getProperty(p, "").split(File.pathSeparator)))
                .filter(e -> !e.isEmpty()).distinct().collect(Collectors.joining(File.pathSeparator));
    }
}
