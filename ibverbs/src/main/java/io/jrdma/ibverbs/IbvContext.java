package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.ContextStructs.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * An open device (struct ibv_context). At open it reads the provider's data-path function pointers from
 * {@code context->ops} (see {@link Ops}) and checks the struct against the device it came from. It counts its PDs,
 * CQs and channels so it cannot be closed under them (EBUSY, as the soft provider), and maps the native CQs, QPs and
 * SRQs that events name back to their Java objects ({@link Handles}).
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class IbvContext implements Context {

    private static final int EAGAIN = 11;

    final IbvDevice device;
    final LibIbverbs lib;
    final MemorySegment ptr;
    final MemorySegment pollCq;
    final MemorySegment reqNotifyCq;
    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment postSrqRecv;
    final MemorySegment allocMw;
    final MemorySegment bindMw;
    final MemorySegment deallocMw;
    private final int asyncFd;
    private final boolean borrowed;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment asyncEvent;
    final Handles<IbvCq> cqs = new Handles<>();
    final Handles<IbvQp> qps = new Handles<>();
    final Handles<IbvSrq> srqs = new Handles<>();
    private DeviceAttr attrs; // ibv_query_device's answer does not change: cached for the checks
    private int pdCount;
    private int cqCount;
    private int channelCount;
    private boolean closed;

    private IbvContext(IbvDevice device, MemorySegment ptr, boolean borrowed) {
        this.device = device;
        this.borrowed = borrowed;
        this.lib = device.lib;
        this.ptr = ptr;
        this.pollCq = ptr.get(ADDRESS, OPS_POLL_CQ);
        this.reqNotifyCq = ptr.get(ADDRESS, OPS_REQ_NOTIFY_CQ);
        this.postSend = ptr.get(ADDRESS, OPS_POST_SEND);
        this.postRecv = ptr.get(ADDRESS, OPS_POST_RECV);
        this.postSrqRecv = ptr.get(ADDRESS, OPS_POST_SRQ_RECV);
        this.allocMw = ptr.get(ADDRESS, OPS_ALLOC_MW);
        this.bindMw = ptr.get(ADDRESS, OPS_BIND_MW);
        this.deallocMw = ptr.get(ADDRESS, OPS_DEALLOC_MW);
        this.asyncFd = ptr.get(JAVA_INT, CONTEXT_ASYNC_FD);
        this.asyncEvent = SelfCheck.withCanary(arena, ASYNC_EVENT);
    }

    /** ibv_open_device, then the layout checks of the new context. */
    static IbvContext open(IbvDevice device) {
        LibIbverbs.Result r = LibIbverbs.call(device.lib.openDevice, device.ptr);
        if (r.isNull()) {
            VerbsException e = Errors.of(r.errno(), "ibv_open_device(" + device.name() + ")");
            if (e.errno() == Errno.EACCES || e.errno() == Errno.EPERM) {
                throw new VerbsException(e.errno(), e.reason() + " — check access to /dev/infiniband/uverbs*");
            }
            throw e;
        }
        MemorySegment ptr = r.pointer().reinterpret(CONTEXT.byteSize());
        try {
            return checked(device, ptr, false);
        } catch (RuntimeException e) {
            LibIbverbs.call(device.lib.closeDevice, ptr);
            throw e;
        }
    }

    /**
     * A context another library opened and owns ({@code ptr}: librdmacm's {@code rdma_cm_id.verbs}), after the
     * layout checks: usable like an opened one, but {@link #close()} leaves it open.
     */
    static IbvContext borrow(IbvDevice device, MemorySegment ptr) {
        return checked(device, ptr.reinterpret(CONTEXT.byteSize()), true);
    }

    private static IbvContext checked(IbvDevice device, MemorySegment ptr, boolean borrowed) {
        SelfCheck.pointer(ptr, CONTEXT_DEVICE, device.ptr, "ibv_context.device");
        SelfCheck.openFd(ptr.get(JAVA_INT, CONTEXT_CMD_FD), "ibv_context.cmd_fd");
        SelfCheck.openFd(ptr.get(JAVA_INT, CONTEXT_ASYNC_FD), "ibv_context.async_fd");
        IbvContext ctx = new IbvContext(device, ptr, borrowed);
        SelfCheck.function(ctx.pollCq, "ibv_context.ops.poll_cq");
        SelfCheck.function(ctx.reqNotifyCq, "ibv_context.ops.req_notify_cq");
        SelfCheck.function(ctx.postSend, "ibv_context.ops.post_send");
        SelfCheck.function(ctx.postRecv, "ibv_context.ops.post_recv");
        Libc.nonBlocking(ctx.asyncFd);
        return ctx;
    }

    @Override
    public Device device() {
        return device;
    }

    /** Throws EINVAL once the context is closed (caller holds the lock). */
    void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "device context is closed");
        }
    }

    @Override
    public DeviceAttr queryDevice() {
        MemorySegment a;
        try (Arena tmp = Arena.ofConfined()) {
            a = SelfCheck.withCanary(tmp, DEVICE_ATTR);
            synchronized (this) {
                checkOpen();
                LibIbverbs.Result r = LibIbverbs.call(lib.queryDevice, ptr, a);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_query_device");
                }
            }
            SelfCheck.canary(a, DEVICE_ATTR, "ibv_query_device");
            return new DeviceAttr(Structs.cString(a, DA_FW_VER, 64), Long.reverseBytes(a.get(JAVA_LONG, DA_NODE_GUID)),
                    Long.reverseBytes(a.get(JAVA_LONG, DA_SYS_IMAGE_GUID)), unsigned(a.get(JAVA_LONG, DA_MAX_MR_SIZE)),
                    a.get(JAVA_LONG, DA_PAGE_SIZE_CAP), a.get(JAVA_INT, DA_VENDOR_ID),
                    a.get(JAVA_INT, DA_VENDOR_PART_ID), a.get(JAVA_INT, DA_HW_VER), a.get(JAVA_INT, DA_MAX_QP),
                    a.get(JAVA_INT, DA_MAX_QP_WR), a.get(JAVA_INT, DA_DEVICE_CAP_FLAGS), a.get(JAVA_INT, DA_MAX_SGE),
                    a.get(JAVA_INT, DA_MAX_SGE_RD), a.get(JAVA_INT, DA_MAX_CQ), a.get(JAVA_INT, DA_MAX_CQE),
                    a.get(JAVA_INT, DA_MAX_MR), a.get(JAVA_INT, DA_MAX_PD), a.get(JAVA_INT, DA_MAX_QP_RD_ATOM),
                    a.get(JAVA_INT, DA_MAX_QP_INIT_RD_ATOM), a.get(JAVA_INT, DA_MAX_RES_RD_ATOM),
                    AtomicCap.of(a.get(JAVA_INT, DA_ATOMIC_CAP)), a.get(JAVA_INT, DA_MAX_MW),
                    a.get(JAVA_INT, DA_MAX_AH), a.get(JAVA_INT, DA_MAX_SRQ), a.get(JAVA_INT, DA_MAX_SRQ_WR),
                    a.get(JAVA_INT, DA_MAX_SRQ_SGE), Short.toUnsignedInt(a.get(JAVA_SHORT, DA_MAX_PKEYS)),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, DA_LOCAL_CA_ACK_DELAY)),
                    Byte.toUnsignedInt(a.get(JAVA_BYTE, DA_PHYS_PORT_CNT)), device.maxInlineData(this));
        }
    }

    /** The device's attributes, queried once (for {@link AttrChecks}). */
    synchronized DeviceAttr attrs() {
        if (attrs == null) {
            attrs = queryDevice();
        }
        return attrs;
    }

    @Override
    public PortAttr queryPort(int port) {
        checkPort(port);
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment a = SelfCheck.withCanary(tmp, PORT_ATTR);
            synchronized (this) {
                checkOpen();
                LibIbverbs.Result r = LibIbverbs.call(lib.queryPort, ptr, (byte) port, a);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_query_port(port " + port + ")");
                }
            }
            SelfCheck.canary(a, PORT_ATTR, "ibv_query_port");
            return new PortAttr(PortState.of(a.get(JAVA_INT, PA_STATE)), Mtu.of(a.get(JAVA_INT, PA_MAX_MTU)),
                    Mtu.of(a.get(JAVA_INT, PA_ACTIVE_MTU)), a.get(JAVA_INT, PA_GID_TBL_LEN),
                    a.get(JAVA_INT, PA_PORT_CAP_FLAGS), Integer.toUnsignedLong(a.get(JAVA_INT, PA_MAX_MSG_SZ)),
                    Short.toUnsignedInt(a.get(JAVA_SHORT, PA_PKEY_TBL_LEN)),
                    Short.toUnsignedInt(a.get(JAVA_SHORT, PA_LID)), Short.toUnsignedInt(a.get(JAVA_SHORT, PA_SM_LID)),
                    u8(a, PA_LMC), u8(a, PA_MAX_VL_NUM), u8(a, PA_SM_SL), u8(a, PA_ACTIVE_WIDTH),
                    u8(a, PA_ACTIVE_SPEED), u8(a, PA_PHYS_STATE), LinkLayer.of(u8(a, PA_LINK_LAYER)));
        }
    }

    /** A uint64_t byte count as a Java long: saturated at Long.MAX_VALUE (kernel rxe reports ~0 for no limit). */
    private static long unsigned(long v) {
        return v < 0 ? Long.MAX_VALUE : v;
    }

    private static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }

    /** Ports are a uint8_t in libibverbs: anything outside 1..255 would wrap, so it is refused here. */
    private static void checkPort(int port) {
        if (port < 1 || port > 255) {
            throw new VerbsException(Errno.EINVAL, "port " + port + " does not exist (ports count from 1)");
        }
    }

    @Override
    public Gid queryGid(int port, int index) {
        checkPort(port);
        if (index < 0) {
            throw new VerbsException(Errno.EINVAL, "GID index " + index + " is negative");
        }
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment gid = SelfCheck.withCanary(tmp, Structs.GID.withName("ibv_gid"));
            synchronized (this) {
                checkOpen();
                LibIbverbs.Result r = LibIbverbs.call(lib.queryGid, ptr, (byte) port, index, gid);
                if (r.value() != 0) {
                    throw Errors.of(LibIbverbs.failure(r), "ibv_query_gid(port " + port + ", index " + index + ")");
                }
            }
            SelfCheck.canary(gid, Structs.GID.withName("ibv_gid"), "ibv_query_gid");
            return Gid.of(gid.asSlice(0, 16).toArray(JAVA_BYTE));
        }
    }

    @Override
    public synchronized ProtectionDomain allocPd() {
        checkOpen();
        LibIbverbs.Result r = LibIbverbs.call(lib.allocPd, ptr);
        if (r.isNull()) {
            throw Errors.of(r.errno(), "ibv_alloc_pd");
        }
        MemorySegment pd = r.pointer().reinterpret(PD.byteSize());
        SelfCheck.pointer(pd, PD_CONTEXT, ptr, "ibv_pd.context");
        pdCount++;
        return new IbvPd(this, pd);
    }

    /** A PD was deallocated. */
    synchronized void pdClosed() {
        pdCount--;
    }

    @Override
    public synchronized CompletionChannel createCompletionChannel() {
        checkOpen();
        LibIbverbs.Result r = LibIbverbs.call(lib.createCompChannel, ptr);
        if (r.isNull()) {
            throw Errors.of(r.errno(), "ibv_create_comp_channel");
        }
        MemorySegment ch = r.pointer().reinterpret(COMP_CHANNEL.byteSize());
        SelfCheck.pointer(ch, CHANNEL_CONTEXT, ptr, "ibv_comp_channel.context");
        int fd = ch.get(JAVA_INT, CHANNEL_FD);
        SelfCheck.openFd(fd, "ibv_comp_channel.fd");
        Libc.nonBlocking(fd);
        channelCount++;
        return new IbvChannel(this, ch, fd);
    }

    /** A channel was destroyed. */
    synchronized void channelClosed() {
        channelCount--;
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel) {
        if (cqe < 1) {
            throw new VerbsException(Errno.EINVAL, "cqe " + cqe + " must be at least 1");
        }
        synchronized (this) {
            checkOpen();
            IbvChannel ch = null;
            if (channel != null) {
                if (!(channel instanceof IbvChannel c) || c.context != this || c.closed) {
                    throw new VerbsException(Errno.EINVAL, "completion channel is not open on this context");
                }
                ch = c;
            }
            IbvCq cq = IbvCq.create(this, cqe, ch);
            cqCount++;
            return cq;
        }
    }

    /** A CQ was destroyed. */
    synchronized void cqClosed() {
        cqCount--;
    }

    @Override
    public AsyncEvent awaitAsyncEvent(Duration timeout) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        while (true) {
            synchronized (this) {
                checkOpen();
                LibIbverbs.Result r = LibIbverbs.call(lib.getAsyncEvent, ptr, asyncEvent);
                if (r.value() == 0) {
                    SelfCheck.canary(asyncEvent, ASYNC_EVENT, "ibv_get_async_event");
                    AsyncEvent e = toEvent();
                    LibIbverbs.call(lib.ackAsyncEvent, asyncEvent);
                    return e;
                }
                if (r.errno() != EAGAIN) {
                    throw Errors.of(r.errno(), "ibv_get_async_event");
                }
            }
            long leftNs = deadline - System.nanoTime();
            if (leftNs <= 0) {
                return null;
            }
            Libc.pollIn(asyncFd, pollMillis(leftNs));
        }
    }

    /** A poll(2) timeout for {@code leftNs}: rounded up, at most 100 ms so a closed context is noticed. */
    static int pollMillis(long leftNs) {
        return (int) Math.min(100, Math.max(1, (leftNs + 999_999) / 1_000_000));
    }

    /** The Java form of the event in {@link #asyncEvent}: the element's *_context field holds our id. */
    private AsyncEvent toEvent() {
        AsyncEventType type = AsyncEventType.of(asyncEvent.get(JAVA_INT, AE_EVENT_TYPE));
        MemorySegment element = asyncEvent.get(ADDRESS, AE_ELEMENT);
        return switch (type) {
            case CQ_ERR -> AsyncEvent.ofCq(type, cqs.get(element.reinterpret(CQ.byteSize())
                    .get(JAVA_LONG, CQ_CQ_CONTEXT)));
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                    QP_LAST_WQE_REACHED -> AsyncEvent.ofQp(type, qps.get(element.reinterpret(QpStructs.QP.byteSize())
                    .get(JAVA_LONG, QpStructs.QP_QP_CONTEXT)));
            case SRQ_ERR, SRQ_LIMIT_REACHED -> AsyncEvent.ofSrq(type, srqs.get(element
                    .reinterpret(QpStructs.SRQ.byteSize()).get(JAVA_LONG, QpStructs.SRQ_SRQ_CONTEXT)));
            case WQ_FATAL, DEVICE_FATAL -> AsyncEvent.ofPort(type, 0);
            default -> AsyncEvent.ofPort(type, asyncEvent.get(JAVA_INT, AE_ELEMENT));
        };
    }

    /** A hardware device makes progress on its own. */
    @Override
    public int progress() {
        return 0;
    }

    /** Closes the context (ibv_close_device); a borrowed one (the CM's) stays open: its owner closes it. */
    @Override
    public synchronized void close() {
        if (closed || borrowed) {
            return;
        }
        if (pdCount > 0 || cqCount > 0 || channelCount > 0) {
            throw new VerbsException(Errno.EBUSY, "device context still has " + pdCount + " PD(s), " + cqCount
                    + " CQ(s), " + channelCount + " channel(s)");
        }
        LibIbverbs.Result r = LibIbverbs.call(lib.closeDevice, ptr);
        if (r.value() != 0) {
            throw Errors.of(LibIbverbs.failure(r), "ibv_close_device");
        }
        closed = true;
        arena.close();
    }

    @Override
    public String toString() {
        return "IbvContext[" + device.name() + "]";
    }
}
