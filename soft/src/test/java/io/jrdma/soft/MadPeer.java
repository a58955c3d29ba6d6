package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.Gid;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** One end of a MAD test: a soft device on its own address, its context, and MAD buffers; bounded waits. */
final class MadPeer implements AutoCloseable {

    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    final SoftContext ctx;
    final Arena arena = Arena.ofShared();
    final MemorySegment out = arena.allocate(MadPort.MAD_SIZE);
    final MemorySegment in = arena.allocate(MadPort.MAD_SIZE);

    MadPeer(String ip, Threading threading) {
        this(ip, threading, null);
    }

    MadPeer(String ip, Threading threading, Path capture) {
        SoftDevice.Builder b = SoftDevice.builder().name("mad-" + ip).address(ip).threading(threading);
        if (capture != null) {
            b.capture(capture);
        }
        ctx = b.build().open();
    }

    Gid gid() {
        return ctx.queryGid(1, 1);
    }

    MadAddress gsi() {
        return MadAddress.gsi(gid());
    }

    long count(Counter c) {
        return ctx.counters().get(c);
    }

    /** A MAD whose bytes derive from {@code seed} (a GSI-like header: base version 1, class 7 for the CM). */
    MemorySegment mad(int seed) {
        for (int i = 0; i < MadPort.MAD_SIZE; i++) {
            out.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i));
        }
        out.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        out.set(ValueLayout.JAVA_BYTE, 1, (byte) 7);
        out.set(ValueLayout.JAVA_BYTE, 2, (byte) 2);
        out.set(ValueLayout.JAVA_BYTE, 3, (byte) 3);
        return out;
    }

    /** Asserts that {@link #in} holds the MAD {@link #mad} makes from {@code seed}. */
    void assertReceived(int seed) {
        byte[] want = new byte[MadPort.MAD_SIZE];
        for (int i = 0; i < want.length; i++) {
            want[i] = (byte) (seed * 31 + i);
        }
        want[0] = 1;
        want[1] = 7;
        want[2] = 2;
        want[3] = 3;
        assertEquals(java.util.HexFormat.of().formatHex(want),
                java.util.HexFormat.of().formatHex(in.toArray(ValueLayout.JAVA_BYTE)), "the MAD's bytes");
    }

    /** Waits, driving this device (invoker mode needs it), until counter {@code c} reaches {@code value}. */
    void awaitCounter(Counter c, long value) {
        long deadline = System.nanoTime() + WAIT_NS;
        while (count(c) < value) {
            if (System.nanoTime() - deadline > 0) {
                fail(c + " stayed at " + count(c) + ", expected " + value + "; " + ctx.counters());
            }
            ctx.progress();
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        ctx.close();
        arena.close();
    }
}
