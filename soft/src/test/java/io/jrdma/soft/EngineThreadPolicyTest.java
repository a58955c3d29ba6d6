package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.WorkCompletion;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The engine thread's scheduling attributes, read from Linux's /proc ({@link EngineScheduling}): an adaptive device's
 * thread runs under {@code SCHED_BATCH} while callers drive the engine, so that its looks at them never preempt them,
 * and under the normal policy while it sleeps on the link, since it is then the one that answers what comes (a batch
 * thread woken onto a core a busy thread holds waits for that thread's turn to end); in both, with the kernel's
 * shortest slice (a thread woken with the default slice waits for a busy thread's slice to end too). A dedicated
 * device's thread, which does all the work, keeps the normal policy and the default slice.
 */
class EngineThreadPolicyTest {

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;

    @Test
    void anAdaptiveEngineThreadIsABatchThreadWhileCallersDriveAndADedicatedOneIsNot() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/task")), "needs Linux's /proc");
        // device names of two characters: the thread names "jrdma-engine-aP" and "-dP" fit Linux's 15 characters
        try (Context adaptive = SoftDevice.builder().name("aP").address("127.0.151.1").threading(Threading.ADAPTIVE)
                .build().open();
                Context dedicated = SoftDevice.builder().name("dP").address("127.0.151.2")
                        .threading(Threading.DEDICATED).build().open()) {
            String engine = "jrdma-engine-" + adaptive.device().name();
            assertEquals(SCHED_OTHER, awaitPolicy(engine, SCHED_OTHER, null), "adaptive engine thread, asleep");
            assertSlice(engine, "adaptive engine thread, asleep");
            try (CompletionQueue cq = adaptive.createCq(4)) {
                WorkCompletion[] wcs = {new WorkCompletion()};
                assertEquals(SCHED_BATCH, awaitPolicy(engine, SCHED_BATCH, () -> cq.poll(wcs)),
                        "adaptive engine thread while this thread polls");
                assertSlice(engine, "adaptive engine thread, parked for callers");
                assertEquals(SCHED_OTHER, awaitPolicy(engine, SCHED_OTHER, null),
                        "adaptive engine thread, asleep again once the polls stopped");
                assertSlice(engine, "adaptive engine thread, asleep again");
            }
            String other = "jrdma-engine-" + dedicated.device().name();
            assertEquals(SCHED_OTHER, awaitPolicy(other, SCHED_OTHER, null), "dedicated engine thread");
            long slice = slice(other);
            if (slice > 0) { // the kernel says
                assertNotEquals(EngineScheduling.SLICE_NS, slice, "dedicated engine thread: the default slice");
            }
        }
    }

    /**
     * Asserts that this process's thread named {@code comm} has {@link EngineScheduling#SLICE_NS} as its slice (or,
     * with the setting off, not), where the kernel takes a custom slice (Linux 6.12 and later: a thread of this test
     * asks for one and reads it back).
     */
    private static void assertSlice(String comm, String what) throws Exception {
        boolean[] taken = {false};
        Thread probe = Thread.ofPlatform().start(() -> taken[0] = EngineScheduling.kernelTakesShortSlice());
        probe.join();
        if (!taken[0]) {
            return; // an older kernel, or the call is not bound: the slice stays the kernel's default
        }
        if (EngineScheduling.SHORT_SLICE) {
            // a new engine thread runs under SCHED_OTHER with the default slice until it sets its own: wait for it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (slice(comm) != EngineScheduling.SLICE_NS && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            assertEquals(EngineScheduling.SLICE_NS, slice(comm), what + ": slice in ns (/proc/<tid>/sched)");
        } else { // JRDMA_SHORT_SLICE=off
            assertNotEquals(EngineScheduling.SLICE_NS, slice(comm), what + ", short slice off: the default slice");
        }
    }

    /** The slice ({@code se.slice} of its /proc sched file) of this process's thread named {@code comm}, or -1. */
    private static long slice(String comm) throws IOException {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(comm)) {
                        for (String line : Files.readAllLines(task.resolve("sched"))) {
                            if (line.startsWith("se.slice")) {
                                return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                            }
                        }
                        return -1;
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return -1;
    }

    /**
     * The policy of this process's thread named {@code comm} once it is {@code expected}, or after 5 s, the last;
     * meanwhile this thread runs {@code poll} (when not null) in a loop, else sleeps between looks.
     */
    private static int awaitPolicy(String comm, int expected, Runnable poll) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int policy;
        do {
            policy = policy(comm);
            if (policy == expected) {
                return policy;
            }
            if (poll == null) {
                Thread.sleep(10);
            } else {
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
                while (System.nanoTime() - until < 0) {
                    poll.run();
                }
            }
        } while (System.nanoTime() - deadline < 0);
        return policy;
    }

    /** The scheduling policy (the 41st field of its stat) of this process's thread named {@code comm}, or -1. */
    private static int policy(String comm) throws IOException {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(comm)) {
                        String stat = Files.readString(task.resolve("stat"));
                        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).strip().split(" ");
                        return Integer.parseInt(fields[41 - 3]); // fields[0] is the 3rd, the state
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return -1;
    }
}
