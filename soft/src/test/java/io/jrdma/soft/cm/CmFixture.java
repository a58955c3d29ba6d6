package io.jrdma.soft.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * Two soft devices in this JVM ({@code base}.1 the client's, {@code base}.2 the server's), each with its own CM
 * agent, and an event channel for each side: real MADs over real RoCEv2 packets between them.
 */
final class CmFixture implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(10);

    final SoftDevice clientDev;
    final SoftDevice serverDev;
    final CmRegistry registry;
    final EventChannel client;
    final EventChannel server;
    final String clientIp;
    final String serverIp;

    CmFixture(String base) {
        this(base, null);
    }

    /** As {@link #CmFixture(String)}, the client's device capturing what it sends and receives to {@code pcap}. */
    CmFixture(String base, java.nio.file.Path pcap) {
        this(base, pcap, FaultConfig.NONE, FaultConfig.NONE);
    }

    /** As {@link #CmFixture(String)}, the devices injecting these faults into what they send. */
    CmFixture(String base, FaultConfig clientFaults, FaultConfig serverFaults) {
        this(base, null, clientFaults, serverFaults);
    }

    private CmFixture(String base, java.nio.file.Path pcap, FaultConfig clientFaults, FaultConfig serverFaults) {
        clientIp = base + ".1";
        serverIp = base + ".2";
        SoftDevice.Builder cb = SoftDevice.builder().name("cmc" + base.hashCode()).address(clientIp)
                .faults(clientFaults);
        clientDev = (pcap == null ? cb : cb.capture(pcap)).build();
        serverDev = SoftDevice.builder().name("cms" + base.hashCode()).address(serverIp).faults(serverFaults)
                .build();
        registry = new CmRegistry(() -> List.of(clientDev, serverDev));
        client = new SoftEventChannel(registry);
        server = new SoftEventChannel(registry);
    }

    CmAgent agentOf(SoftDevice d) {
        return registry.agent(d);
    }

    /** The next event of {@code ch}, which must be {@code type}; the caller acks it. */
    static CmEvent expect(EventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(WAIT);
        assertNotNull(e, "no event within " + WAIT + ", expected " + type);
        if (e.type() != type) {
            e.ack();
            fail("expected " + type + " but got " + e + " status " + e.status());
        }
        return e;
    }

    /** Asserts the next event is {@code type} and acks it. */
    static void expectAck(EventChannel ch, CmEventType type) {
        expect(ch, type).ack();
    }

    /** A listener of the server on {@code port}. */
    CmId listen(PortSpace ps, int port, int backlog) {
        CmId l = server.createId(ps, "listener");
        l.bindAddr(new InetSocketAddress(serverIp, port));
        l.listen(backlog);
        return l;
    }

    /** A client id resolved (address and route) to the server's {@code port}. */
    CmId resolved(PortSpace ps, int port) {
        CmId id = client.createId(ps, "client");
        id.resolveAddr(new InetSocketAddress(clientIp, 0), new InetSocketAddress(serverIp, port), WAIT);
        expectAck(client, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(WAIT);
        expectAck(client, CmEventType.ROUTE_RESOLVED);
        return id;
    }

    /** What one side needs to move data: PD, CQ, 64 KiB registered, a QP made by the CM. */
    static final class Side implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion mr;

        Side(CmId id, QpType type) {
            pd = id.context().allocPd();
            cq = id.context().createCq(64);
            mr = pd.registerMemory(arena.allocate(65_536, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE
                    | Access.REMOTE_READ);
            id.createQp(pd, new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq)
                    .cap(new QpCap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1)));
        }

        WorkCompletion await() {
            WorkCompletion[] wcs = {new WorkCompletion()};
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (cq.poll(wcs) == 0) {
                if (System.nanoTime() > deadline) {
                    fail("no completion within " + WAIT);
                }
                Thread.onSpinWait();
            }
            return wcs[0];
        }

        @Override
        public void close() {
            mr.close();
            cq.close();
            pd.close();
            arena.close();
        }
    }

    /** A connection made through a listener: both sides ESTABLISHED, each with its {@link Side}. */
    record Pair(CmId listener, CmId active, CmId passive, Side a, Side b) implements AutoCloseable {
        /** Destroys the ids and the sides' resources (the connection must have ended or is ended by it). */
        @Override
        public void close() {
            passive.close();
            active.close();
            listener.close();
            a.close();
            b.close();
        }
    }

    /** Listens on {@code port}, connects an RC id to it with {@code param}, accepts with {@code param}. */
    Pair connect(int port, ConnParam param) {
        CmId listener = listen(PortSpace.TCP, port, 4);
        CmId active = resolved(PortSpace.TCP, port);
        Side a = new Side(active, QpType.RC);
        active.connect(param);
        CmEvent req = expect(server, CmEventType.CONNECT_REQUEST);
        CmId passive = req.id();
        req.ack();
        Side b = new Side(passive, QpType.RC);
        passive.accept(param);
        expectAck(client, CmEventType.ESTABLISHED);
        expectAck(server, CmEventType.ESTABLISHED);
        return new Pair(listener, active, passive, a, b);
    }

    /** Asserts the agents and the registry hold nothing: no ids, comm ids, listeners, ports, timers. */
    void assertClean() {
        assertEquals(0, registry.idCount(), "ids");
        assertEquals(List.of(0, 0, 0, 0), java.util.Arrays.stream(registry.sizes()).boxed().toList(),
                "local ids, remote ids, listeners, ports");
        for (CmAgent a : registry.agents()) {
            assertEquals(0, a.timedCount(), "timers of " + a);
        }
    }

    @Override
    public void close() {
        client.close();
        server.close();
        registry.closeAll();
    }
}
