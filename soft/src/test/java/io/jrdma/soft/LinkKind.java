package io.jrdma.soft;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.link.FaultyLink;
import io.jrdma.soft.link.Link;
import io.jrdma.soft.link.NativeLink;
import io.jrdma.soft.link.NioLink;
import io.jrdma.soft.link.ShmLink;

/**
 * The link a test device runs on: fault, soak and fuzz tests run on each, since a device without
 * {@code -Djrdma.nio=true} uses the native one on Linux and its GSO batches meet the faults differently.
 */
enum LinkKind {
    /** NIO channels ({@link NioLink}), one packet per system call. */
    NIO,
    /** Native sockets ({@link NativeLink}) with GSO sends and GRO receives; skipped where the process has none. */
    NATIVE,
    /**
     * Native sockets with the shared-memory path to devices of this host ({@link ShmLink}): what a device gets by
     * default. Its peers' packets come through its ring, a test's injected datagrams through its socket.
     */
    SHM;

    /** The kind a child process was told to use: {@code -Djrdma.nio=true} NIO, {@code -Djrdma.shm=false} NATIVE. */
    static LinkKind fromProperties() {
        if (Boolean.getBoolean("jrdma.nio")) {
            return NIO;
        }
        return "false".equals(System.getProperty("jrdma.shm")) ? NATIVE : SHM;
    }

    /** Whether a device on this kind may use native sockets. */
    boolean allowNative() {
        return this != NIO;
    }

    /** Whether a device on this kind uses the shared-memory path. */
    boolean sharedMemory() {
        return this == SHM;
    }

    /** Skips the calling test when this kind is native and the process has no native sockets. */
    LinkKind assume() {
        assumeTrue(this == NIO || Link.nativeUnavailable() == null, () -> "no native link: "
                + Link.nativeUnavailable());
        return this;
    }

    /** The link class a device on this kind sends through, under its fault injector if any. */
    Class<? extends Link> linkClass() {
        return switch (this) {
            case NIO -> NioLink.class;
            case NATIVE -> NativeLink.class;
            case SHM -> ShmLink.class;
        };
    }

    /** The link under {@code l}'s fault injector, or {@code l}. */
    static Link wire(Link l) {
        return l instanceof FaultyLink f ? f.inner() : l;
    }
}
