package io.jrdma.verbs;

/**
 * A receive work request (ibv_recv_wr): buffers for one incoming send or RDMA write with immediate. Mutable and
 * reusable: posting copies it, so the same object may be changed and posted again at once.
 */
public final class RecvWr {

    private long wrId;
    private RecvWr next;
    private Sge[] sgList;
    private int numSge;

    /** An empty request: wrId 0, no next, no scatter entries. */
    public RecvWr() {
    }

    /** The caller's id, returned in the completion (ibv_recv_wr.wr_id). */
    public long wrId() {
        return wrId;
    }

    /** Sets the caller's id (ibv_recv_wr.wr_id); returns this. */
    public RecvWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** The next request of the chain, or null (ibv_recv_wr.next). */
    public RecvWr next() {
        return next;
    }

    /** Sets the next request of the chain (ibv_recv_wr.next); returns this. */
    public RecvWr next(RecvWr next) {
        this.next = next;
        return this;
    }

    /** The scatter list (ibv_recv_wr.sg_list); only the first {@link #numSge()} entries count. */
    public Sge[] sgList() {
        return sgList;
    }

    /** Sets the scatter list (ibv_recv_wr.sg_list), kept by reference; returns this. */
    public RecvWr sgList(Sge[] sgList) {
        this.sgList = sgList;
        return this;
    }

    /** How many entries of {@link #sgList()} count (ibv_recv_wr.num_sge). */
    public int numSge() {
        return numSge;
    }

    /** Sets how many entries of {@link #sgList()} count (ibv_recv_wr.num_sge); returns this. */
    public RecvWr numSge(int numSge) {
        this.numSge = numSge;
        return this;
    }

    /**
     * Uses {@code sges} as the scatter list, all of it; returns this. The array is kept by reference; pass a
     * prepared array (not a varargs list) to post without allocating.
     */
    public RecvWr sg(Sge... sges) {
        this.sgList = sges;
        this.numSge = sges.length;
        return this;
    }

    /** The sum of the lengths of the first {@link #numSge()} entries. */
    public long totalLength() {
        long sum = 0;
        for (int i = 0; i < numSge; i++) {
            sum += Integer.toUnsignedLong(sgList[i].length());
        }
        return sum;
    }

    /** Resets every field to its initial value; returns this. */
    public RecvWr reset() {
        wrId = 0;
        next = null;
        sgList = null;
        numSge = 0;
        return this;
    }

    @Override
    public String toString() {
        return "RecvWr{wrId=" + wrId + ", numSge=" + numSge + (next != null ? ", next}" : "}");
    }
}
