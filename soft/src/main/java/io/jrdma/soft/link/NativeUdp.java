package io.jrdma.soft.link;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Linux UDP sockets through the FFM API, for what {@link java.nio.channels.DatagramChannel} cannot do: send many
 * RoCE packets in one {@code sendmsg} with UDP generic segmentation offload ({@code UDP_SEGMENT}), receive runs
 * of them in one {@code recvmmsg} with UDP GRO ({@code UDP_GRO}), and gather a datagram from several buffers.
 *
 * <p>Only the calls and struct layouts of Linux on x86-64 and AArch64 (LP64, the generic socket constants) are
 * bound; {@link #UNAVAILABLE} says why the class cannot be used elsewhere, and {@link Link#open} then falls back to
 * NIO. Every method is static and allocation-free; callers own the native memory they pass in.
 */
final class NativeUdp {

    static final int AF_INET = 2;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int IPPROTO_IP = 0;
    static final int IP_MTU_DISCOVER = 10;
    static final int IP_PMTUDISC_DO = 2;
    static final int SOL_UDP = 17;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;
    static final int MSG_TRUNC = 0x20;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_WAITFORONE = 0x10000;
    static final int SO_RCVTIMEO = 20;
    static final int TIMEVAL = 16;
    static final short POLLIN = 1;
    static final int EAGAIN = 11;

    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;

    /** struct sockaddr_in. */
    static final int SOCKADDR_IN = 16;
    /** struct iovec. */
    static final int IOVEC = 16;
    /** struct msghdr: name, namelen, iov, iovlen, control, controllen, flags. */
    static final int MSGHDR = 56;
    static final int MSG_NAME = 0;
    static final int MSG_NAMELEN = 8;
    static final int MSG_IOV = 16;
    static final int MSG_IOVLEN = 24;
    static final int MSG_CONTROL = 32;
    static final int MSG_CONTROLLEN = 40;
    static final int MSG_FLAGS = 48;
    /** struct cmsghdr header (len, level, type); its data follows at this offset. */
    static final int CMSG_HEADER = 16;
    /** struct mmsghdr: a msghdr, then the received length (msg_len), padded to 8 bytes. */
    static final int MMSGHDR = 64;
    static final int MMSG_LEN = 56;
    /** struct pollfd. */
    static final int POLLFD = 8;

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT;
    static final ValueLayout.OfShort NET_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt NET_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Why native sockets cannot be used here, or null when they can. */
    static final String UNAVAILABLE;

    private static final MethodHandle SOCKET;
    private static final MethodHandle BIND;
    private static final MethodHandle GETSOCKNAME;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle GETSOCKOPT;
    private static final MethodHandle SENDMSG;
    private static final MethodHandle RECVMMSG;
    private static final MethodHandle RECVMMSG_WAIT;
    private static final MethodHandle PPOLL;
    private static final MethodHandle POLL;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle READ;
    private static final MethodHandle WRITE;
    private static final MethodHandle CLOSE;
    private static final VarHandle ERRNO;
    private static final long CALL_STATE_BYTES;

    static {
        String why = null;
        MethodHandle socket = null;
        MethodHandle bind = null;
        MethodHandle getsockname = null;
        MethodHandle setsockopt = null;
        MethodHandle getsockopt = null;
        MethodHandle sendmsg = null;
        MethodHandle recvmmsg = null;
        MethodHandle recvmmsgWait = null;
        MethodHandle poll = null;
        MethodHandle ppoll = null;
        MethodHandle eventfd = null;
        MethodHandle read = null;
        MethodHandle write = null;
        MethodHandle close = null;
        VarHandle errno = null;
        long stateBytes = 0;
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.equals("Linux")) {
            why = "not Linux (" + os + ")";
        } else if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64")) {
            why = "architecture " + arch + " not bound";
        } else if (Boolean.getBoolean("jrdma.nio")) {
            why = "-Djrdma.nio=true";
        } else {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                Linker.Option errnoOption = Linker.Option.captureCallState("errno");
                MemoryLayout state = Linker.Option.captureStateLayout();
                errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                stateBytes = state.byteSize();
                ValueLayout a = ValueLayout.ADDRESS;
                socket = handle(linker, libc, "socket", FunctionDescriptor.of(INT, INT, INT, INT), errnoOption);
                bind = handle(linker, libc, "bind", FunctionDescriptor.of(INT, INT, a, INT), errnoOption);
                getsockname = handle(linker, libc, "getsockname", FunctionDescriptor.of(INT, INT, a, a));
                setsockopt = handle(linker, libc, "setsockopt", FunctionDescriptor.of(INT, INT, INT, INT, a, INT),
                        errnoOption);
                getsockopt = handle(linker, libc, "getsockopt", FunctionDescriptor.of(INT, INT, INT, INT, a, a));
                // calls on non-blocking sockets return at once: they need no thread-state transition (critical)
                Linker.Option quick = Linker.Option.critical(false);
                // no errno capture: a failed send is only counted, and the capture cost a segment per call
                // wherever the JIT did not inline the call
                sendmsg = handle(linker, libc, "sendmsg", FunctionDescriptor.of(LONG, INT, a, INT), quick);
                FunctionDescriptor recvmmsgArgs = FunctionDescriptor.of(INT, INT, a, INT, INT, a);
                recvmmsg = handle(linker, libc, "recvmmsg", recvmmsgArgs, quick);
                // a receive that may sleep must leave the Java thread state (a safepoint must not wait for it)
                recvmmsgWait = handle(linker, libc, "recvmmsg", recvmmsgArgs);
                poll = handle(linker, libc, "poll", FunctionDescriptor.of(INT, a, LONG, INT));
                ppoll = handle(linker, libc, "ppoll", FunctionDescriptor.of(INT, a, LONG, a, a));
                eventfd = handle(linker, libc, "eventfd", FunctionDescriptor.of(INT, INT, INT));
                read = handle(linker, libc, "read", FunctionDescriptor.of(LONG, INT, a, LONG));
                write = handle(linker, libc, "write", FunctionDescriptor.of(LONG, INT, a, LONG));
                close = handle(linker, libc, "close", FunctionDescriptor.of(INT, INT));
            } catch (RuntimeException | LinkageError e) {
                why = "FFM unavailable: " + e;
            }
        }
        UNAVAILABLE = why;
        SOCKET = socket;
        BIND = bind;
        GETSOCKNAME = getsockname;
        SETSOCKOPT = setsockopt;
        GETSOCKOPT = getsockopt;
        SENDMSG = sendmsg;
        RECVMMSG = recvmmsg;
        RECVMMSG_WAIT = recvmmsgWait;
        POLL = poll;
        PPOLL = ppoll;
        EVENTFD = eventfd;
        READ = read;
        WRITE = write;
        CLOSE = close;
        ERRNO = errno;
        CALL_STATE_BYTES = stateBytes;
    }

    private NativeUdp() {
    }

    /**
     * A segment over all native memory, for copies from addresses the engine checked (its own buffers, registered
     * memory): a native link's callers have native access.
     */
    @SuppressWarnings("restricted")
    static MemorySegment allNativeMemory() {
        return MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    }

    @SuppressWarnings("restricted") // the descriptors match the libc prototypes of Linux LP64
    static MethodHandle handle(Linker linker, SymbolLookup libc, String name, FunctionDescriptor fd,
                               Linker.Option... options) {
        MemorySegment symbol = libc.find(name).orElseThrow(() -> new UnsatisfiedLinkError("no libc symbol " + name));
        return linker.downcallHandle(symbol, fd, options);
    }

    /** The errno a capturing call left in {@code state}. */
    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /**
     * Opens an IPv4 UDP socket bound to {@code ip:port} with DF set (so Linux sends IPv4 ID 0, or 0,1,2.. for the
     * segments of one GSO send), the given buffer sizes, and GRO on receive when asked. A socket opened blocking
     * (for {@link #recvmmsgWait}) gets {@code MSG_DONTWAIT} on every other call here, so only that one can sleep.
     *
     * @return the descriptor
     * @throws java.io.IOException with the errno's meaning when a call fails
     */
    static int open(int ip, int port, int bufferBytes, boolean gro, boolean blocking) throws java.io.IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE_BYTES);
            int type = SOCK_DGRAM | SOCK_CLOEXEC | (blocking ? 0 : SOCK_NONBLOCK);
            int fd = (int) SOCKET.invokeExact(state, AF_INET, type, 0);
            if (fd < 0) {
                throw new java.io.IOException("socket: errno " + errno(state));
            }
            try {
                MemorySegment value = arena.allocate(INT);
                setInt(fd, SOL_SOCKET, SO_RCVBUF, bufferBytes, value, state);
                setInt(fd, SOL_SOCKET, SO_SNDBUF, bufferBytes, value, state);
                setInt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, value, state);
                if (gro) {
                    setInt(fd, SOL_UDP, UDP_GRO, 1, value, state);
                }
                MemorySegment addr = arena.allocate(SOCKADDR_IN, 8);
                sockaddr(addr, ip, port);
                int rc = (int) BIND.invokeExact(state, fd, addr, SOCKADDR_IN);
                if (rc != 0) {
                    int e = errno(state);
                    throw new java.io.IOException(e == 98 ? "Address already in use"
                            : e == 99 ? "Cannot assign requested address" : "bind: errno " + e);
                }
                return fd;
            } catch (java.io.IOException | RuntimeException e) {
                close(fd);
                throw e;
            }
        } catch (java.io.IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void setInt(int fd, int level, int name, int v, MemorySegment value, MemorySegment state)
            throws Throwable {
        value.set(INT, 0, v);
        int rc = (int) SETSOCKOPT.invokeExact(state, fd, level, name, value, (int) INT.byteSize());
        if (rc != 0) {
            throw new OptionRefused("setsockopt(" + level + ", " + name + "): errno " + errno(state));
        }
    }

    /** A socket option the kernel refused (an old kernel without UDP GRO, say): the caller may fall back to NIO. */
    static final class OptionRefused extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        OptionRefused(String message) {
            super(message);
        }
    }

    /**
     * Sets a socket's receive timeout ({@code SO_RCVTIMEO}) to the shortest the kernel keeps, one clock tick, and
     * returns it as the kernel reports it back (4 ms at 250 Hz), or 0 when the kernel refused.
     */
    static long shortestReceiveTimeoutNs(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tv = arena.allocate(TIMEVAL, 8);
            MemorySegment state = arena.allocate(CALL_STATE_BYTES);
            tv.set(LONG, 0, 0L);
            tv.set(LONG, 8, 1L); // 1 us: rounded up to one tick
            int rc = (int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_RCVTIMEO, tv, TIMEVAL);
            if (rc != 0) {
                return 0;
            }
            MemorySegment len = arena.allocate(INT);
            len.set(INT, 0, TIMEVAL);
            rc = (int) GETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_RCVTIMEO, tv, len);
            if (rc != 0) {
                return 0;
            }
            return tv.get(LONG, 0) * 1_000_000_000L + tv.get(LONG, 8) * 1_000L;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Sets a socket's receive timeout ({@code SO_RCVTIMEO}) to {@code ns}, through the caller's {@code timeval} and
     * call-state segments (no allocation).
     *
     * @return true when the kernel took it
     */
    static boolean setReceiveTimeout(int fd, long ns, MemorySegment tv, MemorySegment state) {
        tv.set(LONG, 0, ns / 1_000_000_000L);
        tv.set(LONG, 8, Math.max(1, ns % 1_000_000_000L / 1_000L));
        try {
            return (int) SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_RCVTIMEO, tv, TIMEVAL) == 0;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The bytes of the call state a {@link #setReceiveTimeout} call needs. */
    static long callStateBytes() {
        return CALL_STATE_BYTES;
    }

    /** An int socket option's value as the kernel reports it. */
    static int getInt(int fd, int level, int name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(INT);
            MemorySegment len = arena.allocate(INT);
            len.set(INT, 0, (int) INT.byteSize());
            int rc = (int) GETSOCKOPT.invokeExact(fd, level, name, value, len);
            return rc == 0 ? value.get(INT, 0) : -1;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The UDP port a socket is bound to. */
    static int boundPort(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment addr = arena.allocate(SOCKADDR_IN, 8);
            MemorySegment len = arena.allocate(INT);
            len.set(INT, 0, SOCKADDR_IN);
            int rc = (int) GETSOCKNAME.invokeExact(fd, addr, len);
            return rc == 0 ? Short.toUnsignedInt(addr.get(NET_SHORT, 2)) : -1;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Writes a sockaddr_in for {@code ip:port} (ip big-endian as an int). */
    static void sockaddr(MemorySegment at, int ip, int port) {
        at.set(SHORT, 0, (short) AF_INET);
        at.set(NET_SHORT, 2, (short) port);
        at.set(NET_INT, 4, ip);
        at.set(LONG, 8, 0L);
    }

    /** sendmsg(2), not waiting; returns the bytes sent or -1. */
    static long sendmsg(int fd, MemorySegment msghdr) {
        try {
            return (long) SENDMSG.invokeExact(fd, msghdr, MSG_DONTWAIT);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * recvmmsg(2), not waiting: up to {@code vlen} datagrams in one call, returning as soon as the socket has no
     * more (so a caller that gets fewer than it asked for knows the socket was drained).
     *
     * @return the number of datagrams received, or -1 when none was waiting
     */
    static int recvmmsg(int fd, MemorySegment msgvec, int vlen) {
        try {
            return (int) RECVMMSG.invokeExact(fd, msgvec, vlen, MSG_DONTWAIT, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * recvmmsg(2) on a blocking socket that waits for the first datagram, for at most the socket's receive timeout,
     * and then takes what else is waiting, up to {@code vlen}, without waiting again.
     *
     * @return the number of datagrams received, or -1 when none came in time (or a signal cut the wait short)
     */
    static int recvmmsgWait(int fd, MemorySegment msgvec, int vlen) {
        try {
            return (int) RECVMMSG_WAIT.invokeExact(fd, msgvec, vlen, MSG_WAITFORONE, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** poll(2). */
    static int poll(MemorySegment fds, int count, int timeoutMs) {
        try {
            return (int) POLL.invokeExact(fds, (long) count, timeoutMs);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** ppoll(2) with a {@code struct timespec} timeout and no signal mask. */
    static int ppoll(MemorySegment fds, int count, MemorySegment timespec) {
        try {
            return (int) PPOLL.invokeExact(fds, (long) count, timespec, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A non-blocking eventfd, or -1. */
    static int eventfd() {
        try {
            return (int) EVENTFD.invokeExact(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** read(2). */
    static long read(int fd, MemorySegment buf, long n) {
        try {
            return (long) READ.invokeExact(fd, buf, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** write(2). */
    static long write(int fd, MemorySegment buf, long n) {
        try {
            return (long) WRITE.invokeExact(fd, buf, n);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** close(2), ignoring errors (closing a UDP socket cannot lose data). */
    static void close(int fd) {
        try {
            int rc = (int) CLOSE.invokeExact(fd);
            assert rc == 0 || rc == -1;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
