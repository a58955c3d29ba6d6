package io.jrdma.tools.compare;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/** The CPU time of this process, all threads (com.sun.management.OperatingSystemMXBean#getProcessCpuTime). */
final class Cpu {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private Cpu() {
    }

    /** Nanoseconds of CPU this process used so far, or -1 where the platform does not say. */
    static long processNs() {
        return OS.getProcessCpuTime();
    }

    /**
     * Nanoseconds of CPU this process used so far, to the nanosecond where the platform says so: on Linux
     * {@code clock_gettime(CLOCK_PROCESS_CPUTIME_ID)} (every thread, those that ended too), where
     * {@link #processNs} counts whole clock ticks (10 ms: 0.1 % of a core over 10 s), else {@link #processNs}. For
     * the idle scenario, whose figures are fractions of a percent. Only benchmark children call it: they run with
     * native access enabled.
     */
    static long preciseProcessNs() {
        MethodHandle h = Precise.CLOCK_GETTIME;
        if (h == null) {
            return processNs();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = arena.allocate(16, 8); // struct timespec { long tv_sec; long tv_nsec; }
            int rc = (int) h.invokeExact(Precise.CLOCK_PROCESS_CPUTIME_ID, ts);
            if (rc != 0) {
                return processNs();
            }
            return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
        } catch (Throwable t) {
            return processNs();
        }
    }

    /** The native clock, looked up on first use (a process that never asks makes no restricted call). */
    private static final class Precise {
        static final int CLOCK_PROCESS_CPUTIME_ID = 2; // Linux
        static final MethodHandle CLOCK_GETTIME = lookup();

        @SuppressWarnings("restricted") // clock_gettime(clockid_t, struct timespec *) on Linux LP64
        private static MethodHandle lookup() {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            if (!os.contains("linux") || ValueLayout.ADDRESS.byteSize() != 8) {
                return null;
            }
            try {
                Linker linker = Linker.nativeLinker();
                return linker.defaultLookup().find("clock_gettime").map(a -> linker.downcallHandle(a,
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
                        .orElse(null);
            } catch (RuntimeException | LinkageError e) {
                return null; // no native access: the tick-counting clock
            }
        }
    }
}
