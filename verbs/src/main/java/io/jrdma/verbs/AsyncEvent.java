package io.jrdma.verbs;

/**
 * An asynchronous event (ibv_async_event): what happened and the resource it happened to. Exactly one of
 * {@code qp}, {@code cq}, {@code srq} is set, or none for port and device events ({@code port} then names the
 * port).
 */
public record AsyncEvent(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq, int port) {

    /** An event about a QP. */
    public static AsyncEvent ofQp(AsyncEventType type, QueuePair qp) {
        return new AsyncEvent(type, qp, null, null, 0);
    }

    /** An event about a CQ. */
    public static AsyncEvent ofCq(AsyncEventType type, CompletionQueue cq) {
        return new AsyncEvent(type, null, cq, null, 0);
    }

    /** An event about an SRQ. */
    public static AsyncEvent ofSrq(AsyncEventType type, SharedReceiveQueue srq) {
        return new AsyncEvent(type, null, null, srq, 0);
    }

    /** An event about a port (or, with port 0, the device). */
    public static AsyncEvent ofPort(AsyncEventType type, int port) {
        return new AsyncEvent(type, null, null, null, port);
    }
}
