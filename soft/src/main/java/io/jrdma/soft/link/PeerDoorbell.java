package io.jrdma.soft.link;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The doorbell of a device in another process of this host: the eventfd its waits watch
 * ({@link NativeDatagrams#doorbellFd}), which its ring names by number ({@link ShmRing#doorbellFd}), copied into
 * this process with {@code pidfd_open(2)} and {@code pidfd_getfd(2)} (Linux 5.6). Ringing it is an 8-byte write.
 *
 * <p>Why not the empty datagram to the owner's socket that older versions send (and this one still sends where it has
 * no copy): the kernel wakes a thread asleep on a socket synchronously, on the sender's core when that core runs
 * nothing else, so the woken thread and the sender then share one core while the other idles; a loopback datagram
 * also costs the sender the receiver's whole UDP path, some 14 us here. An eventfd's wake-up is not synchronous
 * and costs a write.
 *
 * <p>Copying needs the right to ptrace the owner (a process of the same user has it unless Yama's
 * {@code ptrace_scope} or a seccomp filter says no) and a kernel with pidfds; where either is missing {@link #open}
 * says so with -1, once per ring, and the sender rings over UDP. Before it copies, it checks that the pidfd is the
 * ring's owner (pid and start time: a pid reused by another process gives no copy) and after, that the copy is an
 * eventfd, so a stale number never makes this process write into another's file.
 */
final class PeerDoorbell {

    private static final System.Logger LOG = System.getLogger(PeerDoorbell.class.getName());
    /** pidfd_open and pidfd_getfd: the same numbers on x86-64 and AArch64 (the generic table). */
    private static final long SYS_PIDFD_OPEN = 434;
    private static final long SYS_PIDFD_GETFD = 438;
    private static final String EVENTFD_LINK = "anon_inode:[eventfd]";
    private static final int ESRCH = 3;

    private static final MethodHandle SYSCALL2;
    private static final MethodHandle SYSCALL3;
    private static final MemorySegment ONE;
    private static volatile boolean toldWhy;

    static {
        MethodHandle two = null;
        MethodHandle three = null;
        MemorySegment one = null;
        if (NativeUdp.UNAVAILABLE == null) {
            try {
                Linker linker = Linker.nativeLinker();
                Linker.Option variadic = Linker.Option.firstVariadicArg(1);
                Linker.Option errno = Linker.Option.captureCallState("errno");
                ValueLayout.OfLong l = ValueLayout.JAVA_LONG;
                // long syscall(long number, ...): the arguments are variadic, passed as longs
                two = NativeUdp.handle(linker, linker.defaultLookup(), "syscall", FunctionDescriptor.of(l, l, l, l),
                        variadic, errno);
                three = NativeUdp.handle(linker, linker.defaultLookup(), "syscall",
                        FunctionDescriptor.of(l, l, l, l, l), variadic, errno);
                one = Arena.global().allocate(8, 8);
                one.set(ValueLayout.JAVA_LONG, 0, 1L);
            } catch (RuntimeException | LinkageError e) {
                two = null;
                three = null;
            }
        }
        SYSCALL2 = two;
        SYSCALL3 = three;
        ONE = one;
    }

    private PeerDoorbell() {
    }

    /**
     * A copy, in this process, of the doorbell of {@code ring}'s owner; -1 when the ring names none or no copy can be
     * made (the sender then rings over UDP). The caller closes it ({@link #close}).
     */
    static int open(ShmRing ring) {
        int theirs = ring.doorbellFd();
        if (theirs < 0 || SYSCALL2 == null) {
            return -1;
        }
        long pid = ring.ownerPid();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(NativeUdp.callStateBytes(), 8);
            int pidfd = (int) (long) SYSCALL2.invokeExact(state, SYS_PIDFD_OPEN, pid, 0L);
            if (pidfd < 0) {
                return refused("pidfd_open", NativeUdp.errno(state));
            }
            try {
                // the pidfd is the process that had the pid then; if the owner runs now, that process was the owner
                if (!Processes.alive(pid, ring.ownerStart()) || ring.closed()) {
                    return -1;
                }
                int fd = (int) (long) SYSCALL3.invokeExact(state, SYS_PIDFD_GETFD, (long) pidfd, (long) theirs, 0L);
                if (fd < 0) {
                    return refused("pidfd_getfd", NativeUdp.errno(state));
                }
                if (!isEventFd(fd)) {
                    NativeUdp.close(fd);
                    return -1;
                }
                return fd;
            } finally {
                NativeUdp.close(pidfd);
            }
        } catch (Throwable t) {
            return refused(t.toString(), 0);
        }
    }

    /** Rings the doorbell {@code fd} ({@link #open}'s): whether the write went through. */
    static boolean ring(int fd) {
        return NativeUdp.write(fd, ONE, 8) == 8;
    }

    /** Closes a doorbell of {@link #open}. */
    static void close(int fd) {
        if (fd >= 0) {
            NativeUdp.close(fd);
        }
    }

    /** Whether {@code fd} of this process is an eventfd. */
    private static boolean isEventFd(int fd) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString().equals(EVENTFD_LINK);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static int refused(String call, int errno) {
        if (errno != ESRCH && !toldWhy) { // the owner ended: nothing to tell
            toldWhy = true;
            LOG.log(System.Logger.Level.INFO, "jrdma: doorbells to devices of other processes go over UDP: " + call
                    + (errno != 0 ? " failed with errno " + errno : ""));
        }
        return -1;
    }
}
