package io.jrdma.tools.compare;

import io.jrdma.tools.ChildClassPath;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs cases as two child JVMs — the same {@code java} binary and class path as this process, plus the flags the
 * children need — the server on one address, the client on the other, and collects each one's {@code result} line.
 * Every wait is bounded: a child that fails makes the runner kill the other at once, a pair still running after
 * the case's budget is killed, and a shutdown hook kills whatever is left if the runner itself is stopped. Each
 * child's stdin is a pipe the runner keeps open, so a child also ends when the runner dies.
 */
final class ChildPair {

    /** What one run gave: the figures, or why there are none; {@code notes}: what the children printed besides. */
    record Outcome(Figures figures, String error, String notes) {
        Outcome(Figures figures, String error) {
            this(figures, error, "");
        }

        boolean ok() {
            return figures != null;
        }
    }

    /** Flags every child JVM gets: heap, and what Aeron/Agrona need on JDK 25. */
    static final List<String> CHILD_FLAGS = List.of(
            "-Xmx512m",
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "--enable-native-access=ALL-UNNAMED", // the soft device's native UDP link (FFM)
            "-Dagrona.disable.bounds.checks=true");

    private static final int TAIL_LINES = 20;
    private static final long GRACE_MS = 5_000;
    private static final long FAILED_PEER_MS = 2_000;
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "bench-kill-children"));
    }

    private ChildPair() {
    }

    /** The command line that starts a child JVM doing {@code runs} one after the other. */
    static List<String> command(List<String> extraJvmArgs, List<Params> runs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(CHILD_FLAGS);
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("jrdma.")).sorted()
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.addAll(extraJvmArgs);
        cmd.add("-cp");
        cmd.add(ChildClassPath.get());
        cmd.add(BenchChild.class.getName());
        for (int i = 0; i < runs.size(); i++) {
            if (i > 0) {
                cmd.add(BenchChild.NEXT);
            }
            cmd.addAll(runs.get(i).words());
        }
        return cmd;
    }

    /**
     * Runs {@code runs} one after the other in one server and one client child; {@code budgetMs} bounds the whole.
     *
     * @return one outcome per run, in order
     */
    static List<Outcome> run(BenchConfig c, List<Params> runs, long budgetMs) {
        String tag = ProcessHandle.current().pid() + "-" + System.nanoTime();
        Path shm = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")); // Aeron's own choice on Linux, else the temp dir
        Path serverDir = shm.resolve("jrdma-bench-" + tag + "-server");
        Path clientDir = shm.resolve("jrdma-bench-" + tag + "-client");
        List<Params> server = new ArrayList<>();
        List<Params> client = new ArrayList<>();
        for (Params p : runs) {
            server.add(p.with("role", "server").with("self", c.serverAddress()).with("peer", c.clientAddress())
                    .with("aeron_dir", serverDir));
            client.add(p.with("role", "client").with("self", c.clientAddress()).with("peer", c.serverAddress())
                    .with("aeron_dir", clientDir));
        }
        Child s = null;
        Child k = null;
        try {
            s = Child.start(command(c.jvmArgs(), server), "server");
            k = Child.start(command(c.jvmArgs(), client), "client");
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMs + GRACE_MS);
            String timeout = null;
            while (s.process.isAlive() || k.process.isAlive()) {
                if (failed(s) || failed(k)) {
                    // one failed: the other cannot finish, but it may be failing too, for the reason that made the
                    // first give up (a receiver that caught a corrupt message closes, and its sender then fails):
                    // it gets a moment to exit with its own status before it is killed
                    (failed(s) ? k : s).process.waitFor(FAILED_PEER_MS, TimeUnit.MILLISECONDS);
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    timeout = "the run took longer than " + (budgetMs + GRACE_MS) + " ms; killed";
                    break;
                }
                s.process.waitFor(20, TimeUnit.MILLISECONDS);
            }
            s.kill();
            k.kill();
            s.drain();
            k.drain();
            return outcomes(runs.size(), s, k, timeout);
        } catch (IOException e) {
            return failed(runs.size(), "cannot start a child JVM: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(runs.size(), "interrupted");
        } finally {
            if (s != null) {
                s.kill();
            }
            if (k != null) {
                k.kill();
            }
            deleteTree(serverDir);
            deleteTree(clientDir);
        }
    }

    private static boolean failed(Child c) {
        return !c.process.isAlive() && c.process.exitValue() != 0;
    }

    private static List<Outcome> failed(int n, String why) {
        List<Outcome> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(new Outcome(null, why));
        }
        return all;
    }

    /** The runs both children reported a result for succeeded; the next one failed; the rest never ran. */
    private static List<Outcome> outcomes(int n, Child s, Child k, String timeout) {
        List<Outcome> all = new ArrayList<>();
        int good = Math.min(s.results.size(), k.results.size());
        boolean clean = timeout == null && s.exit() == 0 && k.exit() == 0;
        String notes = "server: " + s.errors() + " / client: " + k.errors();
        for (int i = 0; i < Math.min(good, n); i++) {
            all.add(new Outcome(new Figures(s.results.get(i), k.results.get(i)), null, notes));
        }
        if (all.size() == n && clean) {
            return all;
        }
        if (all.size() == n) {
            all.set(n - 1, new Outcome(null, describe(s, k, timeout)));
            return all;
        }
        all.add(new Outcome(null, describe(s, k, timeout)));
        while (all.size() < n) {
            all.add(new Outcome(null, "not run: an earlier run in the same child processes failed"));
        }
        return all;
    }

    private static String describe(Child s, Child k, String timeout) {
        StringBuilder sb = new StringBuilder(timeout == null ? "" : timeout + "; ");
        for (Child c : new Child[] {s, k}) {
            sb.append(c.role).append(" exit ").append(c.exit() == Integer.MIN_VALUE ? "killed" : c.exit());
            String tail = c.errors();
            sb.append(tail.isEmpty() ? "" : ": " + tail).append("; ");
        }
        return sb.substring(0, sb.length() - 2);
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // best effort: a driver that was killed may leave its directory; the next run uses a new name
        }
    }

    /** One child process and the threads that read its output. */
    private static final class Child {
        final Process process;
        final String role;
        final Thread outReader;
        final Thread errReader;
        final Deque<String> errTail = new ArrayDeque<>();
        final List<Params> results = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile boolean killed;

        private Child(Process process, String role) {
            this.process = process;
            this.role = role;
            LIVE.add(process);
            this.outReader = Thread.ofPlatform().daemon().name("bench-" + role + "-out")
                    .start(() -> read(process.getInputStream(), true));
            this.errReader = Thread.ofPlatform().daemon().name("bench-" + role + "-err")
                    .start(() -> read(process.getErrorStream(), false));
        }

        static Child start(List<String> command, String role) throws IOException {
            return new Child(new ProcessBuilder(command).start(), role);
        }

        private void read(InputStream in, boolean stdout) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (stdout && line.startsWith("result ")) {
                        results.add(Params.parse(line.substring(7).trim().split(" +"), 0));
                    } else if (!line.isBlank() && !line.startsWith("WARNING: ")) {
                        synchronized (errTail) {
                            errTail.addLast(line);
                            if (errTail.size() > TAIL_LINES) {
                                errTail.removeFirst();
                            }
                        }
                    }
                }
            } catch (IOException | IllegalArgumentException e) {
                synchronized (errTail) {
                    errTail.addLast("(output unreadable: " + e.getMessage() + ")");
                }
            }
        }

        void kill() {
            if (process.isAlive()) {
                killed = true;
                process.destroyForcibly();
            }
            LIVE.remove(process);
        }

        /** Waits (bounded) for the output readers to see the end of the streams. */
        void drain() throws InterruptedException {
            process.waitFor(GRACE_MS, TimeUnit.MILLISECONDS);
            outReader.join(GRACE_MS);
            errReader.join(GRACE_MS);
        }

        int exit() {
            if (process.isAlive() || killed) {
                return Integer.MIN_VALUE;
            }
            return process.exitValue();
        }

        String errors() {
            synchronized (errTail) {
                return String.join(" | ", errTail);
            }
        }
    }
}
