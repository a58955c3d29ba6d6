package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.examples.Throughput;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Mtu;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The throughput program completes its transfers and prints a table with a positive rate for each operation. */
class ThroughputTest {

    @Test
    void shouldPrintWriteAndReadRatesAgainstTheBaseline() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = Throughput.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), 4L << 20, Mtu.MTU_4096,
                Threading.INVOKER, 1);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, out);
        for (String op : new String[] {"memory copy \\(baseline\\)", "RDMA WRITE", "RDMA READ"}) {
            Matcher m = Pattern.compile(op + "\\s+(\\d+)\\s+([0-9.]+)").matcher(out);
            assertTrue(m.find(), op + " missing in\n" + out);
            assertTrue(Long.parseLong(m.group(1)) > 0, out);
        }
    }
}
