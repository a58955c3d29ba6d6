package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * jrdma runs both ways an application can put it on: the demo ({@link DemoRun#main}) as a module
 * ({@code java -p <modules> -m io.jrdma.examples/...}, with {@code --enable-native-access=io.jrdma.soft}) and from the
 * class path ({@code --enable-native-access=ALL-UNNAMED}), each in a JVM of its own, with no warning on either. On the
 * module path the soft device is found through io.jrdma.soft's {@code provides}, on the class path through its
 * {@code META-INF/services} file.
 */
@Timeout(120)
class LaunchPathsTest {

    private static final String MAIN = DemoRun.class.getName();

    @TempDir
    Path dir;

    @Test
    void theDemoRunsOnTheModulePath() throws Exception {
        String modulePath = System.getProperty("jdk.module.path", "");
        // surefire runs this test on the module path: io.jrdma.examples and the jrdma modules it requires are there
        assertFalse(modulePath.isEmpty(), "no module path in this JVM");
        String out = run("module-path", "--enable-native-access=io.jrdma.soft", "-p", modulePath, "-m",
                "io.jrdma.examples/" + MAIN, "127.0.161.1", "127.0.161.2");
        assertDemo(out);
    }

    @Test
    void theDemoRunsOnTheClassPath() throws Exception {
        Set<String> entries = new LinkedHashSet<>();
        for (String property : new String[] {"jdk.module.path", "java.class.path"}) {
            for (String e : System.getProperty(property, "").split(File.pathSeparator)) {
                if (!e.isEmpty()) {
                    entries.add(e);
                }
            }
        }
        String out = run("class-path", "--enable-native-access=ALL-UNNAMED", "-cp",
                String.join(File.pathSeparator, entries), MAIN, "127.0.161.3", "127.0.161.4");
        assertDemo(out);
    }

    private static void assertDemo(String out) {
        assertTrue(out.contains("jrdma demo: RC queue pairs between soft RoCEv2 devices"), out);
        assertTrue(out.contains("data verified (3000 bytes)"), out);
        assertTrue(out.strip().endsWith("demo OK"), out);
        assertFalse(out.contains("WARNING"), out);
    }

    /** Runs {@code java ARGS} (stdout and stderr together), expects exit 0 and returns what it printed. */
    private String run(String name, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.addAll(List.of(args));
        Path log = dir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("JRDMA_"));
        Process p = pb.start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
