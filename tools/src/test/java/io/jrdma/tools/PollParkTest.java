package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Context;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The tools' poll loops park on a soft device once a wait lasts, and never on a hardware device, as the C tools. */
class PollParkTest {

    @Test
    void aSoftDevicesPollerShouldParkAfterItsSpin() throws Exception {
        SoftDevice d = SoftDevice.builder().name("pp0").address(InetAddress.getByName("127.0.148.41")).build();
        try (Context ctx = d.open()) {
            assertEquals(PollPark.SOFT_SPIN_POLLS, PollPark.spinPolls(ctx));
        }
    }

    @Test
    void aHardwareDevicesPollerShouldNeverPark() {
        Context ctx = FakeNic.context("mlx5_0");
        long spin = PollPark.spinPolls(ctx);
        assertEquals(Long.MAX_VALUE, spin);
        long start = System.nanoTime();
        for (long polls = 1; polls <= 100_000; polls++) { // more empty polls than a soft device's poller spins
            PollPark.afterEmptyPoll(polls, spin);
        }
        // 80,000 parks of 20 µs would take over a second; 100,000 comparisons take microseconds
        assertTrue(System.nanoTime() - start < 200_000_000L, "a hardware device's poller parked");
    }
}
