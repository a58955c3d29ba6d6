package io.jrdma.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * How often the calling thread was preempted: Linux's count of its involuntary context switches
 * ({@code getrusage(RUSAGE_THREAD)}, {@code ru_nivcsw}), read through the FFM API. A thread that spins is switched
 * out involuntarily only when another runnable thread wants its core: the sign {@link CallerBackoff} acts on. Where
 * the call is not bound (not Linux x86-64/aarch64, native access denied) {@link #available()} is false.
 */
final class Preemptions {

    private static final int RUSAGE_THREAD = 1;
    /** struct rusage on Linux LP64: two timevals, then fourteen longs; ru_nivcsw is the last. */
    private static final long RUSAGE_BYTES = 144;
    private static final long NIVCSW = 136;
    private static final MethodHandle GETRUSAGE = bind();
    /** Per thread: the rusage buffer, and after it the count the thread saw at its last {@link #sinceLast}. */
    private static final ThreadLocal<MemorySegment> BUFFER =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(RUSAGE_BYTES + 8, 8));

    private Preemptions() {
    }

    private static MethodHandle bind() {
        return LinuxCall.bind("getrusage", // getrusage(2) on Linux LP64
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
                Linker.Option.critical(false));
    }

    /** Whether {@link #sinceLast} reads the kernel's count. */
    static boolean available() {
        return GETRUSAGE != null;
    }

    /**
     * The calling thread's involuntary context switches since its previous call (all of them at its first), or -1
     * when unavailable or the call failed.
     */
    static long sinceLast() {
        if (GETRUSAGE == null) {
            return -1;
        }
        MemorySegment buf = BUFFER.get();
        try {
            if ((int) GETRUSAGE.invokeExact(RUSAGE_THREAD, buf) != 0) {
                return -1;
            }
        } catch (Throwable e) {
            return -1;
        }
        long now = buf.get(ValueLayout.JAVA_LONG, NIVCSW);
        long before = buf.get(ValueLayout.JAVA_LONG, RUSAGE_BYTES);
        buf.set(ValueLayout.JAVA_LONG, RUSAGE_BYTES, now);
        return now - before;
    }
}
