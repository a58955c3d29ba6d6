package io.jrdma.soft;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A device's counters: written by the engine thread (and a few by a {@link MadPort}), readable from any thread and, once the device is open,
 * from other processes through its counters file ({@link CountersFile}).
 *
 * <p>The values are 8-byte little-endian slots, one per {@link Counter} in ordinal order, in a segment that starts
 * on the heap and moves into the memory-mapped counters file when the device opens. A write is an opaque read and
 * a release store of the slot: no lock, no allocation, and a reader in another process sees whole values.
 */
public final class Counters {

    /** The slot layout (also the counters file's). */
    static final ValueLayout.OfLong SLOT_LAYOUT = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final VarHandle SLOT = SLOT_LAYOUT.varHandle();
    private static final Counter[] ALL = Counter.values();

    /** Written before the engine starts (see {@link #moveTo}), then only read. */
    private MemorySegment values = MemorySegment.ofArray(new long[ALL.length]);

    Counters() {
    }

    void increment(Counter c) {
        add(c, 1);
    }

    void add(Counter c, long n) {
        long at = (long) c.ordinal() * Long.BYTES;
        MemorySegment v = values;
        SLOT.setRelease(v, at, (long) SLOT.getOpaque(v, at) + n);
    }

    /**
     * Adds {@code n} atomically, for the few counters more than one thread writes (a {@link MadPort}'s: its agent's
     * thread and the application's); the engine's own counters have one writer and use {@link #add}.
     */
    void addAtomic(Counter c, long n) {
        SLOT.getAndAdd(values, (long) c.ordinal() * Long.BYTES, n);
    }

    /** The current value of a counter. */
    public long get(Counter c) {
        return (long) SLOT.getOpaque(values, (long) c.ordinal() * Long.BYTES);
    }

    /** Bytes the values take: 8 per counter. */
    static long byteSize() {
        return (long) ALL.length * Long.BYTES;
    }

    /**
     * Copies the values into {@code target} (8-byte aligned, {@link #byteSize()} bytes) and keeps counting there.
     * Called before the engine runs, so no increment is lost.
     */
    void moveTo(MemorySegment target) {
        for (Counter c : ALL) {
            long at = (long) c.ordinal() * Long.BYTES;
            SLOT.setRelease(target, at, get(c));
        }
        values = target;
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
