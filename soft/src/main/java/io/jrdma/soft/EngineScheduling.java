package io.jrdma.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

/**
 * The scheduling attributes of the adaptive engine thread, set by the thread on itself through Linux's
 * {@code sched_setattr(2)} (the FFM API, no privileges needed): its policy and its time slice.
 *
 * <ul>
 *   <li><b>Policy.</b> {@code SCHED_BATCH} while it parks because the application's threads drive the engine
 *       ({@link #batch}): it wakes now and then to see whether they still do, and a batch thread's wake-ups never
 *       preempt the thread running on a core (each look used to take a core from a spinning caller for a few
 *       microseconds: the slowest iterations of a short ping-pong). {@code SCHED_OTHER} while it sleeps on the link
 *       ({@link #normal}), since it is then the one that must answer what comes.</li>
 *   <li><b>Slice.</b> {@link #SLICE_NS}, the shortest the kernel takes (EEVDF's custom slice, Linux 6.12 and later;
 *       older kernels ignore it). A thread woken onto a core where another runs preempts it only when it asks for a
 *       shorter slice than that one (else the running one keeps its core until its slice is used up, which the
 *       kernel sees at its next tick: 4 ms at 250 Hz). The engine thread is woken by what it must answer, and beside
 *       a busy process its ACK after an idle spell took one such tick at p99 (4 - 5 ms, where NIO UDP's blocked
 *       receive answered in 0.1 ms: that wake-up, from a sender that then sleeps, lands on the sender's core). The
 *       short slice does not change its share of the CPU (that is its nice value's weight), only how soon it runs
 *       after a wake-up and how soon it yields the core after one. Off with the setting {@code jrdma.short-slice} /
 *       {@code JRDMA_SHORT_SLICE} = {@code off}: the kernel's default slice, as before.</li>
 * </ul>
 *
 * <p>The thread's nice value and reset-on-fork flag are kept (read back with {@code sched_getattr} first). Where the
 * system call is refused or cannot be bound, the policy is set with {@code sched_setscheduler(2)} and the slice stays
 * the kernel's; where neither can be bound (not Linux LP64, native access denied), nothing is changed.
 */
final class EngineScheduling {

    /** The slice asked for: the kernel's shortest (it clamps a custom slice to 0.1 - 100 ms). */
    static final long SLICE_NS = TimeUnit.MICROSECONDS.toNanos(100);
    /** Whether the engine thread asks for {@link #SLICE_NS} ({@code jrdma.short-slice}, on unless off). */
    static final boolean SHORT_SLICE = Settings.enabled("jrdma.short-slice", "JRDMA_SHORT_SLICE");

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;
    private static final long SCHED_FLAG_RESET_ON_FORK = 0x01;
    /** struct sched_attr as of its first version: its size and the offsets of the fields set here. */
    private static final int ATTR_SIZE = 48;
    private static final long SIZE = 0;
    private static final long POLICY = 4;
    private static final long FLAGS = 8;
    private static final long PRIORITY = 20;
    private static final long RUNTIME = 24;
    private static final long DEADLINE = 32;
    private static final long PERIOD = 40;
    private static final boolean AARCH64 = System.getProperty("os.arch", "").equals("aarch64");
    private static final long NR_SCHED_SETATTR = AARCH64 ? 274 : 314;
    private static final long NR_SCHED_GETATTR = AARCH64 ? 275 : 315;

    /** struct sched_param { int priority = 0; }, read-only: for the fallback. */
    private static final MemorySegment PARAM = Arena.global().allocate(ValueLayout.JAVA_INT);
    private static final MethodHandle SETSCHEDULER = LinuxCall.bind("sched_setscheduler",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS));
    /** long syscall(long number, ...): four arguments after the number, passed as longs (the last may be unused). */
    private static final MethodHandle SYSCALL = LinuxCall.bind("syscall",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    /** Per thread (engine threads only): its struct sched_attr, read and written in place. */
    private static final ThreadLocal<MemorySegment> ATTR =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(ATTR_SIZE, 8));

    private EngineScheduling() {
    }

    /**
     * Switches the calling thread to {@code SCHED_BATCH} (priority 0, its nice value kept) with the short slice.
     *
     * @return whether the policy was set
     */
    static boolean batch() {
        return set(SCHED_BATCH, SHORT_SLICE ? SLICE_NS : 0);
    }

    /**
     * Switches the calling thread to {@code SCHED_OTHER} (its nice value kept) with the short slice: for a sleep after
     * which it is the one that must answer. Woken onto a core that a busy thread holds, a batch thread waits for that
     * thread's turn to end, and so does a normal one with the default slice; a normal one with a shorter slice than the
     * busy thread's preempts it.
     *
     * @return whether the policy was set
     */
    static boolean normal() {
        return set(SCHED_OTHER, SHORT_SLICE ? SLICE_NS : 0);
    }

    /** The calling thread's slice as the kernel reports it (its custom or default slice), or -1 where unknown. */
    static long slice() {
        MemorySegment a = ATTR.get();
        return SYSCALL != null && getattr(a) ? a.get(ValueLayout.JAVA_LONG, RUNTIME) : -1;
    }

    /**
     * Whether this kernel takes a custom slice: switches the calling thread to {@code SCHED_OTHER} with
     * {@link #SLICE_NS} whatever the setting says, and reads it back (tests, on a thread of their own).
     */
    static boolean kernelTakesShortSlice() {
        return set(SCHED_OTHER, SLICE_NS) && slice() == SLICE_NS;
    }

    /** Sets {@code policy} and slice {@code runtimeNs} (0: the kernel's default) on the calling thread. */
    private static boolean set(int policy, long runtimeNs) {
        MemorySegment a = ATTR.get();
        if (SYSCALL != null && getattr(a)) {
            a.set(ValueLayout.JAVA_INT, SIZE, ATTR_SIZE);
            a.set(ValueLayout.JAVA_INT, POLICY, policy);
            a.set(ValueLayout.JAVA_LONG, FLAGS, a.get(ValueLayout.JAVA_LONG, FLAGS) & SCHED_FLAG_RESET_ON_FORK);
            a.set(ValueLayout.JAVA_INT, PRIORITY, 0);
            a.set(ValueLayout.JAVA_LONG, RUNTIME, runtimeNs);
            a.set(ValueLayout.JAVA_LONG, DEADLINE, 0L);
            a.set(ValueLayout.JAVA_LONG, PERIOD, 0L);
            try {
                if ((long) SYSCALL.invokeExact(NR_SCHED_SETATTR, 0L, a.address(), 0L, 0L) == 0) {
                    return true;
                }
            } catch (Throwable e) {
                // the fallback below
            }
        }
        if (SETSCHEDULER == null) {
            return false;
        }
        try {
            return (int) SETSCHEDULER.invokeExact(0, policy, PARAM) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** Reads the calling thread's attributes into {@code a}; whether it could. */
    private static boolean getattr(MemorySegment a) {
        try {
            return (long) SYSCALL.invokeExact(NR_SCHED_GETATTR, 0L, a.address(), (long) ATTR_SIZE, 0L) == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
