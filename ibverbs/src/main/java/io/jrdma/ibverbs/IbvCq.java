package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.ContextStructs.CQ;
import static io.jrdma.ibverbs.ContextStructs.CQ_CHANNEL;
import static io.jrdma.ibverbs.ContextStructs.CQ_CONTEXT;
import static io.jrdma.ibverbs.ContextStructs.CQ_CQE;
import static io.jrdma.ibverbs.ContextStructs.CQ_CQ_CONTEXT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A completion queue (struct ibv_cq). {@link #poll} calls the provider's poll_cq from the ops table into a native
 * ibv_wc array made once per CQ, then fills the caller's {@link WorkCompletion}s from it ({@link WcReader}):
 * nothing is allocated per completion.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class IbvCq implements CompletionQueue {

    /** Completions taken per poll_cq call. */
    static final int BATCH = 32;

    final IbvContext context;
    final MemorySegment ptr;
    final IbvChannel channel;
    private final long id;
    private final int capacity;
    private final MemorySegment pollFn;
    private final MemorySegment notifyFn;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private int users;
    private int eventsReceived;
    private int eventsAcked;
    private boolean closed;

    private IbvCq(IbvContext context, MemorySegment ptr, IbvChannel channel, long id) {
        this.context = context;
        this.ptr = ptr;
        this.channel = channel;
        this.id = id;
        this.capacity = ptr.get(JAVA_INT, CQ_CQE);
        this.pollFn = context.pollCq;
        this.notifyFn = context.reqNotifyCq;
        this.wcs = arena.allocate(WrStructs.WC.byteSize() * BATCH, 8);
    }

    /** ibv_create_cq with the CQ's id as cq_context (context lock held). */
    static IbvCq create(IbvContext context, int cqe, IbvChannel channel) {
        long id = context.cqs.reserve();
        MemorySegment chPtr = channel == null ? MemorySegment.NULL : channel.ptr;
        LibIbverbs.Result r = LibIbverbs.call(context.lib.createCq, context.ptr, cqe, MemorySegment.ofAddress(id),
                chPtr, 0);
        if (r.isNull()) {
            context.cqs.remove(id);
            throw Errors.of(r.errno(), "ibv_create_cq(cqe " + cqe + ")");
        }
        MemorySegment cq = r.pointer().reinterpret(CQ.byteSize());
        SelfCheck.pointer(cq, CQ_CONTEXT, context.ptr, "ibv_cq.context");
        SelfCheck.pointer(cq, CQ_CHANNEL, chPtr, "ibv_cq.channel");
        SelfCheck.pointer(cq, CQ_CQ_CONTEXT, MemorySegment.ofAddress(id), "ibv_cq.cq_context");
        if (cq.get(JAVA_INT, CQ_CQE) < cqe) {
            throw SelfCheck.mismatch("ibv_cq.cqe is " + cq.get(JAVA_INT, CQ_CQE) + ", less than the " + cqe
                    + " asked for");
        }
        IbvCq c = new IbvCq(context, cq, channel, id);
        context.cqs.set(id, c);
        if (channel != null) {
            channel.retain();
        }
        return c;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] out, int max) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "completion queue is destroyed");
        }
        int want = Math.min(max, out.length);
        if (want <= BATCH) {
            // one call, as the tools' polls make it: a loop would test "got fewer than asked", whose other way a
            // rehearsal over the device's own loopback never took, and trap the compiled poll in the run
            int got = pollOnce(want);
            for (int i = 0; i < got; i++) {
                WcReader.read(wcs, i, out[i]);
            }
            return got;
        }
        int done = 0;
        while (done < want) {
            int n = Math.min(want - done, BATCH);
            int got = pollOnce(n);
            for (int i = 0; i < got; i++) {
                WcReader.read(wcs, i, out[done + i]);
            }
            done += got;
            if (got < n) {
                break;
            }
        }
        return done;
    }

    /** One {@code ibv_poll_cq} of at most {@code n} (at most {@link #BATCH}) into the native array. */
    private int pollOnce(int n) {
        int got;
        try {
            got = (int) Ops.POLL_CQ.invokeExact(pollFn, ptr, n, wcs);
        } catch (Throwable t) {
            throw new IllegalStateException("poll_cq failed", t);
        }
        if (got < 0) {
            throw new VerbsException(Errno.EIO, "ibv_poll_cq failed (" + got
                    + "): the CQ is in error, for example after an overrun");
        }
        return got;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) {
            throw new VerbsException(Errno.EINVAL, "this CQ has no completion channel to notify");
        }
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "completion queue is destroyed");
        }
        int rc;
        try {
            rc = (int) Ops.REQ_NOTIFY_CQ.invokeExact(notifyFn, ptr, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw new IllegalStateException("req_notify_cq failed", t);
        }
        if (rc != 0) {
            throw Errors.of(Math.abs(rc), "ibv_req_notify_cq");
        }
    }

    /** The channel handed out one more event of this CQ. */
    synchronized void eventReceived() {
        eventsReceived++;
    }

    @Override
    public void ackEvents(int n) {
        synchronized (this) {
            if (n < 0 || eventsAcked + n > eventsReceived) {
                throw new VerbsException(Errno.EINVAL, "acknowledging " + n + " events but only "
                        + (eventsReceived - eventsAcked) + " are unacknowledged");
            }
            eventsAcked += n;
        }
        if (n > 0) {
            LibIbverbs.call(context.lib.ackCqEvents, ptr, n);
        }
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    /** One more QP on this CQ (context lock held). */
    void retain() {
        users++;
    }

    /** One QP fewer (context lock held). */
    void release() {
        users--;
    }

    /** Whether the CQ is destroyed (context lock held). */
    boolean closed() {
        return closed;
    }

    /**
     * ibv_destroy_cq. It waits for every event taken from the channel to be acknowledged, so events taken but not
     * acknowledged are acknowledged here first: closing never hangs.
     */
    @Override
    public void close() {
        synchronized (context) {
            if (closed) {
                return;
            }
            if (users > 0) {
                throw new VerbsException(Errno.EBUSY, "completion queue is still used by " + users + " QP(s)");
            }
            int unacked;
            synchronized (this) {
                unacked = eventsReceived - eventsAcked;
                eventsAcked = eventsReceived;
            }
            if (unacked > 0) {
                LibIbverbs.call(context.lib.ackCqEvents, ptr, unacked);
            }
            LibIbverbs.Result r = LibIbverbs.call(context.lib.destroyCq, ptr);
            if (r.value() != 0) {
                throw Errors.of(LibIbverbs.failure(r), "ibv_destroy_cq");
            }
            closed = true;
            context.cqs.remove(id);
            if (channel != null) {
                channel.release();
            }
            arena.close();
            context.cqClosed();
        }
    }
}
