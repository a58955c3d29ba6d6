package io.jrdma.tools;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much this JVM's JIT compiler has worked so far, for warm-ups that must not end while it still compiles: the
 * code a measurement runs is in its last tier only once the compiler is quiet, and until then the compiler threads
 * take CPU from the measured threads. On Linux the C1 and C2 compiler threads' run time ({@code /proc/self/task/*}'s
 * schedstat, nanoseconds: it grows while a compilation runs); elsewhere the total compilation time (milliseconds: it
 * grows only when a compilation ends). Reading it allocates and takes tens of microseconds: call it between
 * measurements, not inside one.
 */
public final class CompilerWork {

    private CompilerWork() {
    }

    /** The compiler's work so far (a figure that grows while it works, comparable only with itself), or -1. */
    public static long sofar() {
        long sum = 0;
        boolean found = false;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm"));
                    if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
                        String stat = Files.readString(task.resolve("schedstat"));
                        sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                        found = true;
                    }
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            found = false; // not Linux, or not readable: the compilation time instead
        }
        return found ? sum : compilationMs();
    }

    /** The JIT compiler's total compilation time so far, in ms; -1 where it is not measured. */
    public static long compilationMs() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit == null || !jit.isCompilationTimeMonitoringSupported() ? -1 : jit.getTotalCompilationTime();
    }
}
