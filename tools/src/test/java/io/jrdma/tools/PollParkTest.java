package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Context;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools' poll loops park on a soft device once a wait lasts, and never on a hardware device, as the C tools; a
 * rehearsal's side on a machine with one CPU yields it to the other side.
 */
class PollParkTest {

    @Test
    void aSoftDevicesPollerShouldParkAfterItsSpin() throws Exception {
        SoftDevice d = SoftDevice.builder().name("pp0").address(InetAddress.getByName("127.0.148.41")).build();
        try (Context ctx = d.open()) {
            PollPark park = PollPark.of(ctx, false);
            assertEquals(PollPark.SOFT_SPIN_POLLS, park.spinPolls());
            assertFalse(park.yields());
        }
    }

    @Test
    void aHardwareDevicesPollerShouldNeverPark() {
        PollPark park = PollPark.of(FakeNic.context("mlx5_0"), false);
        assertEquals(Long.MAX_VALUE, park.spinPolls());
        long start = System.nanoTime();
        for (long polls = 1; polls <= 100_000; polls++) { // more empty polls than a soft device's poller spins
            park.afterEmptyPoll(polls);
        }
        // 80,000 parks of 20 µs would take over a second; 100,000 comparisons take microseconds
        assertTrue(System.nanoTime() - start < 200_000_000L, "a hardware device's poller parked");
    }

    @Test
    void aRehearsalSideShouldYieldOnlyOnAMachineWithOneCpu(@TempDir Path dir) throws Exception {
        if (Runtime.getRuntime().availableProcessors() > 1) { // here the two sides run side by side: as the run
            assertEquals(PollPark.of(FakeNic.context("mlx5_0"), false).spinPolls(),
                    PollPark.of(FakeNic.context("mlx5_0"), true).spinPolls());
            assertFalse(PollPark.of(FakeNic.context("mlx5_0"), true).yields());
        }
        // a JVM that sees one CPU (as on the one-vCPU guests of the native provider's overhead runs)
        try (ChildJvm one = ChildJvm.start(dir, "one", Threading.ADAPTIVE, List.of("-XX:ActiveProcessorCount=1"),
                List.of(), Probe.class.getName(), List.of())) {
            ChildJvm.awaitAll(one);
            assertEquals(0, one.status(), one::describe);
            assertEquals("1 rehearsing: true " + PollPark.ONE_CPU_SPIN_POLLS + ", running: false " + Long.MAX_VALUE,
                    one.out().strip(), one::describe);
        }
    }

    /** Prints the CPUs this JVM sees and the rule of a hardware device's rehearsal side and of its run. */
    public static final class Probe {
        public static void main(String[] args) {
            PollPark rehearsing = PollPark.of(FakeNic.context("mlx5_0"), true);
            PollPark running = PollPark.of(FakeNic.context("mlx5_0"), false);
            System.out.println(Runtime.getRuntime().availableProcessors() + " rehearsing: " + rehearsing.yields() + " "
                    + rehearsing.spinPolls() + ", running: " + running.yields() + " " + running.spinPolls());
        }
    }
}
