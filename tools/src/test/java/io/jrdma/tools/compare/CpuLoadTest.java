package io.jrdma.tools.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The busy processes of {@code jrdma bench --load}: they burn CPU, stop when closed, and stop by themselves. */
class CpuLoadTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void busyProcessesBurnCpuAndStopWhenClosed() throws InterruptedException {
        CpuLoad load = CpuLoad.start(2, 30_000);
        try (load) {
            assertEquals(2, load.alive());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (cpuSeconds(load) < 0.5 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(cpuSeconds(load) >= 0.5, "two busy processes used " + cpuSeconds(load) + " CPU-s");
        }
        assertEquals(0, load.alive(), "closing stops them");
        assertTrue(load.handles().stream().noneMatch(ProcessHandle::isAlive));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aBusyProcessStopsByItselfAtItsDeadline() throws InterruptedException {
        try (CpuLoad load = CpuLoad.start(1, 300)) {
            ProcessHandle p = load.handles().getFirst();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, load.alive(), "a load process asked for 300 ms was still running 30 s later");
        }
        try (CpuLoad none = CpuLoad.start(0, 1_000)) {
            assertEquals(0, none.alive());
        }
    }

    private static double cpuSeconds(CpuLoad load) {
        return load.handles().stream().mapToDouble(h -> h.info().totalCpuDuration().orElse(Duration.ZERO)
                .toNanos() / 1e9).sum();
    }
}
