package io.jrdma.tools.scale;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scale goal as {@code jrdma scale} states it: 1000 connected RC QPs between two processes (the default queue
 * sizes, 128 send and 512 receive WRs), every QP RDMA-WRITing and SENDing 4 messages of 4 KiB, every byte checked per
 * QP on both sides, and one idle QP costing at most 32 KiB beyond its queue buffers on both sides. About 20 s.
 */
@Tag("slow")
class ScaleSlowTest {

    @Test
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void shouldConnectAndVerifyAThousandQpsBetweenTwoProcesses() {
        ScaleTest.Run r = ScaleTest.jrdma("scale", "-q", "1000", "--server-addr", "127.0.55.1", "--client-addr",
                "127.0.55.2", "--timeout", "60");
        ScaleTest.assertVerified(r, 1000);
        for (String side : new String[] {"server", "client"}) {
            // at most one UDP source-port socket per QP (QPs whose flow labels fold to one port share it)
            assertTrue(Double.parseDouble(r.result(side).get("fds")) <= 1.0, r.all());
            assertTrue(r.out().contains(side + ": memory of one idle connected QP (difference over 1000 QPs"), r.all());
        }
    }
}
