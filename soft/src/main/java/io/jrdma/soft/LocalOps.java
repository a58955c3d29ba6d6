package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;

/**
 * Memory window binds and invalidations, as kernel rxe does them (rxe_mw.c, rxe_req.c rxe_do_local_ops).
 *
 * <p>BIND_MW and LOCAL_INV are local operations: they send nothing, and the requester executes one when it reaches
 * it in send queue order (a LOCAL_INV only once everything before it has completed: IBA 10.6.5.1, rxe's local
 * invalidate fence). The WQE then holds its result in {@link SendWqe#localStatus()} and completes in order, as soon as
 * every WQE before it has completed. A failed one stops the send queue, completes with its error (MW_BIND_ERR for a
 * bind, LOC_QP_OP_ERR for a local invalidate, as rxe) and moves the QP to ERR, which flushes the rest.
 *
 * <p>Everything here runs in an engine pass, under the engine lock, so it is serialised with the responder's use of
 * windows and with deregistration and deallocation on the control path.
 */
final class LocalOps {

    /** Access bits a window may be given (rxe RXE_ACCESS_SUPPORTED_MW, less those this device has no use for). */
    private static final int SUPPORTED_MW_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
            | Access.REMOTE_ATOMIC | Access.MW_BIND;

    private LocalOps() {
    }

    /** Executes a BIND_MW or LOCAL_INV the requester reached; returns its completion status. */
    static WcStatus execute(SoftQp qp, SendWqe w) {
        if (w.opcode == WrOpcode.BIND_MW) {
            SoftMw mw = w.mw;
            if (!canBind(qp, w, mw)) {
                mw.userKey(mw.key); // the window keeps its old rkey; libibverbs leaves undoing ibv_mw.rkey to the user
                return WcStatus.MW_BIND_ERR;
            }
            bind(qp, w, mw);
            return WcStatus.SUCCESS;
        }
        return invalidate(qp, w.invalidateRkey) ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR;
    }

    /** rxe_check_bind_mw, plus the MR's PD (which ibv_bind_mw checks before posting, EPERM). */
    private static boolean canBind(SoftQp qp, SendWqe w, SoftMw mw) {
        if (mw.closed || (w.bindAccess & ~SUPPORTED_MW_ACCESS) != 0) {
            return false;
        }
        if (mw.type == MwType.TYPE_2) {
            // o10-37.2.30: only a free window; C10-72: the QP's PD; o10-37.2.40: a zero-length bind cannot unbind
            if (mw.state != SoftMw.FREE || qp.pd != mw.pd || w.bindMr == null || w.bindLength == 0) {
                return false;
            }
        }
        if (w.bindLength == 0) {
            return true; // type 1 unbind: the region, if any, is not looked at (rxe)
        }
        SoftMr mr = w.bindMr;
        if (mr == null || !mr.valid() || mr.pd != mw.pd) {
            return false;
        }
        if (!mr.allows(Access.MW_BIND)) {
            return false; // C10-73
        }
        if ((w.bindAccess & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && !mr.allows(Access.LOCAL_WRITE)) {
            return false; // C10-74
        }
        return mr.covers(w.bindAddr, w.bindLength); // C10-75
    }

    /** rxe_do_bind_mw: the consumer's key byte, the range, the rights, the region and (type 2) the QP. */
    private static void bind(SoftQp qp, SendWqe w, SoftMw mw) {
        mw.bind(w.bindRkey, w.bindMr, w.bindAddr, w.bindLength, w.bindAccess, qp);
    }

    /**
     * Invalidates {@code rkey} for LOCAL_INV or an incoming SEND with Invalidate (rxe_invalidate_mw); false when it
     * may not be. Only a bound type 2 window of the QP's PD can be invalidated (o10-37.2.26: never a type 1 window).
     * An MR's rkey cannot either: rxe invalidates only fast-registration MRs, which this device does not have.
     */
    static boolean invalidate(SoftQp qp, int rkey) {
        SoftMw mw = qp.context.mrs.lookupMw(rkey);
        if (mw == null || mw.type != MwType.TYPE_2 || mw.state != SoftMw.VALID || mw.pd != qp.pd) {
            return false;
        }
        mw.invalidate();
        return true;
    }

    /**
     * Completes the executed local operations at the head of the send queue, in order: they have nothing to wait
     * for once everything before them has completed. A failed one completes with its error and moves the QP to
     * ERR. Called after every retirement and after the requester executes one.
     */
    static void retireExecuted(SoftQp qp) {
        while (qp.sqConsumer != qp.sqProducer && qp.state != QpState.ERR) {
            SendWqe h = qp.sqAt(qp.sqConsumer);
            WcStatus status = h.localStatus();
            if (!h.started() || status == null) {
                return;
            }
            boolean complete = status != WcStatus.SUCCESS || h.signaled || qp.sqSigAll;
            long wrId = h.wrId;
            WcOpcode op = h.opcode.completionOpcode();
            qp.freeSendSlot(); // the slot is free before the CQE is visible, as in rxe
            if (complete) {
                qp.sendCompletions.of(wrId, status, op).push();
            }
            if (status != WcStatus.SUCCESS) {
                qp.enterError();
                return;
            }
        }
    }
}
