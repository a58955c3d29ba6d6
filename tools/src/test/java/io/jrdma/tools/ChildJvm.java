package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.soft.Threading;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One program in a JVM of its own for the threading-mode tests: this JVM's java launcher and test class path, native
 * access enabled, the soft devices' threading set with {@code -Djrdma.threading}, stdout and stderr each to a file.
 * {@link #awaitAll} bounds the wait for a group of them (a server and its client): on timeout it kills them all and
 * fails with what each printed, so a hang in one mode is a failure naming the side that hung, never a stuck build.
 */
public final class ChildJvm implements AutoCloseable {

    /** How long a test waits for a group of children (a server and its client) to finish. */
    public static final Duration BOUND = Duration.ofSeconds(60);

    private final String name;
    private final String commandLine;
    private final Process process;
    private final Path out;
    private final Path err;

    private ChildJvm(String name, String commandLine, Process process, Path out, Path err) {
        this.name = name;
        this.commandLine = commandLine;
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /**
     * Starts {@code mainClass} with {@code args} in a JVM whose soft devices use {@code mode}, with the system
     * properties {@code properties} ({@code name=value}) besides; its output goes to files named after
     * {@code name} in {@code dir}.
     */
    public static ChildJvm start(Path dir, String name, Threading mode, List<String> properties, String mainClass,
            List<String> args) {
        return start(dir, name, mode, List.of(), properties, mainClass, args);
    }

    /** {@link #start(Path, String, Threading, List, String, List)} with the JVM options {@code jvmOptions} too. */
    public static ChildJvm start(Path dir, String name, Threading mode, List<String> jvmOptions,
            List<String> properties, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.add("--enable-native-access=ALL-UNNAMED"); // the soft device's native UDP link (FFM)
        cmd.add("-Xmx512m");
        cmd.addAll(jvmOptions);
        List<String> settings = new ArrayList<>();
        settings.add("-Djrdma.threading=" + mode.name().toLowerCase(Locale.ROOT));
        for (String p : properties) {
            settings.add("-D" + p);
        }
        cmd.addAll(settings);
        cmd.add("-cp");
        cmd.add(ChildClassPath.get());
        cmd.add(mainClass);
        cmd.addAll(args);
        Path o = dir.resolve(name + ".out");
        Path e = dir.resolve(name + ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(o.toFile()).redirectError(e.toFile());
        // the settings on the command line are the only ones: none inherited from the environment
        pb.environment().keySet().removeIf(k -> k.startsWith("JRDMA_"));
        try {
            String shown = String.join(" ", settings) + " " + mainClass + " " + String.join(" ", args);
            return new ChildJvm(name, shown, pb.start(), o, e);
        } catch (IOException x) {
            throw new UncheckedIOException("could not start " + name + ": " + String.join(" ", cmd), x);
        }
    }

    /** {@code jrdma ARGS} in a JVM of its own, its soft devices in {@code mode} and named by {@code devices}. */
    public static ChildJvm jrdma(Path dir, String name, Threading mode, String devices, String... args) {
        List<String> props = devices == null ? List.of() : List.of("jrdma.devices=" + devices);
        return start(dir, name, mode, props, Jrdma.class.getName(), List.of(args));
    }

    /**
     * Waits for every child until {@link #BOUND} has passed. Fails, after killing every child still running, when
     * one has not finished by then; the failure message has what each child printed.
     */
    public static void awaitAll(ChildJvm... children) throws InterruptedException {
        awaitAll(BOUND, children);
    }

    /** {@link #awaitAll(ChildJvm...)} with another bound. */
    public static void awaitAll(Duration bound, ChildJvm... children) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        List<String> hung = new ArrayList<>();
        for (ChildJvm c : children) {
            if (!c.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                hung.add(c.name);
            }
        }
        if (!hung.isEmpty()) {
            StringBuilder sb = new StringBuilder(String.join(" and ", hung) + " did not finish within "
                    + bound.toMillis() + " ms (killed)");
            for (ChildJvm c : children) {
                c.close();
            }
            for (ChildJvm c : children) {
                sb.append('\n').append(c.describe());
            }
            fail(sb.toString());
        }
    }

    /** Whether the child is still running. */
    public boolean alive() {
        return process.isAlive();
    }

    /** The exit status (the child has finished). */
    public int status() {
        return process.exitValue();
    }

    /** What the child printed on stdout so far. */
    public String out() {
        return read(out);
    }

    /** What the child printed on stderr so far. */
    public String err() {
        return read(err);
    }

    /** The child's name, exit status, command line (less java and class path) and output, for failure messages. */
    public String describe() {
        String status = process.isAlive() ? "running" : "exit " + process.exitValue();
        String e = err();
        return "--- " + name + " (" + status + "): " + commandLine + "\n" + out()
                + (e.isEmpty() ? "" : "--- " + name + " stderr\n" + e);
    }

    /** Kills the child if it still runs, and waits for it to go. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A TCP port nobody listens on now (the children's exchanges bind it). */
    public static int freeTcpPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(could not read " + p + ": " + e + ")";
        }
    }

    /** The java launcher of this JVM. */
    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    }
}
