package io.jrdma.soft;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.link.FaultyLink;
import io.jrdma.soft.link.Link;
import io.jrdma.soft.link.NativeLink;
import io.jrdma.soft.link.NioLink;

/**
 * The link a test device runs on: fault, soak and fuzz tests run on each, since a device without
 * {@code -Djrdma.nio=true} uses the native one on Linux and its GSO batches meet the faults differently.
 */
enum LinkKind {
    /** NIO channels ({@link NioLink}), one packet per system call. */
    NIO,
    /** Native sockets ({@link NativeLink}) with GSO sends and GRO receives; skipped where the process has none. */
    NATIVE;

    /** Whether a device on this kind may use native sockets. */
    boolean allowNative() {
        return this == NATIVE;
    }

    /** Skips the calling test when this kind is native and the process has no native sockets. */
    LinkKind assume() {
        assumeTrue(this == NIO || Link.nativeUnavailable() == null, () -> "no native link: "
                + Link.nativeUnavailable());
        return this;
    }

    /** The link class a device on this kind sends through, under its fault injector if any. */
    Class<? extends Link> linkClass() {
        return this == NIO ? NioLink.class : NativeLink.class;
    }

    /** The link under {@code l}'s fault injector, or {@code l}. */
    static Link wire(Link l) {
        return l instanceof FaultyLink f ? f.inner() : l;
    }
}
