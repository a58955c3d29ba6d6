package io.jrdma.ibverbs;

import java.util.ArrayList;
import java.util.List;

/**
 * The Java objects a context's CQs, QPs and SRQs are, by a small integer the provider stores in their
 * {@code cq_context}, {@code qp_context} and {@code srq_context}: so a completion event or an async event, which
 * names the native struct, finds its Java object without a map of pointers. An id is reserved before the native
 * create call (which takes it) and set once the object exists. Id 0 is never used. Control path; guarded by the
 * owning context's lock.
 */
final class Handles<T> {

    private static final Object RESERVED = new Object();

    private final List<Object> slots = new ArrayList<>();

    /** Reserves an id. */
    long reserve() {
        int free = slots.indexOf(null);
        if (free >= 0) {
            slots.set(free, RESERVED);
            return free + 1;
        }
        slots.add(RESERVED);
        return slots.size();
    }

    /** Sets the object of the reserved {@code id}. */
    void set(long id, T value) {
        slots.set((int) id - 1, value);
    }

    /** Frees {@code id}. */
    void remove(long id) {
        if (id > 0 && id <= slots.size()) {
            slots.set((int) id - 1, null);
        }
    }

    /** The object of {@code id}, or null (also while it is only reserved). */
    @SuppressWarnings("unchecked")
    T get(long id) {
        if (id <= 0 || id > slots.size()) {
            return null;
        }
        Object o = slots.get((int) id - 1);
        return o == RESERVED ? null : (T) o;
    }
}
