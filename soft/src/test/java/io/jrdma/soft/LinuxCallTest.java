package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link LinuxCall} and the engine's calls bound through it, on this machine's C library. */
class LinuxCallTest {

    @Test
    void theSchedulerCallsAreBoundOnLinuxAndAnUnknownNameIsNot() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/status")), "needs Linux");
        assertTrue(Preemptions.available(), "getrusage");
        long first = Preemptions.sinceLast();
        assertTrue(first >= 0, "the thread's involuntary switches so far: " + first);
        Thread.sleep(1);
        assertTrue(Preemptions.sinceLast() >= 0);
        assertNull(LinuxCall.bind("jrdma_no_such_function", FunctionDescriptor.of(ValueLayout.JAVA_INT)));
        AtomicBoolean applied = new AtomicBoolean();
        Thread t = Thread.ofPlatform().start(() -> applied.set(EngineScheduling.batch())); // a thread of its own
        t.join();
        assertTrue(applied.get(), "sched_setattr or sched_setscheduler");
    }

    /**
     * {@link EngineScheduling} changes the policy and the slice only: a thread's nice value stays what it was (a
     * process started under {@code nice} keeps its engine thread as nice as its other threads).
     */
    @Test
    void theEngineThreadsAttributesKeepItsNiceValue() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/stat")), "needs Linux");
        MethodHandle setpriority = LinuxCall.bind("setpriority", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        assumeTrue(setpriority != null, "setpriority bound");
        int[] nice = new int[3];
        Throwable[] failed = {null};
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                // PRIO_PROCESS with who = 0: on Linux, the calling thread alone
                assertEquals(0, (int) setpriority.invokeExact(0, 0, 7), "setpriority");
                nice[0] = niceOfThisThread();
                EngineScheduling.batch();
                nice[1] = niceOfThisThread();
                EngineScheduling.normal();
                nice[2] = niceOfThisThread();
            } catch (Throwable e) {
                failed[0] = e;
            }
        });
        t.join();
        assertNull(failed[0]);
        assertArrayEquals(new int[] {7, 7, 7}, nice, "nice before, under SCHED_BATCH, under SCHED_OTHER");
    }

    /** The 19th field of /proc/thread-self/stat. */
    private static int niceOfThisThread() throws IOException {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).strip().split(" ");
        return Integer.parseInt(fields[19 - 3]); // fields[0] is the 3rd, the state
    }
}
