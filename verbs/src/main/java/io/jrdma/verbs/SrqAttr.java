package io.jrdma.verbs;

/** Shared receive queue attributes (ibv_srq_attr, also ibv_srq_init_attr.attr). Mutable and reusable. */
public final class SrqAttr {

    private int maxWr;
    private int maxSge;
    private int srqLimit;

    /** All zero. */
    public SrqAttr() {
    }

    /** The number of receive requests the queue holds (ibv_srq_attr.max_wr). */
    public int maxWr() {
        return maxWr;
    }

    /** Sets max_wr; returns this. */
    public SrqAttr maxWr(int maxWr) {
        this.maxWr = maxWr;
        return this;
    }

    /** The scatter entries per receive request (ibv_srq_attr.max_sge). */
    public int maxSge() {
        return maxSge;
    }

    /** Sets max_sge; returns this. */
    public SrqAttr maxSge(int maxSge) {
        this.maxSge = maxSge;
        return this;
    }

    /** The low-water mark that raises SRQ_LIMIT_REACHED; 0 = disarmed (ibv_srq_attr.srq_limit). */
    public int srqLimit() {
        return srqLimit;
    }

    /** Sets srq_limit; returns this. */
    public SrqAttr srqLimit(int srqLimit) {
        this.srqLimit = srqLimit;
        return this;
    }

    @Override
    public String toString() {
        return "SrqAttr{maxWr=" + maxWr + ", maxSge=" + maxSge + ", srqLimit=" + srqLimit + '}';
    }
}
