package io.jrdma.tools.rping;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.tools.ToolSession;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * rping over the connection manager, doing what librdmacm's rping does on the wire so either side interoperates
 * with the real one. Per ping: the client SENDs the address, rkey and size of its source buffer (a 16-byte
 * {@code rping_rdma_info}, big-endian); the server RDMA READs it, SENDs a go-ahead, the client SENDs its sink
 * buffer's, the server RDMA WRITEs the data back (up to its NUL) and SENDs a go-ahead. The client then compares
 * (-V) and prints (-v) the data. Connection: responder resources 1, initiator depth 1, retry and RNR retry 7; the
 * server listens with backlog 3 and serves one connection.
 *
 * <p>rping runs a CM thread and a CQ thread that post a semaphore; this runs both on the caller's thread: a wait
 * ({@link #await}) takes CM events and completions, in order, until one "posts" ({@link RpingState}). A CM error
 * event ends the run with status 255, as rping's {@code exit(-1)} from its CM thread.
 */
final class Rping implements ToolSession {

    /** Status rping exits with when its CM thread sees an error event ({@code exit(-1)}). */
    static final int CM_ERROR_STATUS = 255;
    private static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    private static final Duration SLICE = Duration.ofMillis(50);
    /**
     * How long a disconnect waits for DISCONNECTED. The CM resends an unanswered DREQ only after its response
     * timeout (about 6 s with the kernel's settings), and destroying the id ends the resending, so the wait covers
     * several tries: a DREQ lost on the way must not leave the peer waiting for a disconnect that never comes.
     */
    private static final Duration DISCONNECT_WAIT = Duration.ofSeconds(30);

    private final RpingOptions o;
    private final PrintStream out;
    private final PrintStream err;
    private EventChannel channel;
    private CmId listenId;
    private CmId connId;
    private RpingBuffers bufs;
    private RpingState state = RpingState.IDLE;
    private int posts;
    private final WorkCompletion[] wcs = {new WorkCompletion()};

    private Rping(RpingOptions o, PrintStream out, PrintStream err) {
        this.o = o;
        this.out = out;
        this.err = err;
    }

    /** Runs rping with {@code args}; returns its exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        RpingOptions o;
        try {
            o = RpingOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("rping: " + e.getMessage());
            out.println(RpingOptions.usage());
            return 22; // EINVAL, as rping returns it
        }
        if (o.help) {
            out.println(RpingOptions.usage());
            return 0;
        }
        return ToolSession.execute("rping", new Rping(o, out, err), out, err);
    }

    @Override
    public int run() throws Exception {
        channel = EventChannel.create();
        try {
            return o.server == 1 ? runServer() : runClient();
        } catch (CmErrorExit e) {
            return CM_ERROR_STATUS;
        }
    }

    private int runServer() throws Exception {
        listenId = channel.createId(PortSpace.TCP, null);
        InetAddress bind = o.address == null ? InetAddress.getByName("0.0.0.0") : o.address;
        listenId.bindAddr(new InetSocketAddress(bind, o.port));
        debug("rdma_bind_addr successful");
        debug("rdma_listen");
        listenId.listen(3);
        await();
        if (state != RpingState.CONNECT_REQUEST) {
            err.println("wait for CONNECT_REQUEST state " + state.code());
            return 1;
        }
        bufs = RpingBuffers.setUp(connId, o.size, false);
        bufs.postRecv();
        connId.accept(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
        debug("accepting client connection request");
        await();
        if (state == RpingState.ERROR) {
            err.println("wait for CONNECTED state " + state.code());
            return 1;
        }
        int ret = serve();
        if (ret != 0) {
            err.println("rping server failed: " + ret);
        }
        disconnect();
        return ret == 0 ? 0 : 1;
    }

    /** rping_test_server: READ the client's source, go-ahead, WRITE to its sink, go-ahead; until DISCONNECTED. */
    private int serve() throws TimeoutException {
        while (true) {
            await();
            if (state != RpingState.RDMA_READ_ADV) {
                return stop("wait for RDMA_READ_ADV state ");
            }
            debug("server received sink adv");
            bufs.postRead();
            debug("server posted rdma read req ");
            await();
            if (state != RpingState.RDMA_READ_COMPLETE) {
                return stop("wait for RDMA_READ_COMPLETE state ");
            }
            debug("server received read complete");
            if (o.verbose) {
                out.println("server ping data: " + bufs.rdmaString());
            }
            bufs.postGoAhead();
            debug("server posted go ahead");
            await();
            if (state != RpingState.RDMA_WRITE_ADV) {
                return stop("wait for RDMA_WRITE_ADV state ");
            }
            debug("server received sink adv");
            bufs.postWriteEcho();
            await();
            if (state != RpingState.RDMA_WRITE_COMPLETE) {
                return stop("wait for RDMA_WRITE_COMPLETE state ");
            }
            debug("server rdma write complete ");
            bufs.postGoAhead();
            debug("server posted go ahead");
        }
    }

    private int runClient() throws Exception {
        if (o.address == null) {
            throw new IllegalArgumentException("the client needs the server's address (-a)");
        }
        connId = channel.createId(PortSpace.TCP, null);
        InetSocketAddress src = o.source == null ? null : new InetSocketAddress(o.source, 0);
        connId.resolveAddr(src, new InetSocketAddress(o.address, o.port), RESOLVE_TIMEOUT);
        await();
        if (state != RpingState.ROUTE_RESOLVED) {
            err.println("waiting for addr/route resolution state " + state.code());
            return 1;
        }
        debug("rdma_resolve_addr - rdma_resolve_route successful");
        bufs = RpingBuffers.setUp(connId, o.size, true);
        bufs.postRecv();
        connId.connect(new ConnParam().responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7));
        await();
        if (state != RpingState.CONNECTED) {
            err.println("wait for CONNECTED state " + state.code());
            return 1;
        }
        debug("rdma_connect successful");
        int ret = ping();
        if (ret != 0) {
            err.println("rping client failed: " + ret);
        }
        disconnect();
        return ret == 0 ? 0 : 1;
    }

    /** rping_test_client: {@code -C} pings (forever without it). */
    private int ping() throws TimeoutException {
        for (int ping = 0; o.count == 0 || ping < o.count; ping++) {
            state = RpingState.RDMA_READ_ADV;
            bufs.fillStart(ping);
            bufs.postAdvertise(true);
            await();
            if (state != RpingState.RDMA_WRITE_ADV) {
                return stop("wait for RDMA_WRITE_ADV state ");
            }
            bufs.postAdvertise(false);
            await();
            if (state != RpingState.RDMA_WRITE_COMPLETE) {
                return stop("wait for RDMA_WRITE_COMPLETE state ");
            }
            if (o.validate && !bufs.echoMatches()) {
                err.println("data mismatch!");
                return -1;
            }
            if (o.verbose) {
                out.println("ping data: " + bufs.rdmaString());
            }
        }
        return 0;
    }

    private int stop(String message) {
        if (state == RpingState.DISCONNECTED) {
            return 0;
        }
        err.println(message + state.code());
        return -1;
    }

    /**
     * Disconnects and waits (bounded by {@link #DISCONNECT_WAIT} and {@code --timeout}) for the DISCONNECTED event,
     * so the DREQ/DREP exchange completes: the CM reports it on the DREP, on the peer's DREQ, or when its DREQ
     * retries run out.
     */
    private void disconnect() throws TimeoutException {
        CmId id = connId;
        if (id == null) {
            return;
        }
        if (state != RpingState.DISCONNECTED) {
            id.disconnect();
            long wait = o.timeoutMs == 0 ? DISCONNECT_WAIT.toNanos()
                    : Math.min(DISCONNECT_WAIT.toNanos(), o.timeoutMs * 1_000_000);
            long deadline = System.nanoTime() + wait;
            while (state != RpingState.DISCONNECTED && state != RpingState.ERROR && System.nanoTime() < deadline) {
                step(SLICE);
            }
        } else {
            id.disconnect(); // answers the peer's DREQ (DREP), as rping_disconnect after its DISCONNECTED
        }
    }

    /** sem_wait: handles CM events and completions until one of them posts. */
    private void await() throws TimeoutException {
        long deadline = o.timeoutMs == 0 ? Long.MAX_VALUE : System.nanoTime() + o.timeoutMs * 1_000_000;
        while (posts == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("no progress within --timeout (state " + state + ")");
            }
            step(SLICE);
        }
        posts--;
    }

    /** One slice of rping's two threads: pending CM events, then completions (waiting up to {@code wait}). */
    private void step(Duration wait) {
        CmEvent ev;
        while ((ev = channel.pollEvent()) != null) {
            try {
                onCmEvent(ev);
            } finally {
                ev.ack();
            }
        }
        if (bufs == null) {
            CmEvent next = channel.getEvent(wait);
            if (next != null) {
                try {
                    onCmEvent(next);
                } finally {
                    next.ack();
                }
            }
            return;
        }
        CompletionQueue cq = bufs.awaitCq(wait);
        if (cq != null) {
            drainCq(cq);
        }
    }

    /** rping_cma_event_handler. */
    private void onCmEvent(CmEvent ev) {
        CmEventType t = ev.type();
        debug("cma_event type " + t.eventName() + " cma_id " + (ev.id() == listenId || ev.id() == connId
                && o.server == 0 ? "(parent)" : "(child)"));
        switch (t) {
            case ADDR_RESOLVED -> {
                state = RpingState.ADDR_RESOLVED;
                ev.id().resolveRoute(RESOLVE_TIMEOUT);
            }
            case ROUTE_RESOLVED -> post(RpingState.ROUTE_RESOLVED);
            case CONNECT_REQUEST -> {
                if (connId != null) {
                    ev.id().reject(null); // rping without -P serves one connection
                    return;
                }
                connId = ev.id();
                post(RpingState.CONNECT_REQUEST);
            }
            case CONNECT_RESPONSE -> post(RpingState.CONNECTED);
            case ESTABLISHED -> post(o.server == 1 ? state : RpingState.CONNECTED);
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                err.println("cma event " + t.eventName() + ", error " + ev.status());
                throw new CmErrorExit();
            }
            case DISCONNECTED -> {
                err.println((o.server == 1 ? "server" : "client") + " DISCONNECT EVENT...");
                post(RpingState.DISCONNECTED);
            }
            case DEVICE_REMOVAL -> {
                err.println("cma detected device removal!!!!");
                throw new CmErrorExit();
            }
            default -> err.println("unhandled event: " + t.eventName() + ", ignoring");
        }
    }

    /** rping_cq_event_handler: flushed completions are skipped; any other error ends the run. */
    private void drainCq(CompletionQueue cq) {
        while (cq.poll(wcs, 1) == 1) {
            WorkCompletion wc = wcs[0];
            if (wc.status() != WcStatus.SUCCESS) {
                if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                    continue;
                }
                err.println("cq completion failed status " + wc.status().code());
                post(RpingState.ERROR);
                return;
            }
            WcOpcode op = wc.opcode();
            switch (op) {
                case SEND -> debug("send completion");
                case RDMA_WRITE -> post(RpingState.RDMA_WRITE_COMPLETE);
                case RDMA_READ -> post(RpingState.RDMA_READ_COMPLETE);
                case RECV -> onRecv(wc);
                default -> {
                    debug("unknown!!!!! completion");
                    post(RpingState.ERROR);
                }
            }
        }
    }

    private void onRecv(WorkCompletion wc) {
        if (wc.byteLen() != RpingBuffers.INFO_BYTES) {
            err.println("Received bogus data, size " + wc.byteLen());
            post(RpingState.ERROR);
            return;
        }
        if (o.server == 1) {
            bufs.takeRemote();
            debug(String.format("Received rkey %x addr %x len %d from peer", bufs.remoteRkey(), bufs.remoteAddr(),
                    bufs.remoteLen()));
            state = state.ordinal() <= RpingState.CONNECTED.ordinal() || state == RpingState.RDMA_WRITE_COMPLETE
                    ? RpingState.RDMA_READ_ADV : RpingState.RDMA_WRITE_ADV;
        } else {
            state = state == RpingState.RDMA_READ_ADV ? RpingState.RDMA_WRITE_ADV : RpingState.RDMA_WRITE_COMPLETE;
        }
        bufs.postRecv();
        posts++;
    }

    private void post(RpingState s) {
        state = s;
        posts++;
    }

    private void debug(String line) {
        if (o.debug) {
            out.println(line);
        }
    }

    @Override
    public void close() {
        if (bufs != null) {
            bufs.close();
        }
        if (connId != null) {
            connId.close();
        }
        if (listenId != null) {
            listenId.close();
        }
        if (channel != null) {
            channel.close();
        }
    }

    /** rping's exit(-1) from its CM thread on an error event. */
    private static final class CmErrorExit extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CmErrorExit() {
            super(null, null, false, false);
        }
    }
}
