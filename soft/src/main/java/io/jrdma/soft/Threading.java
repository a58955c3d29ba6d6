package io.jrdma.soft;

/**
 * Who drives a soft device's engine. The choice trades latency, CPU and robustness; README's "Threading" section
 * gives the measurements behind the default.
 */
public enum Threading {
    /**
     * The default: the application's threads drive the engine while they use the device (a post sends at once, a
     * poll runs a pass, a thread waiting on a completion channel receives in the kernel), as kernel NAPI lets a
     * busy-polling socket drive its device; one engine thread per open device, parked while they do, takes over when
     * they stop (no caller has run a pass for a few tens of microseconds), and then idles by its
     * {@link IdleStrategy}, down to sleeping on the socket. No busy thread beside the application's own, and no
     * peer left unanswered when the application blocks on something else.
     */
    ADAPTIVE,
    /** No engine thread: posting, polling and {@code Context.progress()} run the engine on the caller's thread. */
    INVOKER,
    /** One engine thread per open device does all the work, idling by its {@link IdleStrategy} between passes. */
    DEDICATED;

    /**
     * The threading a setting names: {@code adaptive}, {@code invoker} or {@code dedicated}, in any case, blanks
     * around it ignored.
     *
     * @throws IllegalArgumentException for any other name, naming the setting and the choices
     */
    public static Threading named(String name) {
        for (Threading t : values()) {
            if (t.name().equalsIgnoreCase(name.trim())) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown threading '" + name
                + "' (jrdma.threading / JRDMA_THREADING): expected adaptive, invoker or dedicated");
    }
}
