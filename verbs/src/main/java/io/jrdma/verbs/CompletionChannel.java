package io.jrdma.verbs;

import java.time.Duration;

/**
 * A completion channel (ibv_comp_channel): a wake-up source for armed completion queues, so a consumer can
 * block instead of busy-polling.
 */
public interface CompletionChannel extends AutoCloseable {

    /**
     * Blocks until an armed CQ of this channel has an event, or the timeout passes (ibv_get_cq_event with a
     * poll(2) timeout). The returned event must be acknowledged with {@link CompletionQueue#ackEvents}.
     *
     * @return the CQ that raised the event, or null on timeout
     */
    CompletionQueue awaitEvent(Duration timeout);

    /** Destroys the channel (ibv_destroy_comp_channel); EBUSY while a CQ still uses it. */
    @Override
    void close();
}
