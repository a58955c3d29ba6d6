package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Icrc;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What the RC atomic tests share: the pair of soft devices (127.0.30.1 and 127.0.30.2) with REMOTE_ATOMIC, the
 * CmpSwap and FetchAdd work requests, the packets a device saw, a crafted packet injected from the peer's address,
 * and waits that drive the pair. The tests are {@link AtomicTest}, {@link AtomicWireTest},
 * {@link AtomicDuplicateTest} and {@link AtomicBadFlowTest}.
 */
abstract class AtomicFixture {

    static final String A = "127.0.30.1";
    static final String B = "127.0.30.2";
    static final int ACCESS = Peer.ALL_ACCESS | Access.REMOTE_ATOMIC;
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED; // host order, as libibverbs

    static Peer.Link link() {
        Peer.Link l = new Peer.Link();
        l.qpAccess |= Access.REMOTE_ATOMIC;
        return l;
    }

    static Pair pair(Peer.Link link) {
        return new Pair(A, B, Threading.INVOKER, NanoClock.SYSTEM, 1 << 16, ACCESS, Peer.defaultCap(), link);
    }

    static SendWr faa(long wrId, Peer local, long localOff, long remoteAddr, int rkey, long add) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(local.addr(localOff), 8, local.mr.lkey())).remoteAddr(remoteAddr).rkey(rkey)
                .compareAdd(add);
    }

    static SendWr cas(long wrId, Peer local, long localOff, long remoteAddr, int rkey, long compare,
            long swap) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(local.addr(localOff), 8, local.mr.lkey())).remoteAddr(remoteAddr).rkey(rkey)
                .compareAdd(compare).swap(swap);
    }

    static void assertAtomicDone(WorkCompletion wc, long wrId, WcOpcode opcode) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(wrId, wc.wrId());
        assertEquals(opcode, wc.opcode());
        assertEquals(8, wc.byteLen(), "byte_len of an atomic is its 8-byte buffer");
    }

    /** The packets a device sent or received, copied, with their direction. */
    record Seen(boolean tx, byte[] ib) {
        int opcode() {
            return ib[0] & 0xFF;
        }

        MemorySegment seg() {
            return MemorySegment.ofArray(ib);
        }
    }

    static List<Seen> record(SoftContext ctx) {
        List<Seen> seen = new ArrayList<>();
        ctx.tap((tx, p, off, len, sip, sport, dip, dport) ->
                seen.add(new Seen(tx, p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE))));
        return seen;
    }

    static List<Seen> only(List<Seen> all, boolean tx, int opcode) {
        return all.stream().filter(s -> s.tx() == tx && s.opcode() == opcode).toList();
    }

    static WorkCompletion awaitStepping(Pair pair, Peer p, ManualClock clock, long stepNs) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        for (int i = 0; i < 100_000; i++) {
            pair.drive();
            if (p.cq.poll(wcs) == 1) {
                WorkCompletion copy = new WorkCompletion();
                copy.copyFrom(wcs[0]);
                return copy;
            }
            clock.advance(stepNs);
        }
        return fail("no completion after 100000 passes");
    }

    static void awaitCounter(Pair pair, Peer p, Counter c, long value) {
        awaitCondition(pair, c.rxeName() + " = " + value, () -> p.ctx.counters().get(c) == value);
    }

    static void awaitCondition(Pair pair, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            pair.drive();
        }
    }

    /**
     * Sends {@code ib} (BTH onwards, ICRC space included) to {@code to}:4791 from a new socket on {@code from},
     * with the ICRC computed for that socket's port: a duplicate or crafted packet from the peer's address.
     */
    static void inject(String from, String to, byte[] ib) throws IOException {
        InetAddress src = InetAddress.getByName(from);
        InetAddress dst = InetAddress.getByName(to);
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(src, 0));
            int port = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            ByteBuffer buf = ByteBuffer.allocateDirect(ib.length);
            buf.put(ib).flip();
            new Icrc().writeIpv4(Link.ipv4(src), Link.ipv4(dst), port, Link.ROCE_PORT, buf, 0, ib.length);
            ch.send(buf, new InetSocketAddress(dst, Link.ROCE_PORT));
        }
    }
}
