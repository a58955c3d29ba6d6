package io.jrdma.tools.perftest;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * perftest's "comm" connection when {@code -R} is given ("Data ex. method : rdma_cm", which -R implies): instead of
 * the TCP socket, one RC QP connected with rdma_cm to the same port number, in the TCP port space, over which every
 * item of the {@link Exchange} travels as one SEND of exactly its size into a 56-byte receive buffer (sizeof struct
 * pingpong_dest). As perftest 4.5 (rdma_client_connect / rdma_server_connect): the client resolves the address and
 * route (2000 ms each), creates the QP (send and receive queues of depth 1, separate CQs), posts its one receive and
 * connects with responder resources and initiator depth 0, flow control off, retry count 7 and RNR retry count 7;
 * the server binds the wildcard address, listens with a backlog of 1, accepts the first request with the same
 * parameters (its receive posted first) and destroys its listening id, without waiting for ESTABLISHED. Each side
 * re-posts its receive after every message it reads; as with TCP, the client writes first.
 *
 * <p>jrdma addition: a client whose request is rejected because nobody listens yet (reason 8) tries again until
 * {@code --timeout} (perftest gives up at once).
 */
final class CmComm implements Closeable {

    /** sizeof(struct pingpong_dest): the receive buffer, and the largest item. */
    static final int BUF_BYTES = 56;
    private static final Duration RESOLVE = Duration.ofMillis(2000);
    private static final int RETRY_COUNT = 7;
    private static final int REJECT_NO_LISTENER = 8;
    private static final int RETRY_PAUSE_MS = 100;
    private static final int SPIN_POLLS = 20_000;

    private final EventChannel channel;
    private final long timeoutMs;
    private final Arena arena = Arena.ofShared();
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private CmId id;
    private Context context;
    private ProtectionDomain pd;
    private MemoryRegion mr;
    private MemorySegment buf;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair qp;
    /** Run while a read waits (the test's device, in invoker mode); null: nothing. */
    private Runnable whileWaiting;

    private CmComm(long timeoutMs) {
        this.channel = EventChannel.create();
        this.timeoutMs = timeoutMs;
    }

    /** The client's side: connects to {@code host:port}. */
    static CmComm connect(String host, int port, long timeoutMs) throws IOException {
        CmComm c = new CmComm(timeoutMs);
        try {
            c.clientConnect(new InetSocketAddress(InetAddress.getByName(host), port));
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The server's side: accepts one connection on {@code port}. */
    static CmComm accept(int port, long timeoutMs) throws IOException {
        CmComm c = new CmComm(timeoutMs);
        try {
            c.serverAccept(port);
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void clientConnect(InetSocketAddress server) throws IOException {
        long deadline = deadline();
        while (true) {
            id = channel.createId(PortSpace.TCP, null);
            id.resolveAddr(null, server, RESOLVE);
            expect(CmEventType.ADDR_RESOLVED, deadline).ack();
            id.resolveRoute(RESOLVE);
            expect(CmEventType.ROUTE_RESOLVED, deadline).ack();
            createResources();
            postRecv();
            id.connect(connParam());
            CmEvent ev = next(deadline);
            CmEventType type = ev.type();
            int status = ev.status();
            ev.ack();
            if (type == CmEventType.ESTABLISHED) {
                return;
            }
            if (type != CmEventType.REJECTED || status != REJECT_NO_LISTENER || timeoutMs == 0
                    || System.nanoTime() - deadline > 0) {
                throw new IOException("Unexpected CM event bl blka " + type.code() + " (" + type.eventName()
                        + ", status " + status + ")");
            }
            destroyResources();
            id.close();
            id = null;
            LockSupport.parkNanos(RETRY_PAUSE_MS * 1_000_000L);
        }
    }

    private void serverAccept(int port) throws IOException {
        long deadline = deadline();
        try (CmId listen = channel.createId(PortSpace.TCP, null)) {
            listen.bindAddr(new InetSocketAddress(InetAddress.getByAddress(new byte[4]), port));
            listen.listen(1);
            CmEvent ev = next(deadline);
            if (ev.type() != CmEventType.CONNECT_REQUEST) {
                ev.ack();
                throw new IOException("bad event waiting for connect request " + ev.type().code());
            }
            id = ev.id();
            createResources();
            postRecv();
            id.accept(connParam());
            ev.ack();
        }
    }

    /** rdma_conn_param as perftest fills it for the comm QP (a SEND test: no READ resources). */
    private static ConnParam connParam() {
        return new ConnParam().responderResources(0).initiatorDepth(0).flowControl(false).retryCount(RETRY_COUNT)
                .rnrRetryCount(RETRY_COUNT);
    }

    private void createResources() {
        context = id.context();
        pd = context.allocPd();
        buf = arena.allocate(Perftest.PAGE, Perftest.PAGE);
        mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
        sendCq = context.createCq(1, null);
        recvCq = context.createCq(1, null);
        qp = id.createQp(pd, new QpInitAttr().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq)
                .cap(new QpCap(1, 1, 1, 1, 0)));
    }

    private void destroyResources() {
        if (qp != null) {
            id.destroyQp();
            qp = null;
        }
        io.jrdma.examples.Resources.closeAll((AutoCloseable[]) null, sendCq, recvCq, mr, pd);
        sendCq = null;
        recvCq = null;
        mr = null;
        pd = null;
    }

    private void postRecv() {
        qp.postRecv(new RecvWr().wrId(0).sg(new Sge(buf.address(), BUF_BYTES, mr.lkey())));
    }

    /** Makes every wait also run {@code progress} (a device in invoker mode is driven only by calls into it). */
    void driveWhileWaiting(Runnable progress) {
        whileWaiting = progress;
    }

    /** rdma_write_data: {@code b} as one signaled SEND, waiting for its completion. */
    void write(byte[] b) throws IOException {
        MemorySegment.copy(b, 0, buf, ValueLayout.JAVA_BYTE, 0, b.length);
        qp.postSend(new SendWr().wrId(0).opcode(WrOpcode.SEND).sg(new Sge(buf.address(), b.length, mr.lkey()))
                .signaled(true));
        WorkCompletion c = await(sendCq, "the send to the peer");
        if (c.status() != WcStatus.SUCCESS) {
            throw new IOException(" Bad wc status " + c.status().code());
        }
    }

    /** rdma_read_data: the next message's first {@code n} bytes; the receive is posted again. */
    byte[] read(int n, String what) throws IOException {
        WorkCompletion c = await(recvCq, what);
        if (c.status() != WcStatus.SUCCESS) {
            throw new IOException("Bad wc status -- " + c.status().code() + " -- 0 : Couldn't read " + what);
        }
        byte[] b = new byte[n];
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, b, 0, n);
        postRecv();
        return b;
    }

    private WorkCompletion await(CompletionQueue cq, String what) throws IOException {
        long deadline = deadline();
        for (long polls = 0; ; polls++) {
            if (context.needsProgress()) {
                context.progress();
            }
            if (cq.poll(wc, 1) == 1) {
                return wc[0];
            }
            if (whileWaiting != null) {
                whileWaiting.run();
            }
            if (polls > SPIN_POLLS) {
                if (timeoutMs > 0 && System.nanoTime() - deadline > 0) {
                    throw new SocketTimeoutException("timed out waiting for " + what);
                }
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private CmEvent expect(CmEventType type, long deadline) throws IOException {
        CmEvent ev = next(deadline);
        if (ev.type() != type) {
            ev.ack();
            throw new IOException("unexpected CM event " + ev.type().code() + " (" + ev.type().eventName()
                    + ", status " + ev.status() + ")");
        }
        return ev;
    }

    private CmEvent next(long deadline) throws IOException {
        long left = timeoutMs == 0 ? Duration.ofDays(1).toMillis() : (deadline - System.nanoTime()) / 1_000_000;
        CmEvent ev = left <= 0 ? null : channel.getEvent(Duration.ofMillis(left));
        if (ev == null) {
            throw new SocketTimeoutException("timed out waiting for a CM event");
        }
        return ev;
    }

    private long deadline() {
        return System.nanoTime() + (timeoutMs == 0 ? Long.MAX_VALUE / 4 : timeoutMs * 1_000_000L);
    }

    @Override
    public void close() {
        try {
            if (id != null) {
                destroyResources();
                id.close();
            }
        } finally {
            channel.close();
            arena.close();
        }
    }
}
