package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
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
        Thread t = Thread.ofPlatform().start(() -> applied.set(BatchPolicy.apply())); // a thread of its own
        t.join();
        assertTrue(applied.get(), "sched_setscheduler");
    }
}
