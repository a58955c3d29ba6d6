package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.examples.DemoRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The demo behind {@code jrdma demo}, on addresses of its own so that it never meets another test's devices. */
class DemoRunTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldRunEveryOperationAndPrintItsPackets() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = DemoRun.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), "127.0.3.1", "127.0.3.2");
        String out = bytes.toString(StandardCharsets.UTF_8);

        assertEquals(0, rc, out);
        for (String expected : new String[] {"RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST",
            "RC_SEND_ONLY_WITH_IMMEDIATE", "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_LAST", "RC_RDMA_READ_REQUEST",
            "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_LAST", "RC_ACKNOWLEDGE", "data verified",
            "127.0.3.1 -> 127.0.3.2 RC_SEND_FIRST", "127.0.3.1 <- 127.0.3.2 RC_ACKNOWLEDGE", "imm=0x1234abcd",
            "opcode=RDMA_READ byte_len=2500", "demo OK"}) {
            assertTrue(out.contains(expected), "missing '" + expected + "' in\n" + out);
        }
        assertEquals(4, count(out, "data verified"), out);
        assertTrue(out.indexOf("RC_SEND_FIRST") < out.indexOf("RC_RDMA_WRITE_FIRST")
                && out.indexOf("RC_RDMA_WRITE_FIRST") < out.indexOf("RC_RDMA_READ_REQUEST"), out);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
