package io.jrdma.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Memory regions by key: {@code key = slot << 8 | generation}, so a lookup is one array read and a full-key
 * compare, and a deregistered key stops matching even when its slot is reused. Mutated on the control path under
 * the context's lock; read lock-free by posting threads and the engine.
 */
final class MrTable {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(SoftMr[].class);

    private final SoftMr[] slots;
    private final byte[] generation;
    private int next;
    private int count;

    MrTable(int capacity) {
        slots = new SoftMr[capacity];
        generation = new byte[capacity];
        ThreadLocalRandom.current().nextBytes(generation);
    }

    /** The key for a new region in a free slot, or -1 when the table is full. */
    int allocateKey() {
        if (count == slots.length) {
            return -1;
        }
        while (SLOT.getAcquire(slots, next) != null) {
            next = (next + 1) % slots.length;
        }
        int slot = next;
        next = (next + 1) % slots.length;
        generation[slot]++;
        return slot << 8 | (generation[slot] & 0xFF);
    }

    void put(SoftMr mr) {
        SLOT.setRelease(slots, mr.key >>> 8, mr);
        count++;
    }

    void remove(SoftMr mr) {
        int slot = mr.key >>> 8;
        if (SLOT.getAcquire(slots, slot) == mr) {
            SLOT.setRelease(slots, slot, (SoftMr) null);
            count--;
        }
    }

    /** The valid region with exactly this key, or null. */
    SoftMr lookup(int key) {
        int slot = key >>> 8;
        if (slot >= slots.length) {
            return null;
        }
        SoftMr mr = (SoftMr) SLOT.getAcquire(slots, slot);
        return mr != null && mr.key == key && mr.valid() ? mr : null;
    }
}
