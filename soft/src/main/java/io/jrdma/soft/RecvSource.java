package io.jrdma.soft;

/**
 * Where a QP's responder finds receive WQEs: the QP's own receive queue ({@link RqRecvSource}) or a shared receive
 * queue ({@link SrqRecvSource}). A message that needs a WQE {@link #acquire() acquires} one at the packet that
 * rxe's RWR rule names (SEND FIRST/ONLY, WRITE LAST/ONLY with Immediate), uses it as {@link #current()} until its
 * last packet and {@link #retire() retires} it after completing it. Engine thread only.
 */
interface RecvSource {

    /** Makes a WQE current for the message that starts now; false when there is none (the responder NAKs RNR). */
    boolean acquire();

    /** Whether a WQE is current (acquired, not yet retired). */
    boolean hasCurrent();

    /** The current WQE; only valid while {@link #hasCurrent()}. */
    RecvWqe current();

    /** The current WQE was completed: let it go. */
    void retire();

    /** The QP is in ERR: completes with WR_FLUSH_ERR what it holds beyond its RQ ring; returns how many. */
    default int flushTaken() {
        return 0;
    }

    /** Whether {@link #flushTaken()} has something to flush. */
    default boolean holdsTaken() {
        return false;
    }

    /** The QP moved to RESET: forget the current WQE without completing it (as ibv_modify_qp to RESET does). */
    default void discard() {
    }
}
