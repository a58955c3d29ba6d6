package io.jrdma.tools.compare;

import io.jrdma.tools.CompilerWork;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.LongSupplier;

/**
 * The measured interval on the side that receives the data: it opens {@code warmup} after the first message
 * arrived, or later while either side's JIT compiler still works (looked at every {@link Measured#LOOK_NS}, at most
 * {@link Measured#MORE_NS} more; the peer reports its own, {@link Control#JIT}), and closes {@code duration} later. At
 * each edge it samples the message count, the time and the process CPU time, and tells the peer ({@code start},
 * {@code stop} on the control connection) so that the peer samples its CPU at the same moments and stops sending.
 * The compilers are the latency cases' rule ({@link Measured}) for both processes of a stream: beside a busy process
 * they compiled through the first 64 KiB WRITE case's measured 3 s, a quarter of the core the pair shared, in jrdma's
 * processes and the baselines' alike.
 */
final class Window {

    private final Control control;
    private final LongSupplier compilerWork;
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
    private long nextLookNs;
    private long lastLookNs;
    private long lastOwnJit = Long.MIN_VALUE; // no look yet: the first look never finds the compilers quiet
    private long lastPeerJit = Long.MIN_VALUE;

    Window(Control control, long warmupNs, long durationNs) {
        this(control, warmupNs, durationNs, CompilerWork::sofar);
    }

    /** With this process's compiler work taken from {@code compilerWork} ({@link CompilerWork#sofar}; tests). */
    Window(Control control, long warmupNs, long durationNs, LongSupplier compilerWork) {
        this.control = control;
        this.warmupNs = warmupNs;
        this.durationNs = durationNs;
        this.compilerWork = compilerWork;
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
                nextLookNs = now + warmupNs;
                phase = 1;
                send(Control.JIT_ASK);
            }
            case 1 -> {
                if (now - nextLookNs >= 0 && compilersQuiet(now)) {
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

    /**
     * Whether neither compiler worked since the last look (this process's, and the peer's by a report that came
     * after that look), or the warm-up has gone on {@link Measured#MORE_NS} beyond {@code warmup}; else the next look
     * is {@link Measured#LOOK_NS} later.
     */
    private boolean compilersQuiet(long now) {
        long own = compilerWork.getAsLong();
        long peer = control.peerCompilerWork();
        boolean reported = control.peerCompilerReportNs() - lastLookNs > 0;
        boolean quiet = own < 0 || now - firstNs - warmupNs >= Measured.MORE_NS
                || own == lastOwnJit && reported && peer == lastPeerJit;
        lastOwnJit = own;
        lastPeerJit = peer;
        lastLookNs = now;
        nextLookNs = now + Measured.LOOK_NS;
        return quiet;
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
                + " wall_ns=" + nanos() + " warmup_ms=" + (startNs - firstNs) / 1_000_000L;
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
