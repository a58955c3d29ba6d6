package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.CmStructs.ID_DST_ADDR;
import static io.jrdma.ibverbs.CmStructs.ID_PORT_NUM;
import static io.jrdma.ibverbs.CmStructs.ID_QP;
import static io.jrdma.ibverbs.CmStructs.ID_SRC_ADDR;
import static io.jrdma.ibverbs.CmStructs.ID_VERBS;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A librdmacm CM id (struct rdma_cm_id). Each method is the librdmacm call of the same name; -1 and errno become a
 * {@link VerbsException} with the mapped errno. Its device context is librdmacm's ({@link CmContexts}), its QP an
 * {@link IbvQp} made by rdma_create_qp, with the module's allocation-free data path.
 */
@SuppressWarnings("restricted") // this module binds libibverbs, librdmacm and libc: native access is its purpose
final class IbvCmId implements CmId {

    final MemorySegment ptr;
    private final IbvEventChannel channel;
    private final LibRdmacm lib;
    private final PortSpace portSpace;
    private final Object userContext;
    private IbvQp qp;
    private boolean closed;

    IbvCmId(IbvEventChannel channel, MemorySegment ptr, PortSpace portSpace, Object userContext) {
        this.channel = channel;
        this.lib = channel.lib;
        this.ptr = ptr.reinterpret(CmStructs.CM_ID.byteSize());
        this.portSpace = portSpace;
        this.userContext = userContext;
    }

    @Override
    public EventChannel channel() {
        return channel;
    }

    @Override
    public PortSpace portSpace() {
        return portSpace;
    }

    @Override
    public Object userContext() {
        return userContext;
    }

    @Override
    public synchronized IbvContext context() {
        checkOpen();
        MemorySegment verbs = ptr.get(ADDRESS, ID_VERBS);
        return verbs.address() == 0 ? null : CmContexts.of(verbs);
    }

    @Override
    public synchronized int portNum() {
        checkOpen();
        return Byte.toUnsignedInt(ptr.get(JAVA_BYTE, ID_PORT_NUM));
    }

    @Override
    public synchronized QueuePair qp() {
        return qp == null || qp.isClosed() ? null : qp;
    }

    @Override
    public synchronized InetSocketAddress localAddress() {
        checkOpen();
        InetSocketAddress a = CmCodec.sockaddr(ptr, ID_SRC_ADDR);
        return a != null ? a : new InetSocketAddress(InetAddress.ofLiteral("0.0.0.0"), 0);
    }

    @Override
    public synchronized InetSocketAddress peerAddress() {
        checkOpen();
        return CmCodec.sockaddr(ptr, ID_DST_ADDR);
    }

    @Override
    public void bindAddr(InetSocketAddress address) {
        try (Arena tmp = Arena.ofConfined()) {
            check(LibIbverbs.call(lib.bindAddr, open(), CmCodec.sockaddr(tmp, address)), "rdma_bind_addr(" + address
                    + ")");
        }
    }

    @Override
    public void resolveAddr(InetSocketAddress source, InetSocketAddress destination, Duration timeout) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment src = source == null ? MemorySegment.NULL : CmCodec.sockaddr(tmp, source);
            check(LibIbverbs.call(lib.resolveAddr, open(), src, CmCodec.sockaddr(tmp, destination),
                    millis(timeout)), "rdma_resolve_addr(" + destination + ")");
        }
    }

    @Override
    public void resolveRoute(Duration timeout) {
        check(LibIbverbs.call(lib.resolveRoute, open(), millis(timeout)), "rdma_resolve_route");
    }

    private static int millis(Duration timeout) {
        return Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE);
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        IbvContext ctx = context();
        if (ctx == null) {
            throw new VerbsException(Errno.EINVAL, "the CM id is not bound to a device yet (resolve or bind first)");
        }
        if (!(pd instanceof IbvPd p) || p.context != ctx) {
            throw new VerbsException(Errno.EINVAL, "the PD must be one of the CM id's device context (id.context())");
        }
        MemorySegment id = open();
        synchronized (ctx) {
            p.checkOpen();
            IbvQp q = IbvQp.create(p, attr, new IbvQp.Lifecycle() {
                @Override
                public LibIbverbs.Result create(MemorySegment init) {
                    LibIbverbs.Result r = LibIbverbs.call(lib.createQp, id, p.ptr, init);
                    if (r.value() != 0) {
                        return new LibIbverbs.Result(0, MemorySegment.NULL, LibRdmacm.failure(r));
                    }
                    MemorySegment made = id.get(ADDRESS, ID_QP);
                    return new LibIbverbs.Result(made.address(), made, 0);
                }

                @Override
                public int destroy(MemorySegment qpPtr) {
                    LibIbverbs.call(lib.destroyQp, id); // ibv_destroy_qp, then id->qp = NULL
                    return 0;
                }

                @Override
                public boolean startsInReset() {
                    return false;
                }
            });
            p.retain();
            synchronized (this) {
                qp = q;
            }
            return q;
        }
    }

    @Override
    public void destroyQp() {
        IbvQp q;
        synchronized (this) {
            checkOpen();
            q = qp;
            qp = null;
        }
        if (q == null) {
            throw new VerbsException(Errno.EINVAL, "the CM id has no QP");
        }
        q.close();
    }

    @Override
    public void listen(int backlog) {
        check(LibIbverbs.call(lib.listen, open(), backlog), "rdma_listen");
    }

    @Override
    public void connect(ConnParam param) {
        try (Arena tmp = Arena.ofConfined()) {
            check(LibIbverbs.call(lib.connect, open(), CmCodec.connParam(tmp, param)), "rdma_connect");
        }
    }

    @Override
    public void accept(ConnParam param) {
        try (Arena tmp = Arena.ofConfined()) {
            check(LibIbverbs.call(lib.accept, open(), CmCodec.connParam(tmp, param)), "rdma_accept");
        }
    }

    @Override
    public void reject(byte[] privateData) {
        try (Arena tmp = Arena.ofConfined()) {
            check(LibIbverbs.call(lib.reject, open(), CmCodec.privateData(tmp, privateData),
                    (byte) (privateData == null ? 0 : privateData.length)), "rdma_reject");
        }
    }

    @Override
    public void disconnect() {
        check(LibIbverbs.call(lib.disconnect, open()), "rdma_disconnect");
    }

    /** Destroys the QP if it is still there, acknowledges the id's events, then rdma_destroy_id. */
    @Override
    public void close() {
        IbvQp q;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            q = qp;
            qp = null;
        }
        if (q != null) {
            q.close();
        }
        channel.forget(this);
        check(LibIbverbs.call(lib.destroyId, ptr), "rdma_destroy_id");
    }

    private synchronized void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "the CM id is destroyed");
        }
    }

    private MemorySegment open() {
        checkOpen();
        return ptr;
    }

    private static void check(LibIbverbs.Result r, String what) {
        if (r.value() != 0) {
            throw Errors.of(LibRdmacm.failure(r), what);
        }
    }

    @Override
    public String toString() {
        return "IbvCmId[0x" + Long.toHexString(ptr.address()) + ", " + portSpace + "]";
    }
}
