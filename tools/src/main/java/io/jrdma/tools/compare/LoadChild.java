package io.jrdma.tools.compare;

import java.io.IOException;

/**
 * One process of {@code jrdma bench --load}: a busy loop on the main thread until {@code args[0]} milliseconds have
 * passed or its parent goes away (stdin reaches end of file), whichever comes first. Bounded in time by itself, so
 * it can never outlive the bench that started it by more than that.
 */
public final class LoadChild {

    private static volatile boolean stop;

    private LoadChild() {
    }

    /** {@code args[0]}: the most milliseconds to run. */
    public static void main(String[] args) {
        long deadline = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        Thread watcher = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent writes nothing; end of file means it is gone
                }
            } catch (IOException e) {
                // the same: no parent
            }
            stop = true;
        });
        long spins = 0;
        while (!stop && System.nanoTime() - deadline < 0) {
            spins++;
        }
        System.out.println(spins); // keeps the loop from being optimised away
        watcher.interrupt();
    }
}
