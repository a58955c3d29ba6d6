package io.jrdma.soft.link;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Whether the process that wrote a file shared between processes (a counters file, a device's ring) still runs:
 * its pid and a stamp of its start, so that another process given the same pid later does not pass for it.
 *
 * <p>On Linux the stamp is the kernel's own: the {@code starttime} field of {@code /proc/<pid>/stat}, in clock
 * ticks since boot, which every reader reads the same. A start instant in wall-clock time would not do: the JDK
 * computes it from the boot time that {@code /proc/stat} gives when a JVM starts, and that boot time moves with
 * every step of the wall clock, so two JVMs started on either side of a step disagree about a third process's
 * start by the size of the step and took a live process for a dead one. Elsewhere the stamp is the start instant
 * in epoch milliseconds, compared to within a second.
 */
public final class Processes {

    private static final Path PROC = Path.of("/proc");
    private static final boolean KERNEL_STAMPS = Files.isReadable(PROC.resolve("self").resolve("stat"));
    /** The fields of /proc/<pid>/stat that follow the command's closing parenthesis: state (3rd) .. starttime. */
    private static final int STATE = 0;
    private static final int STARTTIME = 19;

    private Processes() {
    }

    /** This process's pid. */
    public static long currentPid() {
        return ProcessHandle.current().pid();
    }

    /** The stamp of this process's start (0 when the system does not say). */
    public static long currentStart() {
        return start(currentPid());
    }

    /**
     * The stamp of the start of the running process {@code pid}: the kernel's start time in clock ticks since
     * boot where {@code /proc} says it, else epoch milliseconds; 0 when no running process has that pid or the
     * system does not say.
     */
    public static long start(long pid) {
        if (KERNEL_STAMPS) {
            String[] fields = statFields(pid);
            if (fields == null || fields.length <= STARTTIME || exited(fields[STATE])) {
                return 0;
            }
            try {
                return Long.parseLong(fields[STARTTIME]);
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).flatMap(p -> p.info().startInstant())
                .map(Instant::toEpochMilli).orElse(0L);
    }

    /** Whether the process {@code pid} whose start stamp is {@code start} (0: unknown) still runs. */
    public static boolean alive(long pid, long start) {
        if (KERNEL_STAMPS) {
            long now = start(pid);
            return now != 0 && (start == 0 || now == start);
        }
        if (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
            return false;
        }
        long now = start(pid);
        return start == 0 || now == 0 || Math.abs(now - start) <= 1000;
    }

    /** The fields of {@code /proc/<pid>/stat} after the command name, or null when there is no such process. */
    private static String[] statFields(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 > stat.length() ? null : stat.substring(close + 2).trim().split(" ");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** A zombie ('Z') or dead ('X', 'x') process has exited: nothing it wrote will be closed by it. */
    private static boolean exited(String state) {
        return state.equals("Z") || state.equals("X") || state.equals("x");
    }
}
