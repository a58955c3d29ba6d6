package io.jrdma.soft;

import static io.jrdma.soft.FaultPair.only;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Reth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;

/**
 * The reliability rules one at a time, each made to happen by a targeted fault or a crafted packet, in three
 * parts: {@link ReliabilityResponderTest}, {@link ReliabilityRequesterTest} and {@link ReliabilityIcrcTest}, each
 * run again on NIO channels by its {@code Nio} subclass. This base holds the pair they run on (two devices, faults
 * and the packets seen recorded) and the crafted packets. Several tests are regression tests for bugs found under
 * faults; their names say so.
 */
abstract class ReliabilityRulesBase {

    static final String A = "127.0.41.3";
    static final String B = "127.0.41.4";
    static final int ACCESS = Peer.ALL_ACCESS | Access.REMOTE_ATOMIC;
    static final int MTU = 1024;
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    static Peer.Link link() {
        Peer.Link l = new Peer.Link();
        l.qpAccess |= Access.REMOTE_ATOMIC;
        return l;
    }

    /** The links the devices run on: native sockets here, NIO channels in the {@code Nio} subclasses. */
    LinkKind kind() {
        return LinkKind.NATIVE;
    }

    FaultPair pair(Peer.Link link, FaultConfig faultsA, FaultConfig faultsB) {
        FaultPair p = new FaultPair(A, B, 1 << 20, ACCESS, link, faultsA, faultsB, kind().assume()).record();
        fill(p.a.buf, 1);
        fill(p.b.buf, 2);
        return p;
    }

    static void fill(MemorySegment s, long seed) {
        Random r = new Random(seed);
        for (long off = 0; off + 8 <= s.byteSize(); off += 8) {
            s.set(U64, off, r.nextLong());
        }
    }

    static SendWr write(long wrId, Peer a, Peer b, long off, int len) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(off), len, a.mr.lkey())).remoteAddr(b.addr(off)).rkey(b.mr.rkey());
    }

    static SendWr read(long wrId, Peer a, Peer b, long off, int len) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(off), len, a.mr.lkey())).remoteAddr(b.addr(off)).rkey(b.mr.rkey());
    }

    static void assertSame(Peer a, Peer b, long off, long len) {
        assertEquals(-1, a.buf.asSlice(off, len).mismatch(b.buf.asSlice(off, len)), "bytes differ");
    }

    static int syndrome(FaultPair.Seen s) {
        return Aeth.syndrome(s.seg(), Opcode.of(s.opcode()).aethOffset());
    }

    static List<FaultPair.Seen> naks(List<FaultPair.Seen> seen, NakCode code) {
        return only(seen, true, Opcode.RC_ACKNOWLEDGE.code()).stream()
                .filter(s -> syndrome(s) == AethSyndrome.nak(code)).toList();
    }

    /** An RC ACKNOWLEDGE with {@code syndrome} for {@code psn} to {@code qpn}. */
    static byte[] ack(int qpn, int psn, int syndrome) {
        byte[] ib = new byte[Opcode.RC_ACKNOWLEDGE.headerLength() + Icrc.LENGTH];
        MemorySegment s = MemorySegment.ofArray(ib);
        Bth.write(s, 0, Opcode.RC_ACKNOWLEDGE.code(), false, false, 0, 0xFFFF, qpn, false, psn);
        Aeth.write(s, Opcode.RC_ACKNOWLEDGE.aethOffset(), syndrome, 0);
        return ib;
    }

    /** A SEND Only without payload for {@code psn} to {@code qpn}. */
    static byte[] sendOnly(int qpn, int psn) {
        byte[] ib = new byte[Bth.LENGTH + Icrc.LENGTH];
        Bth.write(MemorySegment.ofArray(ib), 0, Opcode.RC_SEND_ONLY.code(), false, false, 0, 0xFFFF, qpn, true, psn);
        return ib;
    }

    /** An RDMA READ request. */
    static byte[] readRequest(int qpn, int psn, long va, int rkey, int len) {
        Opcode op = Opcode.RC_RDMA_READ_REQUEST;
        byte[] ib = new byte[op.headerLength() + Icrc.LENGTH];
        MemorySegment s = MemorySegment.ofArray(ib);
        Bth.write(s, 0, op.code(), false, false, 0, 0xFFFF, qpn, true, psn);
        Reth.write(s, op.rethOffset(), va, rkey, len);
        return ib;
    }

    static SoftQp soft(Peer p) {
        return (SoftQp) p.qp;
    }
}
