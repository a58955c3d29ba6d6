package io.jrdma.tools.compare;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The measured interval on the side that receives the data: it opens {@code warmup} after the first message
 * arrived and closes {@code duration} later. At each edge it samples the message count, the time and the process
 * CPU time, and tells the peer ({@code start}, {@code stop} on the control connection) so that the peer samples
 * its CPU at the same moments and stops sending.
 */
final class Window {

    private final Control control;
    private final long warmupNs;
    private final long durationNs;
    private int phase; // 0 nothing yet, 1 warming up, 2 measuring, 3 done
    private long firstNs;
    private long startNs;
    private long endNs;
    private long startCount;
    private long endCount;
    private long startCpu;
    private long endCpu;

    Window(Control control, long warmupNs, long durationNs) {
        this.control = control;
        this.warmupNs = warmupNs;
        this.durationNs = durationNs;
    }

    /**
     * Advances the window with the number of messages received so far.
     *
     * @return true once the measured interval is over
     */
    boolean tick(long count) {
        if (phase == 3) {
            return true;
        }
        if (count == 0) {
            return false;
        }
        long now = System.nanoTime();
        switch (phase) {
            case 0 -> {
                firstNs = now;
                phase = 1;
            }
            case 1 -> {
                if (now - firstNs >= warmupNs) {
                    startNs = now;
                    startCount = count;
                    startCpu = Cpu.processNs();
                    send(Control.START);
                    phase = 2;
                }
            }
            default -> {
                if (now - startNs >= durationNs) {
                    endNs = now;
                    endCount = count;
                    endCpu = Cpu.processNs();
                    send(Control.STOP);
                    phase = 3;
                    return true;
                }
            }
        }
        return false;
    }

    private void send(String line) {
        try {
            control.send(line);
        } catch (IOException e) {
            throw new UncheckedIOException("control connection: " + e.getMessage(), e);
        }
    }

    boolean done() {
        return phase == 3;
    }

    /** Messages received in the measured interval. */
    long messages() {
        return endCount - startCount;
    }

    /** The measured interval in nanoseconds. */
    long nanos() {
        return endNs - startNs;
    }

    /** Process CPU time used in the measured interval. */
    long cpuNs() {
        return endCpu - startCpu;
    }

    /** The result fields of the receiving side: messages, bytes, interval, CPU. */
    String fields(long messageBytes) {
        return "msgs=" + messages() + " bytes=" + messages() * messageBytes + " ns=" + nanos() + " cpu_ns=" + cpuNs()
                + " wall_ns=" + nanos();
    }

    /** The result fields of the sending side: its CPU between the peer's {@code start} and {@code stop}. */
    static String peerFields(Control control) {
        Control.Msg a = control.startMark();
        Control.Msg b = control.stopMark();
        if (a == null || b == null) {
            throw new IllegalStateException("the peer never opened or closed the measured interval");
        }
        return "cpu_ns=" + (b.cpuNs() - a.cpuNs()) + " wall_ns=" + (b.nanoTime() - a.nanoTime());
    }
}
