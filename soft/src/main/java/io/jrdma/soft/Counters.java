package io.jrdma.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** A device's counters: written by the engine thread only, readable from any thread. */
public final class Counters {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final Counter[] ALL = Counter.values();

    private final long[] values = new long[ALL.length];

    Counters() {
    }

    void increment(Counter c) {
        add(c, 1);
    }

    void add(Counter c, long n) {
        int i = c.ordinal();
        SLOT.setOpaque(values, i, (long) SLOT.getOpaque(values, i) + n);
    }

    /** The current value of a counter. */
    public long get(Counter c) {
        return (long) SLOT.getOpaque(values, c.ordinal());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Counter c : ALL) {
            sb.append(c.rxeName()).append('=').append(get(c)).append(' ');
        }
        return sb.toString().trim();
    }
}
