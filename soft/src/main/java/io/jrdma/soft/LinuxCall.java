package io.jrdma.soft;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Binds one function of the C library through the FFM API where its descriptor is known to hold: Linux on x86-64 or
 * AArch64 (LP64). The engine's small calls into the kernel's scheduler interface use it ({@link Preemptions},
 * {@link EngineScheduling}); elsewhere, or where native access is denied, {@link #bind} answers null and they do
 * without.
 */
final class LinuxCall {

    private LinuxCall() {
    }

    /** The downcall handle of C function {@code name}, or null where it cannot be bound. */
    @SuppressWarnings("restricted") // callers pass the descriptor of the function on Linux LP64
    static MethodHandle bind(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.equals("Linux") || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment symbol = linker.defaultLookup().find(name).orElse(null);
            return symbol == null ? null : linker.downcallHandle(symbol, descriptor, options);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }
}
