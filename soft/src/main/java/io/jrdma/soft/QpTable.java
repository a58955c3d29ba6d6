package io.jrdma.soft;

import java.util.Arrays;

/**
 * The device's QPs: by slot (QPN - {@link SoftLimits#QPN_BASE}), for the receive path's dispatch, and as a compact
 * list of the live ones, for the engine's pass. The special QPs 0 (SMI) and 1 (GSI, a {@link MadPort}'s) have
 * slots of their own after the numbered ones. Changed on the control path under the device lock; read by the
 * engine under the same lock.
 */
final class QpTable {

    /** QPNs below this are the special QPs (0 and 1), which exist only while something opened them. */
    static final int SPECIAL_QPS = 2;

    private final SoftQp[] bySlot = new SoftQp[SoftLimits.MAX_QP + SPECIAL_QPS];
    private SoftQp[] live = new SoftQp[8];
    private int liveCount;

    /** Registers a new QP (control path, lock held). */
    void add(SoftQp qp) {
        bySlot[slot(qp.qpn)] = qp;
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, live.length * 2);
        }
        live[liveCount++] = qp;
    }

    /** Removes a QP (control path, lock held). */
    void remove(SoftQp qp) {
        bySlot[slot(qp.qpn)] = null;
        for (int i = 0; i < liveCount; i++) {
            if (live[i] == qp) {
                live[i] = live[--liveCount];
                live[liveCount] = null;
                return;
            }
        }
    }

    boolean slotFree(int slot) {
        return bySlot[slot] == null;
    }

    /** The QP with this QPN, or null (a packet's destination QP may be anything). */
    SoftQp byQpn(int qpn) {
        int slot = slot(qpn);
        return slot >= 0 && slot < bySlot.length ? bySlot[slot] : null;
    }

    /**
     * A QPN's slot, {@code [0, MAX_QP + SPECIAL_QPS)} for a QPN a QP may have (negative or beyond for others): the
     * numbered QPs' first, then QP 0 and QP 1. Per-QP state of the receive path is indexed by it too.
     */
    static int slot(int qpn) {
        return qpn >= 0 && qpn < SPECIAL_QPS ? SoftLimits.MAX_QP + qpn : qpn - SoftLimits.QPN_BASE;
    }

    /** How many QPs are live. */
    int count() {
        return liveCount;
    }

    /** The {@code i}th live QP, {@code 0 <= i < count()}; the order changes when a QP is removed. */
    SoftQp at(int i) {
        return live[i];
    }

    /** How long from {@code now} until the nearest requester timer of a live QP, at most {@code max} (lock held). */
    long nextDeadlineNs(long now, long max) {
        long budget = max;
        for (int i = 0; i < liveCount; i++) {
            budget = Math.min(budget, live[i].requester.nextDeadlineNs(now));
        }
        return budget;
    }

    /**
     * A pass that began at {@code start} ended at {@code end}: the ACK timers it armed run from its end, when its
     * packets had left (lock held; see {@link Requester#passEnded}).
     */
    void passEnded(long start, long end) {
        for (int i = 0; i < liveCount; i++) {
            live[i].requester.passEnded(start, end);
        }
    }
}
