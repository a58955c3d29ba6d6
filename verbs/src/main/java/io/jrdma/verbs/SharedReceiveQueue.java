package io.jrdma.verbs;

import java.util.Set;

/**
 * A shared receive queue (ibv_srq): one pool of receive requests that many QPs of the same PD consume from.
 *
 * <p>When the number of posted requests falls below {@link SrqAttr#srqLimit()} (armed when non-zero), the device
 * raises one {@link AsyncEventType#SRQ_LIMIT_REACHED} event and disarms the limit; {@link #modify} with
 * {@link SrqAttrMask#LIMIT} arms it again.
 */
public interface SharedReceiveQueue extends AutoCloseable {

    /** The protection domain. */
    ProtectionDomain pd();

    /** Posts a chain of receive requests (ibv_post_srq_recv); errors as for {@link QueuePair#postRecv}. */
    void postRecv(RecvWr wr);

    /**
     * Changes the queue (ibv_modify_srq): {@link SrqAttrMask#LIMIT} arms the limit event,
     * {@link SrqAttrMask#MAX_WR} resizes the queue (EINVAL if the device cannot, or below what is posted).
     */
    void modify(SrqAttr attr, Set<SrqAttrMask> mask);

    /** Returns the queue's attributes (ibv_query_srq) into {@code attr}, which is returned. */
    SrqAttr query(SrqAttr attr);

    /** Destroys the queue (ibv_destroy_srq); EBUSY while a QP still uses it. */
    @Override
    void close();
}
