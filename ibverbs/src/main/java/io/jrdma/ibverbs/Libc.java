package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The few libc calls the provider needs around libibverbs' file descriptors: poll(2) to wait on a completion
 * channel or the async event fd without a spinning thread, fcntl(2) to make those fds non-blocking and to check
 * that an fd is open, getrlimit(2) for the memlock hint, strerror(3) for errnos {@link io.jrdma.verbs.Errno} does
 * not list.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class Libc {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final short POLLIN = 1;
    private static final int F_GETFD = 1;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 0x800;
    private static final int RLIMIT_MEMLOCK = 8;
    private static final int EINTR = 4;

    private static final MethodHandle POLL = fn("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle FCNTL = LINKER.downcallHandle(LINKER.defaultLookup().find("fcntl")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    private static final MethodHandle GETRLIMIT = fn("getrlimit", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            ADDRESS));
    private static final MethodHandle STRERROR = fn("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Libc() {
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d,
                Linker.Option.captureCallState("errno"));
    }

    /**
     * Waits up to {@code timeoutMs} (0 = not at all) for {@code fd} to become readable.
     *
     * @return whether it is readable (false on timeout; EINTR counts as a timeout, the caller loops)
     */
    static boolean pollIn(int fd, int timeoutMs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfd = arena.allocate(8, 4);
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(JAVA_SHORT, 4, POLLIN);
            LibIbverbs.Result r = LibIbverbs.call(POLL, pfd, 1L, timeoutMs);
            if (r.value() < 0 && r.errno() != EINTR) {
                throw new IllegalStateException("poll(fd " + fd + ") failed: " + strerror(r.errno()));
            }
            return r.value() > 0;
        }
    }

    /** Makes {@code fd} non-blocking (fcntl O_NONBLOCK), as libibverbs' man pages advise before polling it. */
    static void nonBlocking(int fd) {
        LibIbverbs.Result flags = LibIbverbs.call(FCNTL, fd, F_GETFL, 0);
        if (flags.value() < 0) {
            throw new IllegalStateException("fcntl(fd " + fd + ", F_GETFL) failed: " + strerror(flags.errno()));
        }
        LibIbverbs.Result set = LibIbverbs.call(FCNTL, fd, F_SETFL, (int) flags.value() | O_NONBLOCK);
        if (set.value() < 0) {
            throw new IllegalStateException("fcntl(fd " + fd + ", F_SETFL) failed: " + strerror(set.errno()));
        }
    }

    /** Whether {@code fd} is an open file descriptor of this process (fcntl F_GETFD succeeds). */
    static boolean isOpen(int fd) {
        return fd >= 0 && LibIbverbs.call(FCNTL, fd, F_GETFD, 0).value() >= 0;
    }

    /** The soft RLIMIT_MEMLOCK in bytes (Long.MAX_VALUE... as -1 = unlimited), or -2 when it cannot be read. */
    static long memlockLimit() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rl = arena.allocate(16, 8);
            if (LibIbverbs.call(GETRLIMIT, RLIMIT_MEMLOCK, rl).value() != 0) {
                return -2;
            }
            return rl.get(JAVA_LONG, 0);
        }
    }

    /** strerror(3) of {@code errno}. */
    static String strerror(int errno) {
        String s = LibIbverbs.string(LibIbverbs.call(STRERROR, errno).pointer());
        return s == null ? "errno " + errno : s;
    }
}
