package io.jrdma.tools.cmatose;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.UdParam;
import io.jrdma.tools.ToolSession;
import io.jrdma.tools.cmatose.CmatoseOptions.Tool;
import io.jrdma.verbs.PortAttr;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * librdmacm's ucmatose (RC, {@code -c} connections, messages both ways, then disconnects) and udaddy (UD over
 * SIDR: the client sends SEND_WITH_IMMs carrying its QP number, the server answers each to the address of the
 * first), with their event handling, message order and output, so either side interoperates with the real tool.
 * ucmatose's server sends first and disconnects; udaddy's client sends first. Exit status: the real tools'
 * {@code return status}, low 8 bits.
 */
final class Cmatose implements ToolSession {

    private static final Duration RESOLVE = Duration.ofMillis(2000);

    private final CmatoseOptions o;
    private final PrintStream out;
    private final String p;
    private final boolean ud;
    private EventChannel channel;
    private CmId listenId;
    private CmatoseNode[] nodes;
    private int connIndex;
    private int connectsLeft;
    private int disconnectsLeft;

    private Cmatose(CmatoseOptions o, PrintStream out) {
        this.o = o;
        this.out = out;
        this.p = o.tool.prefix + ": ";
        this.ud = o.tool == Tool.UDADDY;
    }

    /** Runs ucmatose or udaddy with {@code args}; returns the exit status. */
    static int run(Tool tool, String[] args, PrintStream out, PrintStream err) {
        CmatoseOptions o;
        try {
            o = CmatoseOptions.parse(tool, args);
        } catch (IllegalArgumentException e) {
            err.println(tool.prefix + ": " + e.getMessage());
            out.println(CmatoseOptions.parse(tool, new String[0]).usage());
            return 1;
        }
        return ToolSession.execute(tool == Tool.UCMATOSE ? "ucmatose" : "udaddy", new Cmatose(o, out), out, err);
    }

    @Override
    public int run() throws Exception {
        connectsLeft = o.connections;
        channel = EventChannel.create();
        nodes = new CmatoseNode[o.connections];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = new CmatoseNode(i);
            if (o.server != null) {
                nodes[i].id = channel.createId(o.portSpace, nodes[i]);
            }
        }
        int ret = o.server != null ? runClient() : runServer();
        out.println("test complete");
        for (CmatoseNode n : nodes) {
            n.close();
        }
        nodes = null;
        out.println("return status " + ret);
        return ret & 0xFF;
    }

    private int runServer() {
        out.println(p + "starting server");
        listenId = channel.createId(o.portSpace, null);
        InetAddress bind = o.bind != null ? o.bind : anyAddress();
        listenId.bindAddr(new InetSocketAddress(bind, o.port));
        listenId.listen(0);
        int ret = connectEvents();
        if (ret == 0 && o.messageCount > 0) {
            if (ud) {
                out.println("receiving data transfers");
                ret = pollAll(false, true);
                if (ret == 0) {
                    out.println("sending replies");
                    sendAll(true);
                    ret = pollAll(true, false);
                }
            } else {
                out.println("initiating data transfers");
                sendAll(true);
                out.println("completing sends");
                ret = pollAll(true, false);
                if (ret == 0) {
                    out.println("receiving data transfers");
                    ret = pollAll(false, false);
                }
            }
            if (ret == 0) {
                out.println("data transfers complete");
            }
        }
        if (ret == 0 && !ud) {
            out.println(p + "disconnecting");
            for (CmatoseNode n : nodes) {
                if (n.connected) {
                    n.connected = false;
                    n.id.disconnect();
                }
            }
            ret = disconnectEvents();
            out.println("disconnected");
        }
        return ret;
    }

    private int runClient() {
        out.println(p + "starting client");
        out.println(p + "connecting");
        InetSocketAddress src = o.bind == null ? null : new InetSocketAddress(o.bind, 0);
        for (CmatoseNode n : nodes) {
            n.id.resolveAddr(src, new InetSocketAddress(o.server, o.port), RESOLVE);
        }
        int ret = connectEvents();
        if (ret == 0 && o.messageCount > 0) {
            if (ud) {
                out.println("initiating data transfers");
                sendAll(false);
                out.println("receiving data transfers");
            } else {
                out.println("receiving data transfers");
            }
            ret = pollAll(false, false);
            if (ret == 0 && !ud) {
                out.println("sending replies");
                sendAll(true);
            }
            if (ret == 0) {
                out.println("data transfers complete");
            }
        }
        if (!ud) {
            int ret2 = disconnectEvents();
            if (ret2 != 0) {
                ret = ret2;
            }
        }
        return ret;
    }

    private int connectEvents() {
        int ret = 0;
        while (connectsLeft > 0 && ret == 0) {
            ret = handleNext();
        }
        return ret;
    }

    private int disconnectEvents() {
        int ret = 0;
        while (disconnectsLeft > 0 && ret == 0) {
            ret = handleNext();
        }
        return ret;
    }

    private int handleNext() {
        CmEvent ev = channel.getEvent(o.timeoutMs == 0 ? Duration.ofDays(1) : Duration.ofMillis(o.timeoutMs));
        if (ev == null) {
            out.println(p + "no CM event within --timeout");
            return -110;
        }
        try {
            return handle(ev);
        } finally {
            ev.ack();
        }
    }

    /** cma_handler. */
    private int handle(CmEvent ev) {
        CmId id = ev.id();
        switch (ev.type()) {
            case ADDR_RESOLVED -> id.resolveRoute(RESOLVE);
            case ROUTE_RESOLVED -> routeHandler((CmatoseNode) id.userContext());
            case CONNECT_REQUEST -> connectHandler(id);
            case ESTABLISHED -> {
                CmatoseNode n = node(id);
                if (ud) {
                    UdParam u = ev.udParam();
                    n.peer(u.qpNum(), u.qkey(), u.ahAttr());
                } else {
                    disconnectsLeft++;
                }
                n.connected = true;
                connectsLeft--;
            }
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                out.println(p + "event: " + ev.type().eventName() + ", error: " + ev.status());
                connectsLeft--;
                return ev.status();
            }
            case DISCONNECTED -> {
                if (!ud) {
                    id.disconnect();
                    disconnectsLeft--;
                }
            }
            default -> {
            }
        }
        return 0;
    }

    private CmatoseNode node(CmId id) {
        for (CmatoseNode n : nodes) {
            if (n.id == id) {
                return n;
            }
        }
        throw new IllegalStateException("event for an unknown id");
    }

    private void routeHandler(CmatoseNode n) {
        try {
            if (ud) {
                verifyMtu(n);
            }
            n.init(ud, o.messageCount, o.messageSize);
            n.postRecvs(o.messageCount, o.messageSize + (ud ? CmatoseNode.GRH_BYTES : 0));
            ConnParam cp = new ConnParam();
            if (!ud) {
                cp.responderResources(1).initiatorDepth(1).retryCount(5);
            }
            n.id.connect(cp);
        } catch (RuntimeException e) {
            connectsLeft--;
            throw e;
        }
    }

    private void connectHandler(CmId id) {
        if (connIndex == nodes.length) {
            out.println(p + "failing connection request");
            id.reject(null);
            id.close();
            return;
        }
        CmatoseNode n = nodes[connIndex++];
        n.id = id;
        if (ud) {
            verifyMtu(n);
        }
        n.init(ud, o.messageCount, o.messageSize);
        n.postRecvs(o.messageCount, o.messageSize + (ud ? CmatoseNode.GRH_BYTES : 0));
        if (ud) {
            id.accept(new ConnParam().qpNum(id.qp().qpNum()));
            n.connected = true;
            connectsLeft--;
        } else {
            id.accept(new ConnParam().responderResources(1).initiatorDepth(1)); // rdma_accept(NULL)
        }
    }

    private void verifyMtu(CmatoseNode n) {
        PortAttr port = n.id.context().queryPort(n.id.portNum());
        int mtu = port.activeMtu().bytes();
        if (o.messageCount > 0 && o.messageSize > mtu) {
            throw new IllegalArgumentException("message_size " + o.messageSize + " is larger than active mtu " + mtu);
        }
    }

    private void sendAll(boolean signaled) {
        for (CmatoseNode n : nodes) {
            n.postSends(ud, o.messageCount, o.messageSize, signaled);
        }
    }

    private int pollAll(boolean sends, boolean replyAh) {
        long deadline = System.nanoTime() + (o.timeoutMs == 0 ? Long.MAX_VALUE / 2 : o.timeoutMs * 1_000_000);
        for (CmatoseNode n : nodes) {
            if (!n.connected) {
                continue;
            }
            String why = n.poll(sends && !ud, o.messageCount, replyAh, deadline);
            if (why != null) {
                out.println(p + "failed polling CQ: " + why);
                return -1;
            }
        }
        return 0;
    }

    private static InetAddress anyAddress() {
        return new InetSocketAddress(0).getAddress();
    }

    @Override
    public void close() {
        if (nodes != null) {
            for (CmatoseNode n : nodes) {
                n.close();
            }
        }
        if (listenId != null) {
            listenId.close();
        }
        if (channel != null) {
            channel.close();
        }
    }
}
