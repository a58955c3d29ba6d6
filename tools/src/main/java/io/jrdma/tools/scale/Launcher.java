package io.jrdma.tools.scale;

import io.jrdma.tools.ChildClassPath;
import io.jrdma.tools.Jrdma;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one-command form of {@code jrdma scale}: starts the server side and then the client side, each in a JVM of
 * its own (the same java and class path, native memory tracking on, the heap and -XX options of this JVM), relays
 * their output line by line, and sums up. The server listens on an ephemeral TCP port, which it prints; the client
 * is started with that port, so two runs never race for one. Both sides run with identical JVM settings, so their
 * memory figures compare.
 */
final class Launcher {

    /** The line a server prints once it listens; the launcher takes the port from it. */
    static final Pattern LISTENING = Pattern.compile("^server: waiting for the client on TCP port (\\d+)");
    private static final Pattern RESULT = Pattern.compile("^scale-result (.*)$");
    private static final String NMT = "-XX:NativeMemoryTracking=summary";
    private static final long GRACE_MS = 10_000;

    private final PrintWriter out;
    private final PrintWriter err;
    private final long timeoutMs;

    Launcher(PrintWriter out, PrintWriter err, long timeoutMs) {
        this.out = out;
        this.err = err;
        this.timeoutMs = timeoutMs;
    }

    /**
     * Runs both sides: {@code server} and {@code client} are their {@code jrdma scale} arguments after the role (the
     * client's without its host and port, which the launcher adds).
     *
     * @return 0 when both sides exit 0 and report every QP verified, 1 otherwise
     */
    int run(List<String> server, String serverHost, List<String> client, List<String> jvmOptions)
            throws IOException, InterruptedException {
        List<Child> children = new ArrayList<>();
        try {
            CompletableFuture<Integer> port = new CompletableFuture<>();
            Child s = start("server", concat(List.of("server"), server), jvmOptions, port);
            children.add(s);
            int p;
            try {
                p = port.get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                s.process.destroyForcibly();
                s.finish(timeoutMs);
                err.println("scale: error: the server side did not start listening within " + timeoutMs + " ms"
                        + s.exitText());
                return 1;
            }
            Child c = start("client", concat(List.of("client", serverHost, "-p", Integer.toString(p)), client),
                    jvmOptions, null);
            children.add(c);
            awaitBoth(s, c);
            return summary(s, c);
        } finally {
            for (Child c : children) {
                if (c.process.isAlive()) {
                    c.process.destroyForcibly();
                }
                c.finish(GRACE_MS);
            }
        }
    }

    /**
     * Waits for both sides within six timeouts (every phase of a side is bounded by one); once one has failed, the
     * other gets one timeout more to notice (its peer closed the connection) before it is stopped.
     */
    private void awaitBoth(Child s, Child c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(6 * timeoutMs + GRACE_MS);
        long failedAt = 0;
        while (s.process.isAlive() || c.process.isAlive()) {
            long now = System.nanoTime();
            boolean failed = (!s.process.isAlive() && s.process.exitValue() != 0)
                    || (!c.process.isAlive() && c.process.exitValue() != 0);
            if (failed && failedAt == 0) {
                failedAt = now;
            }
            boolean late = now - deadline > 0;
            if (late || (failedAt != 0 && now - failedAt > TimeUnit.MILLISECONDS.toNanos(timeoutMs + GRACE_MS))) {
                for (Child x : List.of(s, c)) {
                    if (x.process.isAlive()) {
                        err.println("scale: error: stopping the " + x.side + " side: " + (late
                                ? "the run took longer than " + (6 * timeoutMs + GRACE_MS) / 1000 + " s"
                                : "its peer failed and it did not finish"));
                        x.process.destroyForcibly();
                    }
                }
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private int summary(Child s, Child c) {
        s.finish(GRACE_MS);
        c.finish(GRACE_MS);
        Map<String, String> sr = s.result();
        Map<String, String> cr = c.result();
        boolean ok = exit(s) == 0 && exit(c) == 0 && "true".equals(sr.get("ok")) && "true".equals(cr.get("ok"));
        if (!ok) {
            err.println("scale: FAILED: server exit " + exit(s) + ", client exit " + exit(c)
                    + (sr.isEmpty() || cr.isEmpty() ? " (a side printed no result)" : ""));
            err.flush();
            return 1;
        }
        out.println(String.format(Locale.ROOT, "scale: OK: %s RC QPs a side, every QP's WRITEs and SENDs verified on "
                + "both sides; one idle QP beyond its queue buffers: server %s B, client %s B (goal <= %,d B: %s)",
                sr.get("qps"), sr.get("beyond"), cr.get("beyond"), Config.GOAL_BYTES,
                "met".equals(sr.get("goal")) && "met".equals(cr.get("goal")) ? "met" : "NOT met"));
        out.flush();
        return 0;
    }

    private static int exit(Child c) {
        return c.process.isAlive() ? -1 : c.process.exitValue();
    }

    private Child start(String side, List<String> args, List<String> jvmOptions, CompletableFuture<Integer> port)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(childJvmOptions(jvmOptions));
        cmd.add("-cp");
        cmd.add(ChildClassPath.get());
        cmd.add(Jrdma.class.getName());
        cmd.add("scale");
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).start();
        Child c = new Child(side, p);
        c.relay(p.getInputStream(), out, port);
        c.relay(p.getErrorStream(), err, null);
        return c;
    }

    /**
     * Native memory tracking and native access, then this JVM's heap, stack and -XX options and its jrdma.* system
     * properties, then the ones asked for on the command line.
     */
    private static List<String> childJvmOptions(List<String> extra) {
        List<String> opts = new ArrayList<>();
        opts.add(NMT);
        opts.add("--enable-native-access=ALL-UNNAMED"); // the soft device's native UDP link (FFM): no warning
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-Xmx") || a.startsWith("-Xms") || a.startsWith("-Xss")
                    || (a.startsWith("-XX:") && !a.contains("NativeMemoryTracking"))) {
                opts.add(a);
            }
        }
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("jrdma.")) {
                opts.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        opts.addAll(extra);
        return opts;
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** A side's process and the threads that copy its output. */
    private static final class Child {
        final String side;
        final Process process;
        final List<Thread> relays = new ArrayList<>();
        volatile String result;

        Child(String side, Process process) {
            this.side = side;
            this.process = process;
        }

        /** Copies {@code in} to {@code to} line by line; notes the result line and the listening port. */
        void relay(InputStream in, PrintWriter to, CompletableFuture<Integer> port) {
            relays.add(Thread.ofPlatform().daemon().name("scale-relay-" + side).start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        synchronized (to) {
                            to.println(line);
                            to.flush();
                        }
                        Matcher m = RESULT.matcher(line);
                        if (m.find()) {
                            result = m.group(1);
                        }
                        Matcher l = LISTENING.matcher(line);
                        if (port != null && l.find()) {
                            port.complete(Integer.parseInt(l.group(1)));
                        }
                    }
                } catch (IOException e) {
                    // the process is gone: nothing more to copy
                } finally {
                    if (port != null) {
                        port.completeExceptionally(new IOException(side + " ended before it listened"));
                    }
                }
            }));
        }

        /** Waits up to {@code ms} for the process and its output to end. */
        void finish(long ms) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            try {
                process.waitFor(ms, TimeUnit.MILLISECONDS);
                for (Thread t : relays) {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        String exitText() {
            return process.isAlive() ? "" : " (it exited with status " + process.exitValue() + ")";
        }

        /** The key=value pairs of the side's result line (empty when it printed none). */
        Map<String, String> result() {
            Map<String, String> kv = new HashMap<>();
            String r = result;
            if (r != null) {
                for (String pair : r.trim().split("\\s+")) {
                    int eq = pair.indexOf('=');
                    if (eq > 0) {
                        kv.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
            }
            return kv;
        }
    }
}
