package io.jrdma.soft;

/** Who drives a soft device's engine. */
public enum Threading {
    /** No engine thread: posting, polling and {@code Context.progress()} run the engine on the caller's thread. */
    INVOKER,
    /** One engine thread per open device, spinning, then yielding, then sleeping on the socket when idle. */
    DEDICATED
}
