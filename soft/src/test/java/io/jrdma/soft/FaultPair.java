package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.soft.link.FaultyLink;
import io.jrdma.soft.link.Link;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.wire.Icrc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Two connected invoker-mode peers on one stepped {@link ManualClock}, each device with its own faults, and
 * packet records from both taps. Waits drive both engines and move the clock only when neither had work, so
 * timers fire by stepping time, never by sleeping; every wait is bounded in passes and in real time.
 */
final class FaultPair implements AutoCloseable {

    static final long STEP_NS = 50_000;
    private static final long REAL_LIMIT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final int PASS_LIMIT = 5_000_000;

    /** One packet a device sent (tx) or received, copied. */
    record Seen(boolean tx, byte[] ib, long t) {
        Seen(boolean tx, byte[] ib) {
            this(tx, ib, 0);
        }

        int opcode() {
            return ib[0] & 0xFF;
        }

        int psn() {
            return (ib[9] & 0xFF) << 16 | (ib[10] & 0xFF) << 8 | (ib[11] & 0xFF);
        }

        MemorySegment seg() {
            return MemorySegment.ofArray(ib);
        }
    }

    final ManualClock clock = new ManualClock();
    final Peer a;
    final Peer b;
    final Peer.Link link;
    final List<Seen> atA = new ArrayList<>();
    final List<Seen> atB = new ArrayList<>();

    FaultPair(String ipA, String ipB, long bufBytes, int access, Peer.Link link, FaultConfig faultsA,
            FaultConfig faultsB) {
        this(ipA, ipB, bufBytes, access, link, faultsA, faultsB, LinkKind.NATIVE);
    }

    /**
     * Both devices on links of {@code kind} (NATIVE falls back to NIO where the process has no native sockets, as
     * a device does: a test that must run natively calls {@link LinkKind#assume()}).
     */
    FaultPair(String ipA, String ipB, long bufBytes, int access, Peer.Link link, FaultConfig faultsA,
            FaultConfig faultsB, LinkKind kind) {
        this.link = link;
        a = new Peer(ipA, Threading.INVOKER, clock, bufBytes, access, Peer.defaultCap(), faultsA, kind);
        Peer pb;
        try {
            pb = new Peer(ipB, Threading.INVOKER, clock, bufBytes, access, Peer.defaultCap(), faultsB, kind);
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        b = pb;
        a.connect(b, link);
        b.connect(a, link);
    }

    /** Records every packet both devices send and receive (the tap sees what the engine sent, before faults). */
    FaultPair record() {
        a.ctx.tap((tx, p, off, len, sip, sport, dip, dport) ->
                atA.add(new Seen(tx, p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE),
                        (clock.nanoTime() - 1_000_000_000L) / 1000)));
        b.ctx.tap((tx, p, off, len, sip, sport, dip, dport) ->
                atB.add(new Seen(tx, p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE),
                        (clock.nanoTime() - 1_000_000_000L) / 1000)));
        return this;
    }

    static List<Seen> only(List<Seen> all, boolean tx, int opcode) {
        return all.stream().filter(s -> s.tx() == tx && s.opcode() == opcode).toList();
    }

    /** One pass of each engine; the amount of work done. */
    int drive() {
        return a.ctx.progress() + b.ctx.progress();
    }

    /** Drives until {@code done}, stepping the clock by {@code stepNs} whenever a pass found nothing to do. */
    void until(String what, BooleanSupplier done, long stepNs) {
        until(() -> what, done, stepNs);
    }

    void until(Supplier<String> what, BooleanSupplier done, long stepNs) {
        long deadline = System.nanoTime() + REAL_LIMIT_NS;
        for (int pass = 0; !done.getAsBoolean(); pass++) {
            if (pass > PASS_LIMIT || System.nanoTime() > deadline) {
                fail("timed out waiting for " + what.get() + " after " + pass + " passes, clock +"
                        + (clock.nanoTime() - 1_000_000_000L) / 1000 + " us\n a: " + a.ctx.counters() + "\n b: "
                        + b.ctx.counters());
            }
            if (drive() == 0) {
                clock.advance(stepNs);
            }
        }
    }

    void until(String what, BooleanSupplier done) {
        until(what, done, STEP_NS);
    }

    /** Drives only {@code p} (the other side stays silent) until {@code done}, without moving the clock. */
    void driving(Peer p, String what, BooleanSupplier done) {
        long deadline = System.nanoTime() + REAL_LIMIT_NS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what + "\n" + counters());
            }
            p.ctx.progress();
        }
    }

    /** Collects {@code n} completions from {@code cq}, driving and stepping. */
    List<WorkCompletion> completions(CompletionQueue cq, int n) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wcs = {new WorkCompletion()};
        until(() -> n + " completions (got " + out + ")", () -> {
            while (out.size() < n && cq.poll(wcs) == 1) {
                out.add(new WorkCompletion().copyFrom(wcs[0]));
            }
            return out.size() == n;
        }, STEP_NS);
        return out;
    }

    WorkCompletion completion(CompletionQueue cq) {
        return completions(cq, 1).getFirst();
    }

    /** Drives for {@code ns} of stepped time (releasing held packets, letting late duplicates land). */
    void settle(long ns) {
        long end = clock.nanoTime() + ns;
        int passes = 0;
        while (clock.nanoTime() < end && passes++ < PASS_LIMIT) {
            drive();
            clock.advance(STEP_NS);
        }
        for (int i = 0; i < 50; i++) {
            drive();
        }
    }

    /** Nothing more on either CQ, and neither engine failed. */
    void assertQuiet() {
        WorkCompletion[] wcs = {new WorkCompletion()};
        assertEquals(0, a.cq.poll(wcs), () -> "unexpected completion at a: " + wcs[0]);
        assertEquals(0, b.cq.poll(wcs), () -> "unexpected completion at b: " + wcs[0]);
        assertHealthy();
    }

    void assertHealthy() {
        assertEquals(0, icrcMismatches(a) + icrcMismatches(b), "GSO packets with an ICRC for the wrong IPv4 ID");
        assertNull(a.ctx.lastEngineFailure(), "engine failure at a");
        assertNull(b.ctx.lastEngineFailure(), "engine failure at b");
        assertEquals(0, a.ctx.counters().get(Counter.QP_FATAL));
        assertEquals(0, b.ctx.counters().get(Counter.QP_FATAL));
        assertEquals(QpState.RTS, a.qp.state());
        assertEquals(QpState.RTS, b.qp.state());
    }

    /** Packets of GSO batches whose ICRC {@code p}'s fault injector found written for the wrong IPv4 ID. */
    static long icrcMismatches(Peer p) {
        return p.ctx.link instanceof FaultyLink f ? f.icrcMismatches() : 0;
    }

    long count(Peer p, Counter c) {
        return p.ctx.counters().get(c);
    }

    String counters() {
        return "a: " + a.ctx.counters() + "\nb: " + b.ctx.counters();
    }

    /**
     * Sends {@code ib} (BTH onwards, ICRC space included) to {@code to}:4791 from {@code ch} (bound on the
     * sender's address), with the ICRC computed for IPv4 ID {@code ipId}: a crafted, duplicate or stale packet
     * from a peer's address.
     */
    static void inject(DatagramChannel ch, String to, byte[] ib, int ipId) {
        try {
            InetSocketAddress from = (InetSocketAddress) ch.getLocalAddress();
            InetAddress dst = InetAddress.getByName(to);
            ByteBuffer buf = ByteBuffer.allocateDirect(ib.length);
            buf.put(ib).flip();
            int crc = new Icrc().computeIpv4(Link.ipv4(from.getAddress()), Link.ipv4(dst), from.getPort(),
                    Link.ROCE_PORT, ipId, buf, 0, ib.length);
            buf.order(ByteOrder.LITTLE_ENDIAN).putInt(ib.length - Icrc.LENGTH, crc).order(ByteOrder.BIG_ENDIAN);
            ch.send(buf, new InetSocketAddress(dst, Link.ROCE_PORT));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A UDP socket on {@code ip} (any port) to inject from. */
    static DatagramChannel injector(String ip) {
        try {
            DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            ch.bind(new InetSocketAddress(InetAddress.getByName(ip), 0));
            return ch;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }
}
