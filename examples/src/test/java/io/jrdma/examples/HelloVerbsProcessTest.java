package io.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * hello_verbs as it is meant to run: server and client in two separate JVMs, each with its own soft device, talking
 * RoCEv2 over UDP and swapping endpoints over TCP. Bounded: a watchdog kills whatever is still running after 60 s.
 */
@Tag("slow")
class HelloVerbsProcessTest {

    private static final String SERVER_ADDR = "127.0.3.11";
    private static final String CLIENT_ADDR = "127.0.3.12";
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void shouldWriteHelloVerbsAcrossTwoProcesses() throws Exception {
        String port = Integer.toString(HelloVerbsTest.freeTcpPort());
        Path serverLog = dir.resolve("server.log");
        Path clientLog = dir.resolve("client.log");
        List<Process> processes = new ArrayList<>();
        try {
            Process server = start(serverLog, "server", "--addr", SERVER_ADDR, "--port", port);
            processes.add(server);
            Process client = start(clientLog, "client", "127.0.0.1", "--addr", CLIENT_ADDR, "--port", port);
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
            assertTrue(serverText.contains("received: hello verbs"), logs);
        } finally {
            for (Process p : processes) {
                if (p.isAlive()) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static Process start(Path log, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.add("--enable-native-access=ALL-UNNAMED"); // the soft device's native UDP link (FFM)
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(HelloVerbs.class.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** The java launcher of this JVM. */
    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    }
}
