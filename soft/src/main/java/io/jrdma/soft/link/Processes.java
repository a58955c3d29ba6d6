package io.jrdma.soft.link;

import java.time.Instant;
import java.util.Optional;

/**
 * Whether the process that wrote a file shared between processes (a counters file, a device's ring) still runs:
 * its pid and its start time, so that another process given the same pid later does not pass for it.
 */
public final class Processes {

    private Processes() {
    }

    /** This process's pid. */
    public static long currentPid() {
        return ProcessHandle.current().pid();
    }

    /** When this process started, in epoch milliseconds (0 when the system does not say). */
    public static long currentStartMs() {
        return startMs(ProcessHandle.current());
    }

    /** Whether the process {@code pid} that started at {@code startMs} (0: unknown) still runs. */
    public static boolean alive(long pid, long startMs) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return false;
        }
        long start = startMs(p.get());
        // start times are read from /proc with clock-tick resolution: allow a second of difference
        return startMs == 0 || start == 0 || Math.abs(start - startMs) <= 1000;
    }

    private static long startMs(ProcessHandle p) {
        return p.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }
}
