package io.jrdma.soft;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.SrqAttrMask;
import io.jrdma.verbs.VerbsException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;

/**
 * A shared receive queue of the soft device (kernel rxe_srq.c, rdma-core's rxe post_srq_recv): a ring of
 * preallocated receive WQEs that any number of posting threads fill (serialised by a spin lock, as libibverbs' rxe
 * provider does) and the engine empties on behalf of every QP attached to it ({@link SrqRecvSource}).
 *
 * <p>The SRQ limit works as in rxe's get_srq_wqe: when a WQE is taken and fewer than {@code srq_limit} remain, one
 * {@link AsyncEventType#SRQ_LIMIT_REACHED} event is raised and the limit is disarmed (reads back as 0);
 * {@link #modify} with {@link SrqAttrMask#LIMIT} arms it again.
 */
final class SoftSrq implements SharedReceiveQueue {

    private static final VarHandle POST_LOCK;

    static {
        try {
            POST_LOCK = MethodHandles.lookup().findVarHandle(SoftSrq.class, "postLock", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final SoftContext context;
    final Engine engine;
    final SoftPd pd;
    final int maxSge;

    // --- ring: posters write under the post lock, the engine consumes under the engine lock; a resize holds both
    private RecvWqe[] ring;
    private int mask;
    int maxWr;
    volatile long producer;
    volatile long consumer;

    private int limit;         // 0 = disarmed; guarded by the engine lock
    final UseCount users = new UseCount();
    volatile boolean closed;
    @SuppressWarnings("unused") // accessed through POST_LOCK
    private volatile int postLock;

    SoftSrq(SoftContext context, SoftPd pd, int maxWr, int maxSge, int limit) {
        this.context = context;
        this.engine = context.engine;
        this.pd = pd;
        this.maxSge = maxSge;
        this.maxWr = maxWr;
        this.limit = limit;
        this.ring = newRing(maxWr, maxSge);
        this.mask = ring.length - 1;
    }

    private static RecvWqe[] newRing(int maxWr, int maxSge) {
        int size = Integer.highestOneBit(Math.max(1, maxWr) * 2 - 1);
        RecvWqe[] r = new RecvWqe[size];
        for (int i = 0; i < size; i++) {
            r[i] = new RecvWqe(maxSge);
        }
        return r;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    // ------------------------------------------------------------------------------------------------- posting

    @Override
    public void postRecv(RecvWr first) {
        lockPosting();
        try {
            PostChecks.postSrqRecv(this, first);
        } finally {
            unlockPosting();
        }
        engine.recvDoorbell();
    }

    /** The slot for ring index {@code index}; the post lock or the engine lock is held. */
    RecvWqe at(long index) {
        return ring[(int) index & mask];
    }

    private void lockPosting() {
        int spins = 0;
        while (!POST_LOCK.compareAndSet(this, 0, 1)) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield(); // the holder may have been descheduled
            }
        }
    }

    private void unlockPosting() {
        POST_LOCK.setRelease(this, 0);
    }

    /** Publishes the WQEs posted up to {@code producer} (a poster holding the post lock: a volatile write). */
    void publish(long producer) {
        this.producer = producer;
    }

    // ------------------------------------------------------------------------------------------------- engine side

    /**
     * Takes the oldest WQE into {@code into} (engine thread, engine lock held); false when the queue is empty. Raises
     * SRQ_LIMIT_REACHED and disarms the limit when fewer than {@code srq_limit} WQEs remain.
     */
    boolean take(RecvWqe into) {
        long c = consumer;
        long p = producer;
        if (c == p) {
            return false;
        }
        into.copyOf(at(c));
        consumer = c + 1;
        if (limit != 0 && p - (c + 1) < limit) {
            limit = 0;
            context.events.raise(AsyncEvent.ofSrq(AsyncEventType.SRQ_LIMIT_REACHED, this));
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------------- control

    @Override
    public void modify(SrqAttr attr, Set<SrqAttrMask> mask) {
        if (attr == null || mask == null) {
            throw new VerbsException(Errno.EINVAL, "modify_srq needs attributes and a mask");
        }
        context.lock.lock();
        try {
            lockPosting();
            try {
                if (closed) {
                    throw new VerbsException(Errno.EINVAL, "the SRQ is destroyed");
                }
                boolean resize = mask.contains(SrqAttrMask.MAX_WR);
                boolean arm = mask.contains(SrqAttrMask.LIMIT);
                int newMaxWr = maxWr;
                if (resize) {
                    newMaxWr = checkResize(attr.maxWr());
                }
                if (arm) {
                    checkLimit(attr.srqLimit(), newMaxWr);
                }
                if (resize) {
                    resize(newMaxWr);
                }
                if (arm) {
                    limit = attr.srqLimit();
                }
            } finally {
                unlockPosting();
            }
        } finally {
            context.lock.unlock();
        }
    }

    /** rxe_srq_chk_attr for IB_SRQ_MAX_WR, and rxe_queue_resize's refusal to drop posted WQEs. */
    private int checkResize(int newMaxWr) {
        if (newMaxWr <= 0 || newMaxWr > SoftLimits.MAX_SRQ_WR) {
            throw new VerbsException(Errno.EINVAL, "max_wr " + newMaxWr + " is out of range [1, "
                    + SoftLimits.MAX_SRQ_WR + "]");
        }
        if (limit != 0 && newMaxWr < limit) {
            throw new VerbsException(Errno.EINVAL, "max_wr " + newMaxWr + " is below the armed srq_limit " + limit);
        }
        long posted = producer - consumer;
        if (newMaxWr < posted) {
            throw new VerbsException(Errno.EINVAL, "max_wr " + newMaxWr + " cannot hold the " + posted
                    + " receive requests posted");
        }
        return newMaxWr;
    }

    /** rxe_srq_chk_attr for IB_SRQ_LIMIT: at most max_srq_wr and at most the queue's size. */
    static void checkLimit(int srqLimit, int maxWr) {
        if (srqLimit < 0 || srqLimit > SoftLimits.MAX_SRQ_WR) {
            throw new VerbsException(Errno.EINVAL, "srq_limit " + srqLimit + " is out of range [0, "
                    + SoftLimits.MAX_SRQ_WR + "]");
        }
        if (srqLimit > maxWr) {
            throw new VerbsException(Errno.EINVAL, "srq_limit " + srqLimit + " exceeds the SRQ's max_wr " + maxWr);
        }
    }

    /** Moves the posted WQEs into a ring for {@code newMaxWr} (both locks held, so nobody posts or takes). */
    private void resize(int newMaxWr) {
        if (Integer.highestOneBit(newMaxWr * 2 - 1) != ring.length) {
            RecvWqe[] next = newRing(newMaxWr, maxSge);
            int nextMask = next.length - 1;
            for (long i = consumer; i != producer; i++) {
                RecvWqe from = at(i);
                RecvWqe to = next[(int) i & nextMask];
                to.copyOf(from);
            }
            ring = next;
            mask = nextMask;
        }
        maxWr = newMaxWr;
    }

    @Override
    public SrqAttr query(SrqAttr attr) {
        context.lock.lock();
        try {
            if (closed) {
                throw new VerbsException(Errno.EINVAL, "the SRQ is destroyed");
            }
            return attr.maxWr(maxWr).maxSge(maxSge).srqLimit(limit);
        } finally {
            context.lock.unlock();
        }
    }

    @Override
    public void close() {
        context.destroySrq(this);
    }

    @Override
    public String toString() {
        return "SRQ[max_wr=" + maxWr + " max_sge=" + maxSge + " posted=" + (producer - consumer) + "]";
    }

    /** Destroyed (control path, device lock held): every later use of it fails. */
    void markClosed() {
        closed = true;
    }
}
