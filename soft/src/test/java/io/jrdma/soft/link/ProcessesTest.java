package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process told by its pid and the kernel's stamp of its start: exactly, as every reader reads it, whatever the
 * wall clock did in between (a start instant computed from the boot time a JVM read when it started took a live
 * process for a dead one after a step of the clock).
 */
class ProcessesTest {

    @TempDir
    Path dir;

    @BeforeEach
    void linux() {
        assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "the kernel's stamps are read from /proc");
    }

    @Test
    void aRunningProcessIsItsPidWithExactlyItsStartStamp() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            long pid = sleeper.pid();
            long stamp = Processes.start(pid);
            assertTrue(stamp > 0, "a running process has a stamp: " + stamp);
            assertEquals(stamp, Processes.start(pid), "a stamp does not change while the process runs");
            assertTrue(Processes.alive(pid, stamp));
            assertTrue(Processes.alive(pid, 0), "an unknown stamp: the pid alone");
            assertFalse(Processes.alive(pid, stamp + 1), "a process given this pid a clock tick later is another");
            assertFalse(Processes.alive(pid, stamp - 1), "a process given this pid a clock tick earlier is another");
        } finally {
            sleeper.destroyForcibly();
            assertTrue(sleeper.waitFor(10, TimeUnit.SECONDS));
        }
        assertEquals(0, Processes.start(sleeper.pid()), "an ended process has no stamp");
        assertFalse(Processes.alive(sleeper.pid(), 0));
    }

    @Test
    void thisProcessesStampIsTheKernelsAsAnyReaderReadsIt() {
        long stamp = Processes.currentStart();
        assertTrue(stamp > 0);
        assertEquals(stamp, Processes.start(Processes.currentPid()));
        assertTrue(Processes.alive(Processes.currentPid(), stamp));
        long uptimeTicks = (long) (uptimeSeconds() * 100);
        assertTrue(stamp <= uptimeTicks + 100, "clock ticks since boot, not wall-clock time: " + stamp + " > "
                + uptimeTicks);
    }

    @Test
    void aCommandNameWithParenthesesAndSpacesDoesNotShiftTheFields() throws Exception {
        Path odd = dir.resolve("a) b (c");
        Files.createSymbolicLink(odd, Path.of("/bin/sleep"));
        Process sleeper = new ProcessBuilder(odd.toString(), "30").start();
        Process plain = new ProcessBuilder("sleep", "30").start();
        try {
            long oddStamp = Processes.start(sleeper.pid());
            long plainStamp = Processes.start(plain.pid());
            assertTrue(oddStamp > 0 && Processes.alive(sleeper.pid(), oddStamp), "stamp " + oddStamp);
            assertTrue(Math.abs(plainStamp - oddStamp) < 1000, "started together: " + oddStamp + ", " + plainStamp);
        } finally {
            sleeper.destroyForcibly();
            plain.destroyForcibly();
            assertTrue(sleeper.waitFor(10, TimeUnit.SECONDS) && plain.waitFor(10, TimeUnit.SECONDS));
        }
    }

    private static double uptimeSeconds() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
