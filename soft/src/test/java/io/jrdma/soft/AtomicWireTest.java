package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.AtomicAckEth;
import io.jrdma.wire.AtomicEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Opcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RC atomics on the wire: the operands in AtomicETH and the original value in AtomicAckETH, requests and
 * acknowledges byte for byte as kernel rxe's captures.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicWireTest extends AtomicFixture {

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
}
