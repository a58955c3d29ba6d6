package io.jrdma.verbs;

import java.util.Set;

/**
 * A queue pair (ibv_qp): a send queue and a receive queue bound to one transport service (RC, UC, UD).
 *
 * <p>One thread posts to a QP's send queue and one to its receive queue (they may be the same thread). Posting
 * copies the work requests, so the caller may reuse its {@link SendWr}/{@link RecvWr}/{@link Sge} objects at
 * once; the memory they name must stay registered until the request completes.
 */
public interface QueuePair extends AutoCloseable {

    /** The QP number (ibv_qp.qp_num). */
    int qpNum();

    /** The transport service type. */
    QpType type();

    /** The current state, as the device sees it (it may move to ERR on its own after a fatal error). */
    QpState state();

    /** The protection domain. */
    ProtectionDomain pd();

    /** The queue sizes actually granted at creation (at least those asked for). */
    QpCap cap();

    /**
     * Changes the QP's attributes and state (ibv_modify_qp). The mask says which fields of {@code attr} count;
     * the rules of the IBTA state machine ({@link QpTransitions}) are checked first.
     *
     * @throws VerbsException EINVAL naming the illegal transition, the missing required attribute or the bad value
     */
    void modify(QpAttr attr, Set<QpAttrMask> mask);

    /** Returns the QP's current attributes (ibv_query_qp) into {@code attr}, which is returned. */
    QpAttr query(QpAttr attr);

    /**
     * Posts a chain of send work requests (ibv_post_send), following {@link SendWr#next()}.
     *
     * @throws VerbsException with {@link VerbsException#badWrIndex()} naming the first bad request (wrong QP state,
     *                        too many SGEs, inline too large, send queue full, an lkey not of this PD, bad
     *                        alignment); that request and the ones after it are not posted, the earlier ones are
     */
    void postSend(SendWr wr);

    /** Posts a chain of receive work requests (ibv_post_recv); errors as for {@link #postSend}. */
    void postRecv(RecvWr wr);

    /**
     * Binds (or, with a zero-length {@link MwBindInfo}, unbinds) a type 1 memory window (ibv_bind_mw): posts a bind
     * request on the send queue, which completes in order with {@link WcOpcode#BIND_MW} if signaled.
     *
     * <p>As in libibverbs, the window's {@link MemoryWindow#rkey()} is the new rkey from the moment the bind is
     * posted. Whether the MR allows MW_BIND, the range lies in the MR and the MR allows the rights (REMOTE_WRITE and
     * REMOTE_ATOMIC windows need LOCAL_WRITE on the MR) is checked when the bind runs: a failure completes it with
     * {@link WcStatus#MW_BIND_ERR} and moves the QP to ERR.
     *
     * @return the window's new rkey (the old one with its low 8 bits incremented), valid once the bind has run
     * @throws VerbsException EINVAL for a type 2 window, or a range without an MR; EPERM for an MR of another PD than
     *                        the window's; as {@link #postSend} otherwise (QP state, send queue full)
     */
    int bindMw(MemoryWindow mw, MwBind bind);

    /** Destroys the QP (ibv_destroy_qp); outstanding requests are dropped without completions, as in libibverbs. */
    @Override
    void close();
}
