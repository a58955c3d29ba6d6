package io.jrdma.ibverbs.rxe;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.cm.CmConnection;
import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.CmListener;
import io.jrdma.cm.CmOptions;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.cm.UdParam;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The native connection manager (librdmacm) on kernel rxe, both ends in this JVM on the guest's rxe0 (its eth0
 * address; {@code -Djrdma.cm.address=} overrides): connect and accept through the blocking layer, a SEND and an
 * RDMA WRITE over the connection, disconnects from either side, a reject with private data and a connect to a
 * port nobody listens on, through the event API; a UD connect and accept (SIDR) in the UDP port space with a UD SEND
 * to the QP number and Q_Key the accept gave. Guest only (scripts/native-rxe.sh).
 */
class IbvCmTck {

    private static final Duration STEP = Duration.ofSeconds(20);
    private static InetAddress address;

    @BeforeAll
    static void findAddress() throws Exception {
        String given = System.getProperty("jrdma.cm.address");
        if (given != null) {
            address = InetAddress.getByName(given);
        } else {
            NetworkInterface eth0 = NetworkInterface.getByName("eth0");
            assumeTrue(eth0 != null, "no eth0 (not an rxe-lab guest)");
            address = eth0.inetAddresses().filter(a -> a instanceof Inet4Address).findFirst().orElse(null);
            assumeTrue(address != null, "eth0 has no IPv4 address");
        }
        try (EventChannel ch = EventChannel.create()) {
            assumeTrue(ch.provider().equals("ibverbs"), "the native CM is not the one chosen");
        }
    }

    private static CmOptions options() {
        return new CmOptions().timeout(STEP);
    }

    /** Accepts one connection on another thread. */
    private static CompletableFuture<CmConnection> acceptAsync(CmListener l) {
        return CompletableFuture.supplyAsync(() -> l.accept(STEP));
    }

    @Test
    void connectsExchangesASendAndAWriteAndDisconnectsFromTheClient() throws Exception {
        InetSocketAddress at = new InetSocketAddress(address, 7471);
        CmOptions server = options();
        server.param().privateData("rep-data".getBytes(StandardCharsets.US_ASCII));
        CmOptions client = options();
        client.param().privateData("req-data".getBytes(StandardCharsets.US_ASCII));
        try (CmListener l = CmListener.listen(at, 4, server); Arena arena = Arena.ofShared()) {
            assertEquals(at, l.localAddress());
            CompletableFuture<CmConnection> accepted = acceptAsync(l);
            CmConnection c = CmConnection.connect(at, client);
            CmConnection s = null;
            try {
                s = accepted.get(STEP.toSeconds(), TimeUnit.SECONDS);
                assertNotNull(s, "no connection was accepted");
                assertEquals("req-data", prefix(s.peerPrivateData(), 8));
                assertEquals("rep-data", prefix(c.peerPrivateData(), 8));
                assertSame(c.context(), s.context(), "one borrowed context per librdmacm device context");
                assertEquals("rxe0", c.context().device().name());
                assertEquals(QpState.RTS, c.qp().state());
                assertEquals(QpState.RTS, s.qp().state());
                assertEquals(at, c.peerAddress());
                exchange(arena, c, s);
                closeThenWait(c, s);
            } finally {
                closeAll(c, s);
            }
        }
    }

    @Test
    void disconnectsFromTheServer() throws Exception {
        InetSocketAddress at = new InetSocketAddress(address, 7472);
        try (CmListener l = CmListener.listen(at, 4, options())) {
            CompletableFuture<CmConnection> accepted = acceptAsync(l);
            CmConnection c = CmConnection.connect(at, options());
            CmConnection s = null;
            try {
                s = accepted.get(STEP.toSeconds(), TimeUnit.SECONDS);
                closeThenWait(s, c);
                assertEquals(QpState.ERR, c.qp().state());
            } finally {
                closeAll(c, s);
            }
        }
    }

    /**
     * Closes {@code closing} (its DREQ) while another thread waits for {@code peer} to see DISCONNECTED (and answer
     * with a DREP): the close must end with the DREP, well before the CM's DREQ timeout or the step timeout.
     */
    private static void closeThenWait(CmConnection closing, CmConnection peer) throws Exception {
        CompletableFuture<Boolean> seen = CompletableFuture.supplyAsync(() -> waitDisconnected(peer));
        long start = System.nanoTime();
        closing.close();
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(seen.get(STEP.toSeconds(), TimeUnit.SECONDS), "the peer saw no DISCONNECTED");
        assertTrue(ms < STEP.toMillis() / 2, "close took " + ms + " ms: no DREP answered the DREQ");
    }

    private static void closeAll(CmConnection... cs) {
        for (CmConnection c : cs) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** The client SENDs its buffer's address and rkey; the server RDMA WRITEs 64 bytes into it. */
    private static void exchange(Arena arena, CmConnection c, CmConnection s) {
        MemorySegment cbuf = arena.allocate(4096, 4096);
        MemorySegment sbuf = arena.allocate(4096, 4096);
        MemoryRegion cmr = c.pd().registerMemory(cbuf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        MemoryRegion smr = s.pd().registerMemory(sbuf, Access.LOCAL_WRITE);
        try {
            s.qp().postRecv(new RecvWr().wrId(7).sg(new Sge(smr.address(), 64, smr.lkey())));
            cbuf.set(JAVA_LONG, 0, cmr.address());
            cbuf.set(JAVA_INT, 8, cmr.rkey());
            c.qp().postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).signaled(true)
                    .sg(new Sge(cmr.address(), 16, cmr.lkey())));
            assertEquals(WcOpcode.SEND, await(c.cq()).opcode());
            WorkCompletion r = await(s.cq());
            assertEquals(WcOpcode.RECV, r.opcode());
            assertEquals(7, r.wrId());
            assertEquals(16, r.byteLen());
            long remote = sbuf.get(JAVA_LONG, 0);
            int rkey = sbuf.get(JAVA_INT, 8);
            assertEquals(cmr.address(), remote);
            for (int i = 0; i < 64; i++) {
                sbuf.set(JAVA_BYTE, 1024 + i, (byte) (i * 3 + 1));
            }
            s.qp().postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).signaled(true).remote(remote + 2048,
                    rkey).sg(new Sge(smr.address() + 1024, 64, smr.lkey())));
            assertEquals(WcOpcode.RDMA_WRITE, await(s.cq()).opcode());
            assertArrayEquals(sbuf.asSlice(1024, 64).toArray(JAVA_BYTE), cbuf.asSlice(2048, 64).toArray(JAVA_BYTE));
        } finally {
            cmr.close();
            smr.close();
        }
    }

    @Test
    void rejectsWithPrivateData() {
        InetSocketAddress at = new InetSocketAddress(address, 7473);
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create()) {
            CmId listener = sch.createId(PortSpace.TCP, "listener");
            listener.bindAddr(at);
            listener.listen(2);
            Active a = Active.connect(cch, at);
            try {
                try (CmEvent req = next(sch, CmEventType.CONNECT_REQUEST)) {
                    assertSame(listener, req.listenId());
                    assertEquals("listener", req.id().userContext());
                    assertEquals("hello", prefix(req.privateData(), 5));
                    req.id().reject("not today".getBytes(StandardCharsets.US_ASCII));
                }
                try (CmEvent rej = next(cch, CmEventType.REJECTED)) {
                    assertEquals(28, rej.status(), "IBTA reason 28: consumer reject");
                    assertEquals("not today", prefix(rej.privateData(), 9));
                }
            } finally {
                a.close();
            }
        }
    }

    @Test
    void connectingToAPortNobodyListensOnIsRejected() {
        InetSocketAddress at = new InetSocketAddress(address, 7479);
        try (EventChannel cch = EventChannel.create()) {
            Active a = Active.connect(cch, at);
            try (CmEvent ev = nextOf(cch)) {
                assertEquals(CmEventType.REJECTED, ev.type(), () -> "got " + ev);
                assertEquals(8, ev.status(), "IBTA reason 8: invalid service id");
            } finally {
                a.close();
            }
        }
    }

    @Test
    void udConnectAcceptAndSendOverSidr() {
        InetSocketAddress at = new InetSocketAddress(address, 7474);
        try (EventChannel sch = EventChannel.create(); EventChannel cch = EventChannel.create();
                Arena arena = Arena.ofShared()) {
            CmId listener = sch.createId(PortSpace.UDP, "ud-listener");
            listener.bindAddr(at);
            listener.listen(2);
            Active a = Active.connect(cch, at, QpType.UD, "sidr-req");
            Active b = null;
            try {
                CmId passive;
                try (CmEvent req = next(sch, CmEventType.CONNECT_REQUEST)) {
                    assertSame(listener, req.listenId());
                    UdParam u = req.udParam();
                    assertNotNull(u, "a UDP port space request carries UD parameters");
                    assertEquals("sidr-req", prefix(u.privateData(), 8));
                    passive = req.id();
                }
                b = Active.withQp(passive, QpType.UD);
                assertEquals(QpState.RTS, passive.qp().state(), "rdma_create_qp readies a UD QP");
                MemorySegment rbuf = arena.allocate(4096, 4096);
                MemoryRegion rmr = b.pd().registerMemory(rbuf, Access.LOCAL_WRITE);
                MemorySegment sbuf = arena.allocate(4096, 4096);
                MemoryRegion smr = a.pd().registerMemory(sbuf, Access.LOCAL_WRITE);
                try {
                    passive.qp().postRecv(new RecvWr().wrId(9).sg(new Sge(rmr.address(), 2048, rmr.lkey())));
                    passive.accept(new io.jrdma.cm.ConnParam().qpNum(passive.qp().qpNum())
                            .privateData("sidr-rep".getBytes(StandardCharsets.US_ASCII)));
                    UdParam ud;
                    try (CmEvent est = next(cch, CmEventType.ESTABLISHED)) {
                        ud = est.udParam();
                    }
                    assertNotNull(ud, "the SIDR REP's UD parameters");
                    assertEquals(passive.qp().qpNum(), ud.qpNum());
                    assertEquals(PortSpace.UDP_QKEY, ud.qkey());
                    assertEquals("sidr-rep", prefix(ud.privateData(), 8));
                    byte[] msg = "hello over SIDR".getBytes(StandardCharsets.US_ASCII);
                    MemorySegment.copy(msg, 0, sbuf, JAVA_BYTE, 0, msg.length);
                    try (AddressHandle ah = a.pd().createAh(ud.ahAttr())) {
                        a.id().qp().postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).signaled(true)
                                .sg(new Sge(smr.address(), msg.length, smr.lkey())).ud(ah, ud.qpNum(), ud.qkey()));
                        assertEquals(WcOpcode.SEND, await(a.cq()).opcode());
                        WorkCompletion r = await(b.cq());
                        assertEquals(9, r.wrId());
                        assertEquals(40 + msg.length, r.byteLen(), "a GRH then the message");
                        assertArrayEquals(msg, rbuf.asSlice(40, msg.length).toArray(JAVA_BYTE));
                    }
                } finally {
                    rmr.close();
                    smr.close();
                }
            } finally {
                if (b != null) {
                    b.close();
                }
                a.close();
            }
        }
    }

    /** An active id with its own PD, CQ and RC QP, connected (REQ sent) to {@code at} with private data "hello". */
    private record Active(CmId id, ProtectionDomain pd, CompletionQueue cq) implements AutoCloseable {
        static Active connect(EventChannel ch, InetSocketAddress at) {
            return connect(ch, at, QpType.RC, "hello");
        }

        /** An id of the TCP (RC) or UDP (UD) port space, resolved, with a QP, connected with {@code data}. */
        static Active connect(EventChannel ch, InetSocketAddress at, QpType type, String data) {
            CmId id = ch.createId(type == QpType.UD ? PortSpace.UDP : PortSpace.TCP, null);
            id.resolveAddr(null, at, STEP);
            next(ch, CmEventType.ADDR_RESOLVED).ack();
            id.resolveRoute(STEP);
            next(ch, CmEventType.ROUTE_RESOLVED).ack();
            Active a = withQp(id, type);
            if (type == QpType.RC) {
                assertEquals(QpState.INIT, id.qp().state(), "rdma_create_qp moves an RC QP to INIT");
            }
            id.connect(new io.jrdma.cm.ConnParam().privateData(data.getBytes(StandardCharsets.US_ASCII)));
            return a;
        }

        /** A PD, a CQ and a QP of {@code type} on {@code id}'s device. */
        static Active withQp(CmId id, QpType type) {
            ProtectionDomain pd = id.context().allocPd();
            CompletionQueue cq = id.context().createCq(8);
            id.createQp(pd, new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq).cap(new QpCap(4, 4, 1, 1, 0)));
            return new Active(id, pd, cq);
        }

        @Override
        public void close() {
            id.close(); // destroys the QP first
            cq.close();
            pd.close();
        }
    }

    private static CmEvent nextOf(EventChannel ch) {
        CmEvent ev = ch.getEvent(STEP);
        assertNotNull(ev, "no CM event in " + STEP);
        return ev;
    }

    private static CmEvent next(EventChannel ch, CmEventType type) {
        CmEvent ev = nextOf(ch);
        if (ev.type() != type) {
            ev.close();
            throw new AssertionError("expected " + type + ", got " + ev + " (status " + ev.status() + ")");
        }
        return ev;
    }

    private static WorkCompletion await(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long end = System.nanoTime() + STEP.toNanos();
        while (System.nanoTime() < end) {
            if (cq.poll(wc) == 1) {
                assertEquals(WcStatus.SUCCESS, wc[0].status(), () -> "completion " + wc[0]);
                return wc[0];
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion in " + STEP);
    }

    private static boolean waitDisconnected(CmConnection c) {
        long end = System.nanoTime() + STEP.toNanos();
        while (System.nanoTime() < end) {
            if (c.isDisconnected()) {
                return true;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    private static String prefix(byte[] data, int n) {
        return new String(data, 0, Math.min(n, data.length), StandardCharsets.US_ASCII);
    }
}
