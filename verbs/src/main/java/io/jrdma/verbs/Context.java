package io.jrdma.verbs;

import java.time.Duration;

/** An open device (ibv_context): the root of every other verbs resource. */
public interface Context extends AutoCloseable {

    /** The device this context was opened on. */
    Device device();

    /** The device's capabilities and limits (ibv_query_device). */
    DeviceAttr queryDevice();

    /** A port's attributes (ibv_query_port); ports count from 1. */
    PortAttr queryPort(int port);

    /** One entry of a port's GID table (ibv_query_gid). */
    Gid queryGid(int port, int index);

    /** Allocates a protection domain (ibv_alloc_pd). */
    ProtectionDomain allocPd();

    /** Creates a completion channel (ibv_create_comp_channel). */
    CompletionChannel createCompletionChannel();

    /** Creates a completion queue of at least {@code cqe} entries (ibv_create_cq), optionally with a channel. */
    CompletionQueue createCq(int cqe, CompletionChannel channel);

    /** Creates a completion queue with no channel. */
    default CompletionQueue createCq(int cqe) {
        return createCq(cqe, null);
    }

    /**
     * Takes the oldest asynchronous event (ibv_get_async_event), waiting up to {@code timeout} for one. Events are
     * kept in a bounded queue; when it is full the newest are dropped and counted by the provider.
     *
     * @return the event, or null on timeout
     */
    AsyncEvent awaitAsyncEvent(Duration timeout);

    /** Takes the oldest asynchronous event without waiting, or null when there is none. */
    default AsyncEvent pollAsyncEvent() {
        return awaitAsyncEvent(Duration.ZERO);
    }

    /**
     * Drives the device's progress once on the calling thread (receive, transmit, timers) when the context runs
     * without its own engine thread; a no-op otherwise.
     *
     * @return the amount of work done, 0 when idle
     */
    int progress();

    /**
     * Whether this context makes progress only inside its caller's calls (posts, polls, {@link #progress()}, waits on
     * its completion channels): then a thread that blocks on anything else, such as its own socket, must call
     * {@code progress()} meanwhile, or its peers' requests go unanswered and their retries run out. False when the
     * device has a thread of its own that takes over (or is hardware).
     */
    default boolean needsProgress() {
        return false;
    }

    /** Closes the device (ibv_close_device); EBUSY while a PD, CQ or channel is still open. */
    @Override
    void close();
}
