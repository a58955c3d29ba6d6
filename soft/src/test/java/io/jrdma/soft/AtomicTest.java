package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AtomicCap;
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
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.AtomicAckEth;
import io.jrdma.wire.AtomicEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.NakCode;
import io.jrdma.wire.Opcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RC atomics on the soft device (IBA 9.4.5, kernel rxe): CmpSwap and FetchAdd on a host-order u64, the original
 * value in the requester's 8-byte buffer, the wire format against kernel rxe captures, exactly-once execution
 * when an ATOMIC ACKNOWLEDGE is lost (the duplicate is answered from the responder's resource), class D drop of a
 * duplicate whose resource was reused, the checks at post and at the responder with their NAKs and flushes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicTest {

    private static final String A = "127.0.30.1";
    private static final String B = "127.0.30.2";
    private static final int ACCESS = Peer.ALL_ACCESS | Access.REMOTE_ATOMIC;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED; // host order, as libibverbs

    private static Peer.Link link() {
        Peer.Link l = new Peer.Link();
        l.qpAccess |= Access.REMOTE_ATOMIC;
        return l;
    }

    private static Pair pair(Peer.Link link) {
        return new Pair(A, B, Threading.INVOKER, NanoClock.SYSTEM, 1 << 16, ACCESS, Peer.defaultCap(), link);
    }

    private static SendWr faa(long wrId, Peer local, long localOff, long remoteAddr, int rkey, long add) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(local.addr(localOff), 8, local.mr.lkey())).remoteAddr(remoteAddr).rkey(rkey)
                .compareAdd(add);
    }

    private static SendWr cas(long wrId, Peer local, long localOff, long remoteAddr, int rkey, long compare,
            long swap) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(local.addr(localOff), 8, local.mr.lkey())).remoteAddr(remoteAddr).rkey(rkey)
                .compareAdd(compare).swap(swap);
    }

    private static void assertAtomicDone(WorkCompletion wc, long wrId, WcOpcode opcode) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(wrId, wc.wrId());
        assertEquals(opcode, wc.opcode());
        assertEquals(8, wc.byteLen(), "byte_len of an atomic is its 8-byte buffer");
    }

    /** The packets a device sent or received, copied, with their direction. */
    private record Seen(boolean tx, byte[] ib) {
        int opcode() {
            return ib[0] & 0xFF;
        }

        MemorySegment seg() {
            return MemorySegment.ofArray(ib);
        }
    }

    private static List<Seen> record(SoftContext ctx) {
        List<Seen> seen = new ArrayList<>();
        ctx.tap((tx, p, off, len, sip, sport, dip, dport) ->
                seen.add(new Seen(tx, p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE))));
        return seen;
    }

    private static List<Seen> only(List<Seen> all, boolean tx, int opcode) {
        return all.stream().filter(s -> s.tx() == tx && s.opcode() == opcode).toList();
    }

    // ------------------------------------------------------------------------------------------------- results

    @Test
    void shouldSwapWhenTheCompareValueMatches() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 64, 5);
            a.buf.set(U64, 0, 0x1111);
            a.buf.set(U64, 16, 0x2222);
            a.qp.postSend(cas(1, a, 8, b.addr(64), b.mr.rkey(), 5, 0x0123456789ABCDEFL));
            assertAtomicDone(pair.await(a.cq), 1, WcOpcode.COMP_SWAP);
            assertEquals(5, a.buf.get(U64, 8), "the original value lands in the local buffer");
            assertEquals(0x0123456789ABCDEFL, b.buf.get(U64, 64), "swapped");
            assertEquals(0x1111, a.buf.get(U64, 0), "nothing before the local buffer is touched");
            assertEquals(0x2222, a.buf.get(U64, 16), "nothing after the local buffer is touched");
            assertEquals(0, b.buf.get(U64, 56));
            assertEquals(0, b.buf.get(U64, 72));
        }
    }

    @Test
    void shouldLeaveTheTargetWhenTheCompareValueDiffers() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 64, 0x8000000000000000L);
            a.qp.postSend(cas(2, a, 8, b.addr(64), b.mr.rkey(), 0x7FFFFFFFFFFFFFFFL, 42));
            assertAtomicDone(pair.await(a.cq), 2, WcOpcode.COMP_SWAP);
            assertEquals(0x8000000000000000L, a.buf.get(U64, 8));
            assertEquals(0x8000000000000000L, b.buf.get(U64, 64), "no swap on a miss");
        }
    }

    @Test
    void shouldFetchAndAddModulo2To64() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 128, 0xFFFFFFFFFFFFFFFEL);
            a.qp.postSend(faa(3, a, 0, b.addr(128), b.mr.rkey(), 3));
            assertAtomicDone(pair.await(a.cq), 3, WcOpcode.FETCH_ADD);
            assertEquals(0xFFFFFFFFFFFFFFFEL, a.buf.get(U64, 0));
            assertEquals(1, b.buf.get(U64, 128), "wrapped around");
            a.qp.postSend(faa(4, a, 8, b.addr(128), b.mr.rkey(), -2));
            assertAtomicDone(pair.await(a.cq), 4, WcOpcode.FETCH_ADD);
            assertEquals(1, a.buf.get(U64, 8));
            assertEquals(-1, b.buf.get(U64, 128), "an addend of 2^64 - 2 subtracts 2");
        }
    }

    @Test
    void shouldScatterTheOriginalValueOverTwoSgesInHostOrder() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            b.buf.set(U64, 0, 0x1122334455667788L);
            // rxe takes any list of 8 bytes in total; the value is copied as its 8 host-order bytes
            a.qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(100), 4, a.mr.lkey()), new Sge(a.addr(200), 4, a.mr.lkey()))
                    .remoteAddr(b.addr(0)).rkey(b.mr.rkey()).compareAdd(1));
            assertAtomicDone(pair.await(a.cq), 5, WcOpcode.FETCH_ADD);
            byte[] host = new byte[8];
            MemorySegment.copy(MemorySegment.ofArray(new long[] {0x1122334455667788L}), 0,
                    MemorySegment.ofArray(host), 0, 8);
            byte[] got = new byte[8];
            MemorySegment.copy(a.buf, 100, MemorySegment.ofArray(got), 0, 4);
            MemorySegment.copy(a.buf, 200, MemorySegment.ofArray(got), 4, 4);
            assertArrayEquals(host, got);
        }
    }

    @Test
    void shouldReportAtomicCapHcaAsRxe() {
        try (Pair pair = pair(link())) {
            assertEquals(AtomicCap.HCA, pair.a.ctx.queryDevice().atomicCap());
        }
    }

    // ------------------------------------------------------------------------------------------------- wire

    @Test
    void shouldCarryTheOperandsInAtomicEthAndTheOriginalInAtomicAckEth() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> seen = record(a.ctx);
            b.buf.set(U64, 64, 0x0102030405060708L);
            a.qp.postSend(cas(6, a, 0, b.addr(64), b.mr.rkey(), 0x0102030405060708L, 0x1112131415161718L));
            assertAtomicDone(pair.await(a.cq), 6, WcOpcode.COMP_SWAP);

            List<Seen> requests = only(seen, true, Opcode.RC_COMPARE_SWAP.code());
            assertEquals(1, requests.size(), "one packet, one PSN");
            MemorySegment req = requests.getFirst().seg();
            int at = Opcode.RC_COMPARE_SWAP.atomicEthOffset();
            assertEquals(12 + 28 + 4, req.byteSize(), "BTH, AtomicETH and ICRC; no payload");
            assertTrue(Bth.ackReq(req, 0), "an atomic request asks for its acknowledge");
            assertEquals(0, Bth.padCount(req, 0));
            assertEquals(b.qp.qpNum(), Bth.destQp(req, 0));
            assertEquals(b.addr(64), AtomicEth.va(req, at));
            assertEquals(b.mr.rkey(), AtomicEth.rkey(req, at));
            assertEquals(0x1112131415161718L, AtomicEth.swapAdd(req, at), "swap data first");
            assertEquals(0x0102030405060708L, AtomicEth.compare(req, at), "compare data second");
            // big-endian on the wire: the swap field's first byte is the value's most significant byte
            assertEquals(0x11, req.get(ValueLayout.JAVA_BYTE, at + AtomicEth.SWAP_ADD));

            List<Seen> acks = only(seen, false, Opcode.RC_ATOMIC_ACKNOWLEDGE.code());
            assertEquals(1, acks.size());
            MemorySegment ack = acks.getFirst().seg();
            assertEquals(12 + 4 + 8 + 4, ack.byteSize());
            assertEquals(Bth.psn(req, 0), Bth.psn(ack, 0), "acknowledged at the request's PSN");
            assertEquals(a.qp.qpNum(), Bth.destQp(ack, 0));
            int aeth = Opcode.RC_ATOMIC_ACKNOWLEDGE.aethOffset();
            assertEquals(AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED), Aeth.syndrome(ack, aeth));
            assertEquals(1, Aeth.msn(ack, aeth), "the first message of the connection");
            assertEquals(0x0102030405060708L,
                    AtomicAckEth.origData(ack, Opcode.RC_ATOMIC_ACKNOWLEDGE.atomicAckEthOffset()));
            assertEquals(0x1112131415161718L, b.buf.get(U64, 64));
        }
    }

    @Test
    void shouldSendAtomicRequestsByteForByteAsKernelRxe() throws IOException {
        for (String file : new String[] {"ib_atomic_cas.pcap", "ib_atomic_fadd.pcap"}) {
            List<RxeWireCompatTest.Captured> all = RxeWireCompatTest.packets(file);
            boolean isCas = file.contains("cas");
            Opcode op = isCas ? Opcode.RC_COMPARE_SWAP : Opcode.RC_FETCH_ADD;
            byte[] want = RxeWireCompatTest.first(all, op.code()).ib();
            MemorySegment w = MemorySegment.ofArray(want);
            int at = op.atomicEthOffset();
            Peer.Link link = link();
            link.psn = Bth.psn(w, 0);
            try (Peer a = new Peer(A, Threading.INVOKER, new ManualClock(), 1 << 16, ACCESS, Peer.defaultCap());
                 Peer b = new Peer(B, Threading.INVOKER, new ManualClock(), 1 << 16, ACCESS, Peer.defaultCap())) {
                a.connect(Bth.destQp(w, 0), b.ctx.queryGid(1, 1), link);
                List<Seen> seen = record(a.ctx);
                SendWr wr = new SendWr().wrId(1).sendFlags(SendFlags.SIGNALED).sg(new Sge(a.addr(0), 8, a.mr.lkey()))
                        .remoteAddr(AtomicEth.va(w, at)).rkey(AtomicEth.rkey(w, at));
                if (isCas) {
                    wr.opcode(WrOpcode.ATOMIC_CMP_AND_SWP).swap(AtomicEth.swapAdd(w, at))
                            .compareAdd(AtomicEth.compare(w, at));
                } else {
                    wr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(AtomicEth.swapAdd(w, at));
                }
                a.qp.postSend(wr);
                a.ctx.progress();
                List<Seen> sent = only(seen, true, op.code());
                assertEquals(1, sent.size(), file);
                byte[] ours = sent.getFirst().ib();
                assertEquals(want.length, ours.length, file);
                assertArrayEquals(Arrays.copyOf(want, want.length - 4), Arrays.copyOf(ours, ours.length - 4),
                        file + ": bytes before the ICRC differ from kernel rxe's");
            }
        }
    }

    @Test
    void shouldAcknowledgeAtomicsByteForByteAsKernelRxe() throws IOException {
        List<RxeWireCompatTest.Captured> all = RxeWireCompatTest.packets("ib_atomic_cas.pcap");
        byte[] want = RxeWireCompatTest.first(all, Opcode.RC_ATOMIC_ACKNOWLEDGE.code()).ib();
        MemorySegment w = MemorySegment.ofArray(want);
        long orig = AtomicAckEth.origData(w, Opcode.RC_ATOMIC_ACKNOWLEDGE.atomicAckEthOffset());
        Peer.Link link = link();
        link.psn = Bth.psn(w, 0);
        try (Pair pair = new Pair(A, B, Threading.INVOKER, new ManualClock(), 1 << 16, ACCESS, Peer.defaultCap(),
                link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> seen = record(b.ctx);
            b.buf.set(U64, 0, orig); // rxe's target held this host-order value
            a.qp.postSend(cas(1, a, 0, b.addr(0), b.mr.rkey(), 0, 0));
            assertAtomicDone(pair.await(a.cq), 1, WcOpcode.COMP_SWAP);
            List<Seen> acks = only(seen, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code());
            assertEquals(1, acks.size());
            byte[] ours = acks.getFirst().ib();
            byte[] expected = Arrays.copyOf(want, want.length - 4);
            MemorySegment.ofArray(expected).set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                    4, a.qp.qpNum()); // the destination QP is ours, not the capture's
            assertArrayEquals(expected, Arrays.copyOf(ours, ours.length - 4),
                    "ATOMIC ACKNOWLEDGE bytes before the ICRC differ from kernel rxe's");
            // the wire carries the value big-endian; the requester's buffer holds it in host order
            assertEquals(orig, a.buf.get(U64, 0));
            byte[] hostBytes = a.buf.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE);
            byte[] wireBytes = Arrays.copyOfRange(want, 16, 24);
            if (java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN) {
                for (int i = 0; i < 8; i++) {
                    assertEquals(wireBytes[i], hostBytes[7 - i], "byte " + i);
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- duplicates

    @Test
    void shouldExecuteOnceAndReplayTheResultWhenTheAtomicAckIsLost() {
        ManualClock clock = new ManualClock();
        Peer.Link link = link();
        link.timeout = 8;
        try (Pair pair = new Pair(A, B, Threading.INVOKER, clock, 1 << 16, ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atA = record(a.ctx);
            List<byte[]> acksFromB = new ArrayList<>();
            boolean[] corrupted = {false};
            // the wire loses the first ATOMIC ACKNOWLEDGE: its ICRC is broken on the way out, so a drops it
            b.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
                if (tx && (p.get(ValueLayout.JAVA_BYTE, off) & 0xFF) == Opcode.RC_ATOMIC_ACKNOWLEDGE.code()) {
                    acksFromB.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                    if (!corrupted[0]) {
                        corrupted[0] = true;
                        long last = off + len - 1;
                        p.set(ValueLayout.JAVA_BYTE, last, (byte) ~p.get(ValueLayout.JAVA_BYTE, last));
                    }
                }
            });
            b.buf.set(U64, 0, 100);
            a.qp.postSend(faa(7, a, 0, b.addr(0), b.mr.rkey(), 1));
            WorkCompletion wc = awaitStepping(pair, a, clock, Requester.ackTimeoutNs(8) / 4);
            assertAtomicDone(wc, 7, WcOpcode.FETCH_ADD);
            assertEquals(100, a.buf.get(U64, 0), "the replayed original value");
            assertEquals(101, b.buf.get(U64, 0), "executed exactly once");
            assertEquals(1, a.ctx.counters().get(Counter.ICRC_ERR), "the lost acknowledge");
            assertEquals(1, a.ctx.counters().get(Counter.COMPLETER_RETRY_ERR), "one ACK timeout");
            assertEquals(1, b.ctx.counters().get(Counter.DUPLICATE_REQUEST), "the retransmission was a duplicate");
            List<Seen> requests = only(atA, true, Opcode.RC_FETCH_ADD.code());
            assertEquals(2, requests.size());
            assertArrayEquals(requests.get(0).ib(), requests.get(1).ib(), "the same request, same PSN, again");
            assertEquals(2, acksFromB.size());
            assertArrayEquals(Arrays.copyOf(acksFromB.get(0), 24), Arrays.copyOf(acksFromB.get(1), 24),
                    "the replay carries the saved original value at the same PSN");
            assertEquals(QpState.RTS, a.qp.state());
            assertEquals(QpState.RTS, b.qp.state());
        }
    }

    @Test
    void shouldAnswerAReinjectedDuplicateFromItsResourceWithoutExecutingIt() throws IOException {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atB = record(b.ctx);
            b.buf.set(U64, 0, 1000);
            a.qp.postSend(faa(1, a, 0, b.addr(0), b.mr.rkey(), 10));
            assertAtomicDone(pair.await(a.cq), 1, WcOpcode.FETCH_ADD);
            a.qp.postSend(faa(2, a, 8, b.addr(0), b.mr.rkey(), 10));
            assertAtomicDone(pair.await(a.cq), 2, WcOpcode.FETCH_ADD);
            byte[] first = only(atB, false, Opcode.RC_FETCH_ADD.code()).getFirst().ib();

            inject(A, B, first);
            awaitCounter(pair, b, Counter.DUPLICATE_REQUEST, 1);
            awaitCondition(pair, "b answers the duplicate",
                    () -> only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code()).size() == 3);
            List<Seen> acks = only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code());
            assertEquals(3, acks.size(), "two acknowledges and one replay");
            MemorySegment replay = acks.get(2).seg();
            assertEquals(Bth.psn(MemorySegment.ofArray(first), 0), Bth.psn(replay, 0));
            assertEquals(1000, AtomicAckEth.origData(replay, Opcode.RC_ATOMIC_ACKNOWLEDGE.atomicAckEthOffset()),
                    "the first atomic's original value, saved");
            assertEquals(1020, b.buf.get(U64, 0), "the duplicate was not executed");
            assertEquals(1000, a.buf.get(U64, 0));
            assertEquals(1010, a.buf.get(U64, 8));
            assertEquals(QpState.RTS, a.qp.state());
            assertEquals(QpState.RTS, b.qp.state());
            pair.assertNoCompletion(a.cq, TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Test
    void shouldDropADuplicateWhoseResourceTheRingHasReused() throws IOException {
        Peer.Link link = link();
        link.maxRd = 1; // max_dest_rd_atomic 1: the second atomic takes the first one's resource
        try (Pair pair = pair(link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atB = record(b.ctx);
            a.qp.postSend(faa(1, a, 0, b.addr(0), b.mr.rkey(), 1));
            assertAtomicDone(pair.await(a.cq), 1, WcOpcode.FETCH_ADD);
            a.qp.postSend(faa(2, a, 8, b.addr(0), b.mr.rkey(), 1));
            assertAtomicDone(pair.await(a.cq), 2, WcOpcode.FETCH_ADD);
            byte[] first = only(atB, false, Opcode.RC_FETCH_ADD.code()).getFirst().ib();
            int sentBefore = only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code()).size();

            inject(A, B, first);
            awaitCounter(pair, b, Counter.DUPLICATE_REQUEST, 1);
            pair.assertNoCompletion(a.cq, TimeUnit.MILLISECONDS.toNanos(50));
            assertEquals(sentBefore, only(atB, true, Opcode.RC_ATOMIC_ACKNOWLEDGE.code()).size(),
                    "no answer: the resource is gone (class D, dropped as rxe does)");
            assertEquals(2, b.buf.get(U64, 0), "and not executed again");
            assertEquals(QpState.RTS, b.qp.state());
        }
    }

    // ------------------------------------------------------------------------------------------------- limits

    @Test
    void shouldKeepAtMostMaxRdAtomicAtomicsOutstanding() {
        Peer.Link link = link();
        link.maxRd = 2;
        try (Pair pair = pair(link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atA = record(a.ctx);
            for (int i = 0; i < 5; i++) {
                a.qp.postSend(faa(i, a, 8L * i, b.addr(0), b.mr.rkey(), 1)); // b is not driven yet
            }
            assertEquals(2, only(atA, true, Opcode.RC_FETCH_ADD.code()).size(), "max_rd_atomic 2");
            List<WorkCompletion> wcs = pair.awaitN(a.cq, 5);
            for (int i = 0; i < 5; i++) {
                assertAtomicDone(wcs.get(i), i, WcOpcode.FETCH_ADD);
                assertEquals(i, a.buf.get(U64, 8L * i));
            }
            assertEquals(5, b.buf.get(U64, 0));
            assertEquals(5, only(atA, true, Opcode.RC_FETCH_ADD.code()).size(), "none retransmitted");
        }
    }

    @Test
    void shouldHoldAFencedRequestUntilTheAtomicIsAcknowledged() {
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            List<Seen> atA = record(a.ctx);
            b.buf.set(U64, 0, 7);
            a.qp.postSend(faa(1, a, 0, b.addr(0), b.mr.rkey(), 1).sendFlags(0));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ)
                    .sendFlags(SendFlags.SIGNALED | SendFlags.FENCE).sg(new Sge(a.addr(64), 8, a.mr.lkey()))
                    .remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
            assertEquals(0, only(atA, true, Opcode.RC_RDMA_READ_REQUEST.code()).size(),
                    "the fenced READ waits while the atomic is outstanding");
            WorkCompletion wc = pair.await(a.cq);
            assertEquals(2, wc.wrId(), "the unsignaled atomic completes silently");
            assertEquals(WcOpcode.RDMA_READ, wc.opcode());
            assertEquals(8, a.buf.get(U64, 64), "the READ sees the atomic's result");
            assertEquals(7, a.buf.get(U64, 0));
            int ackAt = -1;
            int readAt = -1;
            for (int i = 0; i < atA.size(); i++) {
                Seen s = atA.get(i);
                if (!s.tx() && s.opcode() == Opcode.RC_ATOMIC_ACKNOWLEDGE.code()) {
                    ackAt = i;
                } else if (s.tx() && s.opcode() == Opcode.RC_RDMA_READ_REQUEST.code() && readAt < 0) {
                    readAt = i;
                }
            }
            assertTrue(ackAt >= 0 && readAt > ackAt, "READ request sent after the ATOMIC ACKNOWLEDGE arrived");
        }
    }

    @Test
    void shouldNotAllocateOnTheAtomicPathAfterWarmUp() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        try (Pair pair = pair(link())) {
            Peer a = pair.a;
            Peer b = pair.b;
            SendWr add = faa(1, a, 0, b.addr(0), b.mr.rkey(), 1);
            SendWr swap = cas(2, a, 8, b.addr(8), b.mr.rkey(), 0, 0);
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
            int iterations = 2000;
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 4; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < iterations; i++) {
                    a.qp.postSend(add);
                    a.qp.postSend(swap);
                    int done = 0;
                    for (long spins = 0; done < 2; spins++) {
                        b.ctx.progress();
                        int n = a.cq.poll(wcs);
                        for (int k = 0; k < n; k++) {
                            if (wcs[k].status() != WcStatus.SUCCESS) {
                                throw new AssertionError(wcs[k].toString());
                            }
                        }
                        done += n;
                        if (spins > 50_000_000L) {
                            throw new AssertionError("stuck at iteration " + i);
                        }
                    }
                }
                if (round > 0) { // round 0 is the warm-up
                    best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
                }
            }
            assertTrue(best < 256, "atomic path allocated " + best + " bytes in " + iterations + " iterations");
            assertEquals(4L * iterations, b.buf.get(U64, 0));
            assertEquals(4L * iterations - 1, a.buf.get(U64, 0));
        }
    }

    // ------------------------------------------------------------------------------------------------- bad flow

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

    // ------------------------------------------------------------------------------------------------- helpers

    private static WorkCompletion awaitStepping(Pair pair, Peer p, ManualClock clock, long stepNs) {
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

    private static void awaitCounter(Pair pair, Peer p, Counter c, long value) {
        awaitCondition(pair, c.rxeName() + " = " + value, () -> p.ctx.counters().get(c) == value);
    }

    private static void awaitCondition(Pair pair, String what, BooleanSupplier condition) {
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
    private static void inject(String from, String to, byte[] ib) throws IOException {
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
