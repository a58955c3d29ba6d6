package io.jrdma.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Puts the calling thread under Linux's {@code SCHED_BATCH} policy ({@code sched_setscheduler(2)} on the thread
 * itself, through the FFM API). A batch thread gets the same share of the CPU as any other of its nice value, but its
 * wake-ups never preempt the thread running on a core: it runs when a core is free or when that thread's turn ends.
 * The adaptive engine thread takes it: it parks while the application's threads drive the engine and wakes now and
 * then to see whether they still do, and each such look used to take a core from a spinning caller for a few
 * microseconds (the slowest iterations of a short ping-pong). When the callers stop, their cores go idle and the
 * engine thread runs at once. Any thread may switch itself to this policy and back without privileges. Where the
 * call is not bound (not Linux LP64, native access denied), {@link #apply} does nothing.
 */
final class BatchPolicy {

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;
    /** struct sched_param { int priority = 0; }, read-only. */
    private static final MemorySegment PARAM = Arena.global().allocate(ValueLayout.JAVA_INT);
    private static final MethodHandle SETSCHEDULER = bind();

    private BatchPolicy() {
    }

    private static MethodHandle bind() {
        return LinuxCall.bind("sched_setscheduler", // sched_setscheduler(2) on Linux LP64
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS));
    }

    /**
     * Switches the calling thread to {@code SCHED_BATCH} (priority 0, its nice value unchanged).
     *
     * @return whether it did
     */
    static boolean apply() {
        return set(SCHED_BATCH);
    }

    /**
     * Switches the calling thread back to {@code SCHED_OTHER}, for a sleep after which it is the one that must answer:
     * woken onto a core that a busy thread holds, a batch thread waits for that thread's turn to end (up to a kernel
     * tick, 4 ms), where a normal one preempts it.
     *
     * @return whether it did
     */
    static boolean clear() {
        return set(SCHED_OTHER);
    }

    private static boolean set(int policy) {
        if (SETSCHEDULER == null) {
            return false;
        }
        try {
            return (int) SETSCHEDULER.invokeExact(0, policy, PARAM) == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
