package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.Context;
import java.time.Duration;

/** Bounded waits for asynchronous events that keep every device of a test moving. */
final class Events {

    private Events() {
    }

    /** Drives with {@code drive} until {@code ctx} has an event; fails after {@code wait}. */
    static AsyncEvent await(Context ctx, Runnable drive, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() - deadline < 0) {
            drive.run();
            AsyncEvent e = ctx.pollAsyncEvent();
            if (e != null) {
                return e;
            }
            Thread.onSpinWait();
        }
        return fail("no asynchronous event within " + wait);
    }

    /** Drives with {@code drive} for {@code ms} milliseconds and asserts that {@code ctx} raised no event. */
    static void assertNone(Context ctx, Runnable drive, long ms) {
        long end = System.nanoTime() + ms * 1_000_000L;
        do {
            drive.run();
            AsyncEvent e = ctx.pollAsyncEvent();
            assertNull(e, () -> "unexpected asynchronous event " + e);
        } while (System.nanoTime() - end < 0);
    }
}
