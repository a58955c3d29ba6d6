package io.jrdma.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Memory regions and memory windows by key, in one table: {@code key = slot << 8 | low byte}, so a lookup is one
 * array read and a full-key compare, and a dead key stops matching even when its slot is reused.
 *
 * <p>MRs and MWs share the key space but not the slots: MRs take slots {@code [0, mrCapacity)} and MWs the slots
 * after them, as rxe gives its MR and MW pools disjoint index ranges. So the slot alone says whether an rkey names a
 * window ({@link #isMwKey}, rxe's {@code rkey_is_mw}), and a window's rkey can never name a region or the reverse.
 * An MR's low byte is the slot's generation; an MW's low byte starts as the generation and is then the key the
 * consumer chooses at every bind (IBA 10.6.7.3).
 *
 * <p>Mutated on the control path under the engine lock; read lock-free by posting threads and the engine.
 */
final class MrTable {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private final Object[] slots; // SoftMr in [0, mrCapacity), SoftMw after
    private final byte[] generation;
    private final int mrCapacity;
    private int nextMr;
    private int nextMw;
    private int mrCount;
    private int mwCount;

    MrTable(int mrCapacity, int mwCapacity) {
        this.mrCapacity = mrCapacity;
        slots = new Object[mrCapacity + mwCapacity];
        generation = new byte[slots.length];
        ThreadLocalRandom.current().nextBytes(generation);
        nextMw = mrCapacity;
    }

    /** The key for a new region in a free slot, or -1 when the table is full. */
    int allocateKey() {
        if (mrCount == mrCapacity) {
            return -1;
        }
        while (SLOT.getAcquire(slots, nextMr) != null) {
            nextMr = (nextMr + 1) % mrCapacity;
        }
        int slot = nextMr;
        nextMr = (nextMr + 1) % mrCapacity;
        return newKey(slot);
    }

    /** The first rkey of a new window in a free window slot, or -1 when no window slot is free. */
    int allocateMwKey() {
        int mwCapacity = slots.length - mrCapacity;
        if (mwCount == mwCapacity) {
            return -1;
        }
        while (SLOT.getAcquire(slots, nextMw) != null) {
            nextMw = nextMw + 1 == slots.length ? mrCapacity : nextMw + 1;
        }
        int slot = nextMw;
        nextMw = nextMw + 1 == slots.length ? mrCapacity : nextMw + 1;
        return newKey(slot);
    }

    private int newKey(int slot) {
        generation[slot]++;
        return slot << 8 | (generation[slot] & 0xFF);
    }

    void put(SoftMr mr) {
        SLOT.setRelease(slots, mr.key >>> 8, mr);
        mrCount++;
    }

    void remove(SoftMr mr) {
        int slot = mr.key >>> 8;
        if (SLOT.getAcquire(slots, slot) == mr) {
            SLOT.setRelease(slots, slot, (Object) null);
            mrCount--;
        }
    }

    void put(SoftMw mw) {
        SLOT.setRelease(slots, mw.slot, mw);
        mwCount++;
    }

    void remove(SoftMw mw) {
        if (SLOT.getAcquire(slots, mw.slot) == mw) {
            SLOT.setRelease(slots, mw.slot, (Object) null);
            mwCount--;
        }
    }

    /** The valid region with exactly this key, or null (a window's rkey never names a region). */
    SoftMr lookup(int key) {
        int slot = key >>> 8;
        if (slot >= mrCapacity) {
            return null;
        }
        return SLOT.getAcquire(slots, slot) instanceof SoftMr mr && mr.key == key && mr.valid() ? mr : null;
    }

    /** Whether {@code key} lies in the windows' part of the key space (rxe's rkey_is_mw). */
    boolean isMwKey(int key) {
        int slot = key >>> 8;
        return slot >= mrCapacity && slot < slots.length;
    }

    /**
     * The allocated window whose current rkey is exactly {@code key}, or null. The window may be unbound or
     * invalidated; callers check its state.
     */
    SoftMw lookupMw(int key) {
        if (!isMwKey(key)) {
            return null;
        }
        return SLOT.getAcquire(slots, key >>> 8) instanceof SoftMw mw && mw.key == key && !mw.closed ? mw : null;
    }
}
