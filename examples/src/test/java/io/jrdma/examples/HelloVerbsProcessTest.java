package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.Threading;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * hello_verbs as it is meant to run: server and client in two separate JVMs, each with its own soft device, talking
 * RoCEv2 over UDP and swapping endpoints over TCP, once in each threading mode ({@code -Djrdma.threading}), each
 * mode on devices of its own (127.0.148.M1 and 127.0.148.M2, M the mode's ordinal + 1). In invoker mode the server's
 * device answers the client's RDMA WRITE only while the server, waiting on TCP for "done", drives it. Bounded: a
 * watchdog kills whatever is still running after 60 s.
 */
@Tag("slow")
class HelloVerbsProcessTest {

    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Threading.class)
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void shouldWriteHelloVerbsAcrossTwoProcesses(Threading mode) throws Exception {
        String port = Integer.toString(HelloVerbsTest.freeTcpPort());
        String net = "127.0.148." + (mode.ordinal() + 1);
        String threading = mode.name().toLowerCase(Locale.ROOT);
        Path serverLog = dir.resolve("server.log");
        Path clientLog = dir.resolve("client.log");
        List<Process> processes = new ArrayList<>();
        try {
            Process server = start(serverLog, threading, "server", "--addr", net + "1", "--port", port);
            processes.add(server);
            Process client = start(clientLog, threading, "client", "127.0.0.1", "--addr", net + "2", "--port", port);
            processes.add(client);

            long deadline = System.nanoTime() + DEADLINE_NS;
            boolean clientDone = client.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            boolean serverDone = server.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            String serverText = Files.readString(serverLog, StandardCharsets.UTF_8);
            String clientText = Files.readString(clientLog, StandardCharsets.UTF_8);
            String logs = "\n--- server\n" + serverText + "--- client\n" + clientText;

            assertTrue(clientDone && serverDone, "hello-verbs did not finish within 60 s" + logs);
            assertEquals(0, client.exitValue(), "client exit status" + logs);
            assertEquals(0, server.exitValue(), "server exit status" + logs);
            assertTrue(serverText.startsWith("server: device rxe0 on " + net + "1 (" + threading + " engine), "), logs);
            assertTrue(clientText.startsWith("client: device rxe0 on " + net + "2 (" + threading + " engine), "), logs);
            assertTrue(clientText.contains(": SUCCESS RDMA_WRITE\n"), logs);
            assertTrue(serverText.endsWith("received: hello verbs\n"), logs);
        } finally {
            for (Process p : processes) {
                if (p.isAlive()) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static Process start(Path log, String threading, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.add("--enable-native-access=ALL-UNNAMED"); // the soft device's native UDP link (FFM)
        cmd.add("-Djrdma.threading=" + threading);
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add(HelloVerbs.class.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /**
     * This JVM's class path and module path, all on the child's class path (surefire runs this test on the module
     * path, patched into io.jrdma.examples; the child needs none of that).
     */
    private static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (String property : new String[] {"java.class.path", "jdk.module.path"}) {
            for (String e : System.getProperty(property, "").split(File.pathSeparator)) {
                if (!e.isEmpty()) {
                    entries.add(e);
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /** The java launcher of this JVM. */
    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    }
}
