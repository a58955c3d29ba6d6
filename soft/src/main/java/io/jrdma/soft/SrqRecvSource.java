package io.jrdma.soft;

import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;

/**
 * A shared receive queue as one QP's {@link RecvSource}. As in rxe (get_srq_wqe), a message takes its WQE out of the
 * SRQ at its first packet into this QP's private copy, so several QPs can receive multi-packet messages from one
 * SRQ at the same time. A WQE the QP holds when it enters ERR is completed with WR_FLUSH_ERR on the QP's receive CQ
 * (every posted WQE completes exactly once); the WQEs still in the SRQ belong to the SRQ and are not flushed.
 */
final class SrqRecvSource implements RecvSource {

    private final SoftQp qp;
    private final SoftSrq srq;
    private final RecvWqe held;
    private boolean holding;

    SrqRecvSource(SoftQp qp, SoftSrq srq) {
        this.qp = qp;
        this.srq = srq;
        this.held = new RecvWqe(srq.maxSge);
    }

    @Override
    public boolean acquire() {
        if (!holding) {
            holding = srq.take(held);
        }
        return holding;
    }

    @Override
    public boolean hasCurrent() {
        return holding;
    }

    @Override
    public RecvWqe current() {
        return held;
    }

    @Override
    public void retire() {
        holding = false;
    }

    @Override
    public int flushTaken() {
        if (!holding) {
            return 0;
        }
        holding = false;
        qp.recvCompletions.of(held.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV).push();
        return 1;
    }

    @Override
    public boolean holdsTaken() {
        return holding;
    }

    @Override
    public void discard() {
        holding = false;
    }
}
