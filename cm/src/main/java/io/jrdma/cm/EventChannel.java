package io.jrdma.cm;

import java.time.Duration;

/**
 * A connection manager event channel (struct rdma_event_channel): where the events of the {@link CmId}s created on
 * it arrive, in order. One thread at a time reads events; ids may be used from any thread.
 *
 * <p>{@link #create()} picks the CM provider the way {@link io.jrdma.verbs.Verbs} picks devices: the native one
 * (librdmacm) when the host has RDMA devices, else the soft one; {@code jrdma.provider} / {@code JRDMA_PROVIDER}
 * keep one provider.
 */
public interface EventChannel extends AutoCloseable {

    /** Opens an event channel on the first CM provider that has devices (rdma_create_event_channel). */
    static EventChannel create() {
        return RdmaCm.provider(null).createEventChannel();
    }

    /** Opens an event channel on the named CM provider ({@code soft}, {@code ibverbs}). */
    static EventChannel create(String provider) {
        return RdmaCm.provider(provider).createEventChannel();
    }

    /** The name of the provider whose CM this channel speaks to. */
    String provider();

    /** Creates a CM id on this channel (rdma_create_id); {@code userContext} may be null. */
    CmId createId(PortSpace portSpace, Object userContext);

    /** Waits up to {@code timeout} for the next event (rdma_get_cm_event); null when none came. */
    CmEvent getEvent(Duration timeout);

    /** The next event if one is waiting, else null, without blocking. */
    default CmEvent pollEvent() {
        return getEvent(Duration.ZERO);
    }

    /**
     * Closes the channel (rdma_destroy_event_channel): destroys the ids still on it (disconnecting their connections)
     * and drops their unacknowledged events.
     */
    @Override
    void close();
}
