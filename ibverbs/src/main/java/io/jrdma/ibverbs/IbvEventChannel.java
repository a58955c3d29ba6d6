package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.CmStructs.CHANNEL_FD;
import static io.jrdma.ibverbs.CmStructs.EV_ID;
import static io.jrdma.ibverbs.CmStructs.EV_LISTEN_ID;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmId;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A librdmacm event channel (struct rdma_event_channel). Its fd is non-blocking: {@link #getEvent} tries
 * rdma_get_cm_event and, while that says EAGAIN, sleeps in poll(2) on the fd until the deadline; no thread spins.
 * It knows its ids by their native pointer (an event names the rdma_cm_id; a CONNECT_REQUEST brings a new one) and
 * the events not yet acknowledged, which an id's {@link IbvCmId#close()} acknowledges so rdma_destroy_id, which
 * waits for them, cannot hang.
 */
@SuppressWarnings("restricted") // this module binds libibverbs, librdmacm and libc: native access is its purpose
final class IbvEventChannel implements EventChannel {

    private static final int EAGAIN = 11;

    final LibRdmacm lib;
    private final MemorySegment ptr;
    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment out;
    private final Map<Long, IbvCmId> ids = new HashMap<>();
    private final List<IbvCmEvent> unacked = new ArrayList<>();
    private boolean closed;

    private IbvEventChannel(LibRdmacm lib, MemorySegment ptr, int fd) {
        this.lib = lib;
        this.ptr = ptr;
        this.fd = fd;
        this.out = arena.allocate(ADDRESS);
    }

    /** rdma_create_event_channel, its fd made non-blocking. */
    static IbvEventChannel create(LibRdmacm lib) {
        LibIbverbs.Result r = LibIbverbs.call(lib.createEventChannel);
        if (r.isNull()) {
            throw Errors.of(r.errno(), "rdma_create_event_channel");
        }
        MemorySegment ch = r.pointer().reinterpret(CmStructs.EVENT_CHANNEL.byteSize());
        int fd = ch.get(JAVA_INT, CHANNEL_FD);
        SelfCheck.openFd(fd, "rdma_event_channel.fd");
        Libc.nonBlocking(fd);
        return new IbvEventChannel(lib, ch, fd);
    }

    @Override
    public String provider() {
        return IbvProvider.NAME;
    }

    @Override
    public synchronized CmId createId(PortSpace portSpace, Object userContext) {
        checkOpen();
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment idOut = tmp.allocate(ADDRESS);
            LibIbverbs.Result r = LibIbverbs.call(lib.createId, ptr, idOut, MemorySegment.NULL, portSpace.code());
            if (r.value() != 0) {
                throw Errors.of(LibRdmacm.failure(r), "rdma_create_id(" + portSpace + ")");
            }
            return register(idOut.get(ADDRESS, 0), portSpace, userContext);
        }
    }

    private IbvCmId register(MemorySegment idPtr, PortSpace portSpace, Object userContext) {
        IbvCmId id = new IbvCmId(this, idPtr, portSpace, userContext);
        ids.put(idPtr.address(), id);
        return id;
    }

    @Override
    public CmEvent getEvent(Duration timeout) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        while (true) {
            synchronized (this) {
                checkOpen();
                LibIbverbs.Result r = LibIbverbs.call(lib.getCmEvent, ptr, out);
                if (r.value() == 0) {
                    return decode(out.get(ADDRESS, 0).reinterpret(CmStructs.CM_EVENT.byteSize()));
                }
                int errno = LibRdmacm.failure(r);
                if (errno != EAGAIN) {
                    throw Errors.of(errno, "rdma_get_cm_event");
                }
            }
            long leftNs = deadline - System.nanoTime();
            if (leftNs <= 0) {
                return null;
            }
            Libc.pollIn(fd, IbvContext.pollMillis(leftNs));
        }
    }

    /** The event at {@code ev}, its ids found by pointer (a CONNECT_REQUEST's new id registered) (lock held). */
    private IbvCmEvent decode(MemorySegment ev) {
        MemorySegment idPtr = ev.get(ADDRESS, EV_ID);
        long listenPtr = ev.get(ADDRESS, EV_LISTEN_ID).address();
        IbvCmId listen = listenPtr == 0 ? null : ids.get(listenPtr);
        IbvCmId id = ids.get(idPtr.address());
        if (id == null) { // a CONNECT_REQUEST's new id: its listener's port space and context, as librdmacm's
            id = register(idPtr, listen != null ? listen.portSpace()
                    : PortSpace.of(idPtr.reinterpret(CmStructs.CM_ID.byteSize()).get(JAVA_INT, CmStructs.ID_PS)),
                    listen != null ? listen.userContext() : null);
        }
        IbvCmEvent e;
        try {
            e = new IbvCmEvent(this, ev, id, listen);
        } catch (RuntimeException ex) {
            LibIbverbs.call(lib.ackCmEvent, ev);
            throw ex;
        }
        unacked.add(e);
        return e;
    }

    /** rdma_ack_cm_event for {@code e}, unless it was acknowledged already; returns whether it was not. */
    synchronized boolean ack(IbvCmEvent e) {
        if (!unacked.remove(e)) {
            return false;
        }
        LibIbverbs.Result r = LibIbverbs.call(lib.ackCmEvent, e.ptr);
        if (r.value() != 0) {
            throw Errors.of(LibRdmacm.failure(r), "rdma_ack_cm_event");
        }
        return true;
    }

    /** Forgets {@code id} before it is destroyed: acknowledges the events counted on it. */
    synchronized void forget(IbvCmId id) {
        for (IbvCmEvent e : List.copyOf(unacked)) {
            if (e.counted() == id) {
                ack(e);
            }
        }
        ids.remove(id.ptr.address());
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "the event channel is destroyed");
        }
    }

    /** Destroys the ids still on the channel (acknowledging their events), then rdma_destroy_event_channel. */
    @Override
    public void close() {
        List<IbvCmId> left;
        synchronized (this) {
            if (closed) {
                return;
            }
            left = new ArrayList<>(ids.values());
        }
        for (IbvCmId id : left) {
            id.close();
        }
        synchronized (this) {
            closed = true;
            for (IbvCmEvent e : List.copyOf(unacked)) {
                ack(e);
            }
            LibIbverbs.call(lib.destroyEventChannel, ptr);
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "IbvEventChannel[fd " + fd + "]";
    }
}
