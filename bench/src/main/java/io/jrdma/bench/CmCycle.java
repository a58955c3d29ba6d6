package io.jrdma.bench;

import io.jrdma.cm.CmEvent;
import io.jrdma.cm.CmEventType;
import io.jrdma.cm.CmId;
import io.jrdma.cm.ConnParam;
import io.jrdma.cm.EventChannel;
import io.jrdma.cm.PortSpace;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;

/**
 * What one connection costs the connection manager, phase by phase: two soft devices of this JVM (127.0.219.1 and
 * .2, each with its CM agent), one thread playing both sides through the public API ({@code io.jrdma.cm}), cycles of
 * resolve, create the connection's resources (PD, CQ, 64 KiB MR, QP), connect, accept, disconnect both ways, close.
 * Prints the mean of each phase in milliseconds. It uses only the public API, so the same class runs against an
 * older build's jars to compare builds.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.jrdma.bench.CmCycle [cycles]
 * </pre>
 */
public final class CmCycle {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String[] PHASES = {"resolve", "resources", "REQ", "accept", "RTU", "disconnect", "close"};

    private CmCycle() {
    }

    public static void main(String[] args) {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        if (System.getProperty("jrdma.devices") == null) {
            System.setProperty("jrdma.devices", "cyc1=127.0.219.1,cyc2=127.0.219.2");
        }
        long[] sum = new long[PHASES.length];
        try (EventChannel client = EventChannel.create("soft"); EventChannel server = EventChannel.create("soft");
             Arena arena = Arena.ofShared()) {
            CmId listener = server.createId(PortSpace.TCP, null);
            listener.bindAddr(new InetSocketAddress("127.0.219.2", 7600));
            listener.listen(8);
            for (int c = -5; c < cycles; c++) { // five warm-up cycles
                long[] t = new long[PHASES.length + 1];
                t[0] = System.nanoTime();
                CmId active = client.createId(PortSpace.TCP, null);
                active.resolveAddr(new InetSocketAddress("127.0.219.1", 0), new InetSocketAddress("127.0.219.2", 7600),
                        WAIT);
                expect(client, CmEventType.ADDR_RESOLVED);
                active.resolveRoute(WAIT);
                expect(client, CmEventType.ROUTE_RESOLVED);
                t[1] = System.nanoTime();
                Resources a = new Resources(active, arena);
                t[2] = System.nanoTime();
                active.connect(new ConnParam());
                CmId passive = expect(server, CmEventType.CONNECT_REQUEST);
                t[3] = System.nanoTime();
                Resources b = new Resources(passive, arena);
                passive.accept(new ConnParam());
                expect(client, CmEventType.ESTABLISHED);
                t[4] = System.nanoTime();
                expect(server, CmEventType.ESTABLISHED);
                t[5] = System.nanoTime();
                active.disconnect();
                expect(server, CmEventType.DISCONNECTED);
                passive.disconnect();
                expect(client, CmEventType.DISCONNECTED);
                t[6] = System.nanoTime();
                b.close();
                a.close();
                t[7] = System.nanoTime();
                for (int p = 0; c >= 0 && p < PHASES.length; p++) {
                    sum[p] += t[p + 1] - t[p];
                }
            }
            listener.close();
        }
        long total = 0;
        for (int p = 0; p < PHASES.length; p++) {
            System.out.printf(Locale.ROOT, "%-11s %8.3f ms%n", PHASES[p], sum[p] / 1e6 / cycles);
            total += sum[p];
        }
        System.out.printf(Locale.ROOT, "%-11s %8.3f ms (mean of %d cycles)%n", "cycle", total / 1e6 / cycles, cycles);
    }

    private static CmId expect(EventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(WAIT);
        if (e == null || e.type() != type) {
            String got = e == null ? "nothing" : e.type() + " status " + e.status();
            if (e != null) {
                e.ack();
            }
            throw new IllegalStateException("expected " + type + ", got " + got);
        }
        CmId id = e.id();
        e.ack();
        return id;
    }

    /** One side's PD, CQ, 64 KiB MR and RC QP on its CM id. */
    private static final class Resources implements AutoCloseable {
        private final CmId id;
        private final ProtectionDomain pd;
        private final CompletionQueue cq;
        private final MemoryRegion mr;

        Resources(CmId id, Arena arena) {
            this.id = id;
            pd = id.context().allocPd();
            cq = id.context().createCq(64);
            mr = pd.registerMemory(arena.allocate(65_536, 4096), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            id.createQp(pd, new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq).cap(new QpCap(16, 16, 1, 1, 0)));
        }

        /** Destroys the QP, the resources, then the id, as a librdmacm program does. */
        @Override
        public void close() {
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
            id.close();
        }
    }
}
