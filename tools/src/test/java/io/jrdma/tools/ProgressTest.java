package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.examples.Progress;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Progress lines: drawn in place on a terminal, nothing at all in scripts (as under the test runner). */
class ProgressTest {

    @Test
    void shouldStayQuietWithoutATerminal() {
        assertFalse(Progress.interactive(), "the test runner's output is a pipe, not a terminal");
        try (Progress p = Progress.start("quiet", 10)) {
            assertFalse(p.enabled());
            p.add(10);
        }
    }

    @Test
    void shouldRedrawAtMostEvery200msAndEraseOnClose() {
        StringWriter sw = new StringWriter();
        long[] now = {0};
        try (Progress p = Progress.to(new PrintWriter(sw), "iterations", 1000, () -> now[0])) {
            assertTrue(p.enabled());
            now[0] = 1_000_000_000L;
            p.add(100);
            assertEquals("\riterations: 100/1000 (10%), 100.0/s, 1.0 s", sw.toString());
            now[0] += 100_000_000L;
            p.add(100);
            assertEquals("\riterations: 100/1000 (10%), 100.0/s, 1.0 s", sw.toString(), "not redrawn within 200 ms");
            now[0] = 2_000_000_000L;
            p.update(1000);
            assertTrue(sw.toString().endsWith("\riterations: 1000/1000 (100%), 500.0/s, 2.0 s"), sw.toString());
            sw.getBuffer().setLength(0);
        }
        String last = "iterations: 1000/1000 (100%), 500.0/s, 2.0 s";
        assertEquals("\r" + " ".repeat(last.length()) + "\r", sw.toString(), "close erases the line");
    }
}
