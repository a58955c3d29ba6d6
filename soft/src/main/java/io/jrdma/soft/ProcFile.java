package io.jrdma.soft;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Reads the start of a small file of the kernel's ({@code /proc}) into native memory the caller keeps, with
 * {@code open}, {@code read} and {@code close} bound through the FFM API ({@link LinuxCall}): no allocation, no
 * Java I/O objects, for the figures the engine's back-off reads while it runs ({@link IdleCores}). Where the calls
 * are not bound, {@link #available()} is false.
 */
final class ProcFile {

    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000; // Linux, x86-64 and AArch64
    private static final MethodHandle OPEN = LinuxCall.bind("open", // open(2), variadic: the mode is passed as 0
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle READ = LinuxCall.bind("read",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = LinuxCall.bind("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final boolean BOUND = OPEN != null && READ != null && CLOSE != null;

    private ProcFile() {
    }

    /** Whether {@link #read} can read anything here. */
    static boolean available() {
        return BOUND;
    }

    /**
     * Reads up to {@code into}'s size from the start of the file whose NUL-terminated path is at {@code path}.
     *
     * @return the bytes read, or -1 (not bound, no such file, an error)
     */
    static long read(MemorySegment path, MemorySegment into) {
        if (!BOUND) {
            return -1;
        }
        try {
            int fd = (int) OPEN.invokeExact(path, O_RDONLY | O_CLOEXEC, 0);
            if (fd < 0) {
                return -1;
            }
            long n = (long) READ.invokeExact(fd, into, into.byteSize());
            int ignored = (int) CLOSE.invokeExact(fd);
            return n <= 0 ? -1 : n;
        } catch (Throwable e) {
            return -1;
        }
    }
}
