package io.jrdma.soft;

import java.util.Arrays;

/**
 * The device's QPs: by slot (QPN - {@link SoftLimits#QPN_BASE}), for the receive path's dispatch, and as a compact
 * list of the live ones, for the engine's pass. Changed on the control path under the device lock; read by the
 * engine under the same lock.
 */
final class QpTable {

    private final SoftQp[] bySlot = new SoftQp[SoftLimits.MAX_QP];
    private SoftQp[] live = new SoftQp[8];
    private int liveCount;

    /** Registers a new QP (control path, lock held). */
    void add(SoftQp qp) {
        bySlot[qp.qpn - SoftLimits.QPN_BASE] = qp;
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, live.length * 2);
        }
        live[liveCount++] = qp;
    }

    /** Removes a QP (control path, lock held). */
    void remove(SoftQp qp) {
        bySlot[qp.qpn - SoftLimits.QPN_BASE] = null;
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
        int slot = qpn - SoftLimits.QPN_BASE;
        return slot >= 0 && slot < bySlot.length ? bySlot[slot] : null;
    }

    /** How many QPs are live. */
    int count() {
        return liveCount;
    }

    /** The {@code i}th live QP, {@code 0 <= i < count()}; the order changes when a QP is removed. */
    SoftQp at(int i) {
        return live[i];
    }
}
