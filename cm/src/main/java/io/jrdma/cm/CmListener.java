package io.jrdma.cm;

import io.jrdma.verbs.VerbsException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A listening CM id for the common case: {@link #listen} on an address and port, then {@link #accept} connections,
 * each a {@link CmConnection} with its own PD, CQ and QP. Requests beyond the backlog are rejected; closing the
 * listener rejects the pending ones. Accepted connections share the listener's event channel, so close them
 * before the listener.
 */
public final class CmListener implements AutoCloseable {

    private final EventPump pump;
    private final CmId id;
    private final CmOptions options;

    private CmListener(EventPump pump, CmId id, CmOptions options) {
        this.pump = pump;
        this.id = id;
        this.options = options;
    }

    /** Binds {@code address} (0.0.0.0: every device; port 0: a free port) and listens with {@code backlog}. */
    public static CmListener listen(InetSocketAddress address, int backlog, CmOptions options) {
        if (backlog < 1) {
            throw new IllegalArgumentException("backlog " + backlog + " < 1");
        }
        EventChannel ch = EventChannel.create();
        try {
            CmId id = ch.createId(options.portSpace(), null);
            id.bindAddr(address);
            id.listen(backlog);
            return new CmListener(new EventPump(ch, backlog), id, options);
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** The bound address (with the port chosen when 0 was asked). */
    public InetSocketAddress localAddress() {
        return id.localAddress();
    }

    /**
     * Waits up to {@code timeout} for a connection request and accepts it: creates its PD, CQ and QP, sends the
     * REP and waits for the RTU.
     *
     * @return the connection, or null when no request came in time
     * @throws VerbsException when the accepted peer goes away before the connection is established
     */
    public CmConnection accept(Duration timeout) {
        CmEvent[] got = new CmEvent[1];
        pump.pumpUntil(() -> (got[0] = pump.nextRequest()) != null, timeout);
        CmEvent request = got[0];
        if (request == null) {
            return null;
        }
        try {
            return CmConnection.accept(pump, request, options);
        } finally {
            request.ack();
        }
    }

    /** Stops listening: rejects pending requests, destroys the id and the channel. */
    @Override
    public void close() {
        try {
            pump.rejectPending();
            id.close();
        } finally {
            pump.channel().close();
        }
    }
}
