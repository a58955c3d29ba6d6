package io.jrdma.cm;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The blocking layer's reader of one event channel: whoever waits (a connect, an accept, a close) reads the channel
 * under the pump's lock and routes every event — to the waiting connection's {@link CmConnection.Status}, or, for
 * CONNECT_REQUEST, to a queue bounded by the listener's backlog (a request beyond it is rejected) — so several
 * connections can share their listener's channel and no event is lost or left unacknowledged. A DISCONNECTED is
 * answered at once ({@link CmId#disconnect()} sends the DREP), so a peer closing its side does not wait for this
 * side's application.
 */
final class EventPump {

    private final EventChannel channel;
    private final Map<CmId, CmConnection.Status> statuses = new HashMap<>();
    private final ArrayDeque<CmEvent> requests = new ArrayDeque<>();
    private final int backlog;

    EventPump(EventChannel channel, int backlog) {
        this.channel = channel;
        this.backlog = backlog;
    }

    EventChannel channel() {
        return channel;
    }

    synchronized void track(CmId id, CmConnection.Status status) {
        statuses.put(id, status);
    }

    synchronized void untrack(CmId id) {
        statuses.remove(id);
    }

    /** The oldest pending CONNECT_REQUEST (unacknowledged: the caller acks it), or null. */
    synchronized CmEvent nextRequest() {
        return requests.poll();
    }

    /**
     * Reads and routes events until {@code done} holds or {@code timeout} passes.
     *
     * @return whether {@code done} held
     */
    synchronized boolean pumpUntil(BooleanSupplier done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            CmEvent ev = channel.getEvent(Duration.ofNanos(Math.max(0, Math.min(left, 50_000_000L))));
            if (ev != null) {
                route(ev); // what is pending is read even with no time left
            } else if (left <= 0) {
                return false;
            }
        }
        return true;
    }

    private void route(CmEvent ev) {
        if (ev.type() == CmEventType.CONNECT_REQUEST) {
            if (requests.size() < backlog) {
                requests.add(ev);
                return;
            }
            try {
                ev.id().reject(null);
            } finally {
                ev.ack();
                ev.id().close();
            }
            return;
        }
        try {
            CmConnection.Status s = statuses.get(ev.id());
            if (s != null) {
                s.record(ev);
            }
            if (ev.type() == CmEventType.DISCONNECTED) {
                answerDisconnect(ev.id());
            }
        } finally {
            ev.ack();
        }
    }

    /**
     * Answers a peer's DREQ with a DREP (rdma_disconnect after DISCONNECTED, as rping does): the kernel's CM sends
     * none by itself, so the peer's disconnect would otherwise wait out its DREQ timeout. After our own DREQ the
     * call fails (nothing left to end), which is fine.
     */
    private static void answerDisconnect(CmId id) {
        try {
            id.disconnect();
        } catch (VerbsException e) {
            // this side disconnected first, or the id is gone
        }
    }

    /** Drops the pending requests (rejecting them) when the listener closes. */
    synchronized void rejectPending() {
        CmEvent ev;
        while ((ev = requests.poll()) != null) {
            try {
                ev.id().reject(null);
            } catch (VerbsException e) {
                // the peer may be gone already; the id is destroyed below either way
            } finally {
                ev.ack();
                ev.id().close();
            }
        }
    }

    static VerbsException failure(String step, CmConnection.Status s) {
        CmEventType t = s.lastError();
        if (t == null) {
            return new VerbsException(Errno.ETIMEDOUT, step + " timed out");
        }
        Errno errno = switch (t) {
            case REJECTED -> Errno.ECONNREFUSED;
            case UNREACHABLE -> Errno.EHOSTUNREACH;
            case ADDR_ERROR -> Errno.EADDRNOTAVAIL;
            case ROUTE_ERROR -> Errno.ENETUNREACH;
            case DISCONNECTED -> Errno.ECONNRESET;
            default -> Errno.EIO;
        };
        return new VerbsException(errno, step + " failed: " + t.eventName() + ", status " + s.lastStatus());
    }
}
