package io.jrdma.verbs;

/**
 * What to create a queue pair with (ibv_qp_init_attr): its type, its completion queues and its queue sizes.
 * Mutable and reusable.
 */
public final class QpInitAttr {

    private QpType qpType = QpType.RC;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private final QpCap cap = new QpCap();
    private boolean sqSigAll;
    private SharedReceiveQueue srq;

    /** An RC QP with no CQs yet, all sizes 0 and sqSigAll off. */
    public QpInitAttr() {
    }

    /** The transport service (ibv_qp_init_attr.qp_type); RC initially. */
    public QpType qpType() {
        return qpType;
    }

    /** Sets the transport service (qp_type); returns this. */
    public QpInitAttr qpType(QpType qpType) {
        this.qpType = qpType;
        return this;
    }

    /** The CQ for send completions (ibv_qp_init_attr.send_cq). */
    public CompletionQueue sendCq() {
        return sendCq;
    }

    /** Sets the CQ for send completions (send_cq); returns this. */
    public QpInitAttr sendCq(CompletionQueue sendCq) {
        this.sendCq = sendCq;
        return this;
    }

    /** The CQ for receive completions (ibv_qp_init_attr.recv_cq). */
    public CompletionQueue recvCq() {
        return recvCq;
    }

    /** Sets the CQ for receive completions (recv_cq); returns this. */
    public QpInitAttr recvCq(CompletionQueue recvCq) {
        this.recvCq = recvCq;
        return this;
    }

    /** The queue sizes asked for (ibv_qp_init_attr.cap): this object's own instance, changed in place. */
    public QpCap cap() {
        return cap;
    }

    /** Copies {@code cap} into this object's queue sizes (cap); returns this. */
    public QpInitAttr cap(QpCap cap) {
        this.cap.copyFrom(cap);
        return this;
    }

    /**
     * Whether every send request completes with a work completion (ibv_qp_init_attr.sq_sig_all); when false only
     * requests with {@link SendFlags#SIGNALED} do.
     */
    public boolean sqSigAll() {
        return sqSigAll;
    }

    /** Sets whether every send request completes with a work completion (sq_sig_all); returns this. */
    public QpInitAttr sqSigAll(boolean sqSigAll) {
        this.sqSigAll = sqSigAll;
        return this;
    }

    /** The shared receive queue the QP takes receive requests from, or null for its own (ibv_qp_init_attr.srq). */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /** Sets the shared receive queue (srq); returns this. */
    public QpInitAttr srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    /** Copies every field of {@code other} (the CQs by reference); returns this. */
    public QpInitAttr copyFrom(QpInitAttr other) {
        qpType = other.qpType;
        sendCq = other.sendCq;
        recvCq = other.recvCq;
        cap.copyFrom(other.cap);
        sqSigAll = other.sqSigAll;
        srq = other.srq;
        return this;
    }

    @Override
    public String toString() {
        return "QpInitAttr{qpType=" + qpType + ", " + cap + ", sqSigAll=" + sqSigAll + '}';
    }
}
