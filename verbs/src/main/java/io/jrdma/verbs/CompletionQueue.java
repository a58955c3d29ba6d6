package io.jrdma.verbs;

/**
 * A completion queue (ibv_cq): where finished work requests report their outcome.
 *
 * <p>One consumer thread polls a CQ; the device is its only producer. {@link #poll} fills caller-owned,
 * reusable {@link WorkCompletion} objects and allocates nothing.
 */
public interface CompletionQueue extends AutoCloseable {

    /** The number of completions this CQ holds (ibv_cq.cqe); at least what was asked for. */
    int capacity();

    /**
     * Moves up to {@code wcs.length} completions into {@code wcs}, oldest first (ibv_poll_cq). On a provider
     * without its own engine thread this also drives the device's progress.
     *
     * @return how many entries of {@code wcs} were filled, 0 when the CQ is empty
     * @throws VerbsException EIO after a CQ overrun (the CQ is in error, as ibv_poll_cq reports)
     */
    default int poll(WorkCompletion[] wcs) {
        return poll(wcs, wcs.length);
    }

    /** As {@link #poll(WorkCompletion[])} with at most {@code max} entries. */
    int poll(WorkCompletion[] wcs, int max);

    /**
     * Arms the CQ to raise one event on its completion channel (ibv_req_notify_cq) for the next completion, or
     * with {@code solicitedOnly} for the next solicited receive or error completion.
     *
     * @throws VerbsException EINVAL when the CQ has no completion channel
     */
    void requestNotify(boolean solicitedOnly);

    /** Acknowledges {@code n} events taken from the channel for this CQ (ibv_ack_cq_events). */
    void ackEvents(int n);

    /** The channel this CQ reports events to, or null. */
    CompletionChannel channel();

    /** Destroys the CQ (ibv_destroy_cq); EBUSY while a QP still uses it. */
    @Override
    void close();
}
