package io.jrdma.soft;

/**
 * A QP's own receive queue as a {@link RecvSource}: the current WQE is the ring's oldest entry, which stays in the
 * ring (and is flushed with it) until the message that uses it completes.
 */
final class RqRecvSource implements RecvSource {

    private final SoftQp qp;

    RqRecvSource(SoftQp qp) {
        this.qp = qp;
    }

    @Override
    public boolean acquire() {
        return qp.rqConsumer != qp.rqProducer;
    }

    @Override
    public boolean hasCurrent() {
        return qp.rqConsumer != qp.rqProducer;
    }

    @Override
    public RecvWqe current() {
        return qp.rqAt(qp.rqConsumer);
    }

    @Override
    public void retire() {
        qp.freeRecvSlot();
    }
}
