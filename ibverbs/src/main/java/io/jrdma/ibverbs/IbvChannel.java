package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * A completion channel (struct ibv_comp_channel). Its fd is non-blocking: {@link #awaitEvent} tries
 * ibv_get_cq_event and, while that says EAGAIN, sleeps in poll(2) on the fd until the deadline; no thread spins.
 */
final class IbvChannel implements CompletionChannel {

    private static final int EAGAIN = 11;

    final IbvContext context;
    final MemorySegment ptr;
    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment out; // struct ibv_cq *cq, then void *cq_context
    private int users;
    volatile boolean closed;

    IbvChannel(IbvContext context, MemorySegment ptr, int fd) {
        this.context = context;
        this.ptr = ptr;
        this.fd = fd;
        this.out = arena.allocate(16, 8);
    }

    /** One more CQ on this channel (context lock held). */
    void retain() {
        users++;
    }

    /** One CQ fewer (context lock held). */
    void release() {
        users--;
    }

    @Override
    public CompletionQueue awaitEvent(Duration timeout) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        while (true) {
            long cqPtr;
            long id;
            synchronized (this) {
                if (closed) {
                    throw new VerbsException(Errno.EINVAL, "completion channel is destroyed");
                }
                LibIbverbs.Result r = LibIbverbs.call(context.lib.getCqEvent, ptr, out, out.asSlice(8));
                if (r.value() != 0 && r.errno() != EAGAIN) {
                    throw Errors.of(r.errno(), "ibv_get_cq_event");
                }
                cqPtr = r.value() == 0 ? out.get(JAVA_LONG, 0) : 0;
                id = out.get(JAVA_LONG, 8);
            }
            if (cqPtr != 0) {
                return event(cqPtr, id); // outside this channel's lock: close() takes the context's, then it
            }
            long leftNs = deadline - System.nanoTime();
            if (leftNs <= 0) {
                return null;
            }
            Libc.pollIn(fd, IbvContext.pollMillis(leftNs));
        }
    }

    /** The CQ an event named: the cq_context libibverbs returns is the CQ's id in its context. */
    private IbvCq event(long cqPtr, long id) {
        IbvCq cq;
        synchronized (context) {
            cq = context.cqs.get(id);
        }
        if (cq == null || cq.ptr.address() != cqPtr) {
            throw SelfCheck.mismatch("ibv_get_cq_event returned cq 0x" + Long.toHexString(cqPtr)
                    + " with cq_context " + id + ", which is no CQ of this context");
        }
        cq.eventReceived();
        return cq;
    }

    @Override
    public void close() {
        synchronized (context) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                if (users > 0) {
                    throw new VerbsException(Errno.EBUSY, "completion channel still has " + users + " CQ(s)");
                }
                LibIbverbs.Result r = LibIbverbs.call(context.lib.destroyCompChannel, ptr);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_destroy_comp_channel");
                }
                closed = true;
                arena.close();
                context.channelClosed();
            }
        }
    }
}
