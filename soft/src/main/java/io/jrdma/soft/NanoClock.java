package io.jrdma.soft;

/** The engine's time source, injectable so timer tests step time instead of sleeping. */
@FunctionalInterface
public interface NanoClock {

    /** The system's monotonic clock. */
    NanoClock SYSTEM = System::nanoTime;

    /** A monotonic time in nanoseconds. */
    long nanoTime();
}
