package io.jrdma.soft;

import io.jrdma.verbs.RecvWr;

/** A receive queue entry: the posted receive request copied into preallocated storage. */
final class RecvWqe {
    long wrId;
    final SgeList sges;
    long capacity; // bytes the list holds

    RecvWqe(int maxSge) {
        sges = new SgeList(maxSge);
    }

    /** Copies a checked receive work request of {@code capacity} bytes into this slot. */
    void fill(RecvWr wr, long capacity) {
        wrId = wr.wrId();
        sges.copyOf(wr.sgList(), wr.numSge());
        this.capacity = capacity;
    }

    /** Copies another receive WQE (an SRQ's, taken by a QP; a ring being resized). */
    void copyOf(RecvWqe other) {
        wrId = other.wrId;
        sges.copyOf(other.sges);
        capacity = other.capacity;
    }
}
