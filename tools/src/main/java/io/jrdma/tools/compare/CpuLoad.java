package io.jrdma.tools.compare;

import io.jrdma.tools.ChildClassPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The CPU contention of {@code jrdma bench --load N}: N processes, each one busy loop on one thread (what
 * {@code while :; do :; done} in a shell is), running beside every case of the bench and stopped after the last.
 * They are child JVMs ({@link LoadChild}) so that they stop by themselves: at a deadline, and as soon as this
 * process dies (their stdin, a pipe this process holds, closes); a shutdown hook kills them too.
 */
final class CpuLoad implements AutoCloseable {

    private final List<Process> processes = new ArrayList<>();
    private final Thread hook = new Thread(this::kill, "bench-kill-load");

    private CpuLoad() {
    }

    /** Starts {@code n} busy processes (none for 0) that stop by themselves after {@code maxMs}. */
    static CpuLoad start(int n, long maxMs) {
        CpuLoad load = new CpuLoad();
        if (n == 0) {
            return load;
        }
        Runtime.getRuntime().addShutdownHook(load.hook);
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        try {
            for (int i = 0; i < n; i++) {
                load.processes.add(new ProcessBuilder(java, "-Xmx32m", "-XX:TieredStopAtLevel=1", "-cp",
                        ChildClassPath.get(), LoadChild.class.getName(), Long.toString(maxMs))
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start());
            }
        } catch (IOException e) {
            load.close();
            throw new UncheckedIOException("cannot start the --load processes", e);
        }
        return load;
    }

    /** How many load processes run now. */
    long alive() {
        return processes.stream().filter(Process::isAlive).count();
    }

    /** The load processes' process handles (for tests). */
    List<ProcessHandle> handles() {
        return processes.stream().map(Process::toHandle).toList();
    }

    /** One line: how many load processes ran and the CPU time they had so far (read while they run). */
    String describe() {
        double cpu = 0;
        for (Process p : processes) {
            cpu += p.toHandle().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
        }
        return String.format(java.util.Locale.ROOT, "load: %d busy-loop process(es), %d still running, %.1f CPU-s",
                processes.size(), alive(), cpu);
    }

    private void kill() {
        processes.forEach(Process::destroyForcibly);
    }

    @Override
    public void close() {
        kill();
        for (Process p : processes) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!processes.isEmpty()) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook runs anyway
            }
        }
    }
}
