package io.jrdma.soft.cm;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmId;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.soft.SoftProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The soft CM's event channel: a bounded queue of the events of the ids created on it, in the order the CM
 * produced them. Closing it destroys its ids.
 */
final class SoftEventChannel implements EventChannel {

    /** Most events waiting in one channel; past it the CM counts the event lost (an application that never reads). */
    static final int CAPACITY = 65_536;

    private final CmRegistry registry;
    private final LinkedBlockingQueue<SoftCmEvent> queue = new LinkedBlockingQueue<>(CAPACITY);
    private final Set<SoftCmId> ids = new LinkedHashSet<>();
    private volatile boolean closed;
    private long lost;

    SoftEventChannel(CmRegistry registry) {
        this.registry = registry;
    }

    CmRegistry registry() {
        return registry;
    }

    @Override
    public String provider() {
        return SoftProvider.NAME;
    }

    @Override
    public CmId createId(PortSpace portSpace, Object userContext) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "the event channel is closed");
        }
        SoftCmId id = new SoftCmId(this, portSpace, userContext);
        synchronized (ids) {
            ids.add(id);
        }
        return id;
    }

    /** Adopts an id the CM created for an incoming request. */
    void adopt(SoftCmId id) {
        synchronized (ids) {
            ids.add(id);
        }
    }

    void forget(SoftCmId id) {
        synchronized (ids) {
            ids.remove(id);
        }
    }

    /** Queues an event (under the registry's lock); false when the channel is closed or full. */
    boolean deliver(SoftCmEvent event) {
        if (closed) {
            return false;
        }
        if (!queue.offer(event)) {
            lost++;
            return false;
        }
        return true;
    }

    @Override
    public CmEvent getEvent(Duration timeout) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "the event channel is closed");
        }
        try {
            while (true) {
                SoftCmEvent e = timeout.isZero() ? queue.poll()
                        : queue.poll(Math.min(timeout.toNanos(), TimeUnit.DAYS.toNanos(1)), TimeUnit.NANOSECONDS);
                if (e == null) {
                    return null;
                }
                if (e.retrieve()) {
                    return e;
                }
                // the event's id was destroyed while it waited: skip it
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Drops the queued events of {@code id} (it is being destroyed). */
    void dropEventsOf(SoftCmId id) {
        queue.removeIf(e -> e.id() == id);
    }

    long lost() {
        return lost;
    }

    @Override
    public void close() {
        List<SoftCmId> mine;
        synchronized (ids) {
            mine = new ArrayList<>(ids);
        }
        // connection ids before listeners, as the application would
        for (SoftCmId id : mine.reversed()) {
            id.destroy(false);
        }
        closed = true;
        queue.clear();
    }
}
