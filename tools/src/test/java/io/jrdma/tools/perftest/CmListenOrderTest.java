package io.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.tools.ChildJvm;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A {@code -R} server listens for the test connections before the handshake that precedes them: a client (perftest
 * 4.5's gives up on its first REJECTED) that connects as soon as it has the server's handshake must find a listener.
 * The server here waits in that handshake while a CM request comes in (soft device 127.0.201.1 in this JVM): it
 * must not be rejected with reason 8 (nobody listens). Regression: the native server in an rxe-lab guest listened
 * after the handshake, and rdma-core's perftest client was rejected.
 */
class CmListenOrderTest {

    private static final String ADDRESS = "127.0.201.1";
    private static String saved;

    @BeforeAll
    static void devices() {
        saved = System.getProperty("jrdma.devices");
        System.setProperty("jrdma.devices", "cmorder=" + ADDRESS);
    }

    @AfterAll
    static void restore() {
        if (saved == null) {
            System.clearProperty("jrdma.devices");
        } else {
            System.setProperty("jrdma.devices", saved);
        }
    }

    @Test
    void serverListensBeforeTheFirstHandshake() throws Exception {
        int port = ChildJvm.freeTcpPort();
        Options o = Options.parse(Tool.IB_SEND_BW, new String[] {"-R", "-p", Integer.toString(port), "--timeout=10"});
        AtomicReference<Thread> serverThread = new AtomicReference<>();
        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
            serverThread.set(Thread.currentThread());
            try (Exchange ex = Exchange.accept(port, 10_000); CmConnections cm = new CmConnections(o, 0)) {
                cm.connect(ex, new Exchange.Dest(0, 0, 0, 0, 0, 0, Gid.ZERO, 0), true, null);
            } catch (Exception e) {
                // the test ends the exchange while the server waits in its first handshake
            }
        });
        Exchange client = null;
        for (int i = 0; i < 100 && client == null; i++) {
            try {
                client = Exchange.connect(ADDRESS, port, 10_000);
            } catch (java.io.IOException e) {
                Thread.sleep(50);
            }
        }
        assertTrue(client != null, "no exchange with the server");
        // the request must come while the server waits in the handshake (as a client that has the handshake sends it),
        // not in the moment between the server's accept and its connect: wait until the server is in the handshake
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!inHandshake(serverThread.get())) {
            assertTrue(System.nanoTime() - until < 0, "the server never reached its handshake");
            Thread.sleep(5);
        }
        try (EventChannel ch = EventChannel.create()) {
            CmId id = ch.createId(PortSpace.TCP, null);
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(ADDRESS), port);
            Duration step = Duration.ofSeconds(5);
            id.resolveAddr(null, at, step);
            expect(ch, CmEventType.ADDR_RESOLVED, step);
            id.resolveRoute(step);
            expect(ch, CmEventType.ROUTE_RESOLVED, step);
            try (ProtectionDomain pd = id.context().allocPd(); CompletionQueue cq = id.context().createCq(4)) {
                id.createQp(pd, new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq).cap(new QpCap(1, 1, 1, 1,
                        0)));
                id.connect(new ConnParam());
                try (CmEvent ev = ch.getEvent(Duration.ofSeconds(2))) {
                    // the server takes the request only after the handshake: no event, or at worst no reject
                    assertNull(ev == null || ev.type() != CmEventType.REJECTED ? null : ev,
                            () -> "rejected (status " + ev.status() + "): nobody listened during the handshake");
                }
                id.close();
            }
        } finally {
            client.close();
            server.get(20, TimeUnit.SECONDS);
        }
    }

    /** Whether {@code t} is inside {@code Exchange.handshake}. */
    private static boolean inHandshake(Thread t) {
        if (t == null) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().equals(Exchange.class.getName()) && e.getMethodName().equals("handshake")) {
                return true;
            }
        }
        return false;
    }

    private static void expect(EventChannel ch, CmEventType type, Duration wait) {
        try (CmEvent ev = ch.getEvent(wait)) {
            assertTrue(ev != null && ev.type() == type, () -> "expected " + type + ", got " + ev);
        }
    }
}
