package io.jrdma.verbs;

/** What an ibv_modify_srq call changes (ibv_srq_attr_mask), with the libibverbs bits. */
public enum SrqAttrMask {
    /** IBV_SRQ_MAX_WR: resize the queue. */
    MAX_WR(1),
    /** IBV_SRQ_LIMIT: set and arm the limit. */
    LIMIT(2);

    private final int bit;

    SrqAttrMask(int bit) {
        this.bit = bit;
    }

    /** The libibverbs bit. */
    public int bit() {
        return bit;
    }
}
