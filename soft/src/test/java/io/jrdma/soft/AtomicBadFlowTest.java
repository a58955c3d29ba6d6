package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.AtomicEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The checks on RC atomics, at post (EINVAL) and at the responder, with their NAKs and flushes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicBadFlowTest extends AtomicFixture {

    @Test
    void shouldRejectBadAtomicRequestsAtPostWithEinvalBadFlow() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            long sent = a.ctx.counters().get(Counter.SENT_PKTS);
            assertPostRejected(a, faa(1, a, 0, b.addr(4), b.mr.rkey(), 1), "not 8-byte aligned");
            assertPostRejected(a, faa(2, a, 0, b.addr(0), b.mr.rkey(), 1).sg(new Sge(a.addr(0), 4, a.mr.lkey())),
                    "exactly 8 bytes");
            assertPostRejected(a, faa(3, a, 0, b.addr(0), b.mr.rkey(), 1).sg(new Sge(a.addr(0), 16, a.mr.lkey())),
                    "exactly 8 bytes");
            assertPostRejected(a, faa(4, a, 0, b.addr(0), b.mr.rkey(), 1).numSge(0), "exactly 8 bytes");
            assertPostRejected(a, faa(5, a, 0, b.addr(0), b.mr.rkey(), 1)
                    .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE), "INLINE");
            assertEquals(sent, a.ctx.counters().get(Counter.SENT_PKTS), "nothing was sent");
            assertEquals(QpState.RTS, a.qp.state(), "a refused post changes nothing");
            a.qp.postSend(faa(6, a, 0, b.addr(8), b.mr.rkey(), 1));
            assertAtomicDone(pair.await(a.cq), 6, WcOpcode.FETCH_ADD);
        }
    }

    private static void assertPostRejected(Peer a, SendWr wr, String message) {
        VerbsException e = assertThrows(VerbsException.class, () -> a.qp.postSend(wr));
        assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
        assertEquals(0, e.badWrIndex());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    /** Posts {@code bad} and a WR after it; asserts the error, the flush, both QPs in ERR, and the NAK sent. */
    private static void assertRemoteError(Pair pair, SendWr bad, WcStatus expected, NakCode nak) {
        Peer a = pair.a;
        Peer b = pair.b;
        List<Seen> atB = record(b.ctx);
        SendWr after = faa(99, a, 512, b.addr(0), b.mr.rkey(), 1);
        a.qp.postSend(bad.wrId(98).sendFlags(SendFlags.SIGNALED).next(after));
        WorkCompletion first = pair.await(a.cq);
        assertEquals(98, first.wrId());
        assertEquals(expected, first.status(), first.toString());
        assertEquals(bad.opcode().completionOpcode(), first.opcode());
        WorkCompletion second = pair.await(a.cq);
        assertEquals(99, second.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, second.status(), "the WR after the error is flushed");
        assertEquals(QpState.ERR, a.qp.state());
        assertEquals(QpState.ERR, b.qp.state(), "class C: the responder QP goes to ERR too");
        List<Seen> naks = only(atB, true, Opcode.RC_ACKNOWLEDGE.code());
        assertEquals(1, naks.size());
        assertEquals(AethSyndrome.nak(nak), Aeth.syndrome(naks.getFirst().seg(), Opcode.RC_ACKNOWLEDGE.aethOffset()));
        assertEquals(0, b.buf.get(U64, 0), "nothing executed");
    }

    @Test
    void shouldNakAnAtomicOnARegionWithoutRemoteAtomicBadFlow() {
        try (Pair pair = pair(link())) {
            MemorySegment seg = pair.b.arena.allocate(4096, 8);
            seg.set(U64, 0, 55);
            try (MemoryRegion noAtomic = pair.b.pd.registerMemory(seg, Peer.ALL_ACCESS)) {
                assertRemoteError(pair, faa(0, pair.a, 0, noAtomic.address(), noAtomic.rkey(), 1),
                        WcStatus.REM_ACCESS_ERR, NakCode.REMOTE_ACCESS_ERROR);
            }
            assertEquals(55, seg.get(U64, 0));
        }
    }

    @Test
    void shouldNakAnAtomicToAQpWithoutRemoteAtomicAsInvalidRequestBadFlow() {
        try (Pair pair = pair(new Peer.Link())) { // QP access: REMOTE_WRITE | REMOTE_READ
            assertRemoteError(pair, faa(0, pair.a, 0, pair.b.addr(0), pair.b.mr.rkey(), 1),
                    WcStatus.REM_INV_REQ_ERR, NakCode.INVALID_REQUEST);
        }
    }

    @Test
    void shouldNakAnAtomicWithABadRkeyBadFlow() {
        try (Pair pair = pair(link())) {
            assertRemoteError(pair, cas(0, pair.a, 0, pair.b.addr(0), pair.b.mr.rkey() ^ 0x4400, 0, 1),
                    WcStatus.REM_ACCESS_ERR, NakCode.REMOTE_ACCESS_ERROR);
        }
    }

    @Test
    void shouldNakAnAtomicPastTheEndOfTheRegionBadFlow() {
        try (Pair pair = pair(link())) {
            long end = pair.b.mr.address() + pair.b.mr.length();
            assertRemoteError(pair, faa(0, pair.a, 0, end, pair.b.mr.rkey(), 1), WcStatus.REM_ACCESS_ERR,
                    NakCode.REMOTE_ACCESS_ERROR);
        }
    }

    @Test
    void shouldNakAnAtomicBeyondMaxDestRdAtomicAfterAnsweringTheOnesBeforeBadFlow() {
        Peer.Link link = link();
        link.maxRd = 4;
        try (Pair pair = pair(link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            // b grants one responder resource while a may send four: the second atomic of the burst has none
            b.qp.modify(new QpAttr().qpState(QpState.SQD), EnumSet.of(QpAttrMask.STATE));
            b.qp.modify(new QpAttr().qpState(QpState.SQD).maxDestRdAtomic(1),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.MAX_DEST_RD_ATOMIC));
            b.qp.modify(new QpAttr().qpState(QpState.RTS), EnumSet.of(QpAttrMask.STATE));
            List<Seen> atB = record(b.ctx);
            for (int i = 0; i < 3; i++) {
                a.qp.postSend(faa(i, a, 8L * i, b.addr(0), b.mr.rkey(), 1));
            }
            List<WorkCompletion> wcs = pair.awaitN(a.cq, 3);
            assertAtomicDone(wcs.get(0), 0, WcOpcode.FETCH_ADD);
            assertEquals(WcStatus.REM_INV_REQ_ERR, wcs.get(1).status(), wcs.get(1).toString());
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(2).status());
            assertEquals(1, b.buf.get(U64, 0), "only the first atomic ran");
            assertEquals(QpState.ERR, a.qp.state());
            assertEquals(QpState.ERR, b.qp.state());
            List<Seen> out = atB.stream().filter(Seen::tx).toList();
            assertEquals(Opcode.RC_ATOMIC_ACKNOWLEDGE.code(), out.get(0).opcode(), "the owed acknowledge first");
            assertEquals(AethSyndrome.nak(NakCode.INVALID_REQUEST),
                    Aeth.syndrome(out.get(1).seg(), Opcode.RC_ACKNOWLEDGE.aethOffset()), "then the NAK");
        }
    }

    @Test
    void shouldNakAMisalignedAtomicAtTheResponderAsInvalidRequestBadFlow() throws IOException {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atB = record(b.ctx);
            // a post cannot produce it (EINVAL); a peer that sends one anyway gets rxe's misaligned-atomic NAK
            int psn = b.qp.query(new QpAttr()).rqPsn();
            Opcode op = Opcode.RC_FETCH_ADD;
            byte[] pkt = new byte[op.headerLength() + Icrc.LENGTH];
            MemorySegment s = MemorySegment.ofArray(pkt);
            Bth.write(s, 0, op.code(), false, false, 0, 0xFFFF, b.qp.qpNum(), true, psn);
            AtomicEth.write(s, op.atomicEthOffset(), b.addr(4), b.mr.rkey(), 1, 0);
            inject(A, B, pkt);
            awaitCondition(pair, "b NAKs the misaligned atomic", () -> b.qp.state() == QpState.ERR);
            List<Seen> naks = only(atB, true, Opcode.RC_ACKNOWLEDGE.code());
            assertEquals(1, naks.size());
            assertEquals(psn, Bth.psn(naks.getFirst().seg(), 0));
            assertEquals(AethSyndrome.nak(NakCode.INVALID_REQUEST),
                    Aeth.syndrome(naks.getFirst().seg(), Opcode.RC_ACKNOWLEDGE.aethOffset()));
            assertEquals(0, b.buf.get(U64, 0));
            assertNotEquals(QpState.ERR, a.qp.state(), "a NAK for a PSN a never sent is dropped");
        }
    }
}
