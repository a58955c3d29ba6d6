package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.RxeWireCompatTest.Captured;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Reth;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Byte compatibility of UD and UC requests with kernel rxe. UD: the engine reproduces the first UD SEND of
 * ud_pingpong.pcap (same QPN, PSN, Q_Key, payload) byte for byte up to the ICRC, from the UDP source port rxe gave
 * that QPN. UC: the captures hold no UC traffic, but rxe builds a UC packet exactly as the RC one (init_req_packet)
 * except for the opcode (RC code + 0x20) and the AckReq bit, which rxe never sets on UC; so the RC requests of the
 * captures, so rewritten, are what rxe would send on UC, and the engine must reproduce them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnreliableWireCompatTest {

    private static final String A = "127.0.31.11";
    private static final String B = "127.0.31.12";

    /** A device with a QP of {@code type} numbered {@code qpn} (smaller numbers are taken by closed fillers). */
    private static final class Node implements AutoCloseable {
        final SoftContext ctx;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final Arena arena = Arena.ofShared();
        final MemorySegment buf;
        final MemoryRegion mr;
        final QueuePair qp;
        final List<byte[]> sent = new ArrayList<>();
        final List<Integer> ports = new ArrayList<>();

        Node(String ip, QpType type, int qpn) {
            ctx = SoftDevice.builder().name("w-" + ip).address(ip).threading(Threading.INVOKER).build().open();
            pd = ctx.allocPd();
            cq = ctx.createCq(64);
            buf = arena.allocate(1 << 16, 4096);
            mr = pd.registerMemory(buf, UnreliablePeer.ACCESS);
            List<QueuePair> fillers = new ArrayList<>();
            QueuePair q = pd.createQp(init(type));
            while (q.qpNum() < qpn) {
                fillers.add(q);
                q = pd.createQp(init(type));
            }
            qp = q;
            fillers.forEach(QueuePair::close);
            ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
                if (tx) {
                    sent.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                    ports.add(sport);
                }
            });
        }

        private QpInitAttr init(QpType type) {
            return new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq).cap(UnreliablePeer.cap());
        }

        @Override
        public void close() {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
            ctx.close();
            arena.close();
        }
    }

    private static AhAttr route(String toIp) throws UnknownHostException {
        return new AhAttr().isGlobal(true).dgid(Gid.fromInet(InetAddress.getByName(toIp))).sgidIndex(1).portNum(1)
                .hopLimit(64);
    }

    @Test
    void shouldSendTheUdDatagramKernelRxeSends() throws IOException {
        List<Captured> all = RxeWireCompatTest.packets("ud_pingpong.pcap");
        Captured want = RxeWireCompatTest.first(all, Opcode.UD_SEND_ONLY.code());
        MemorySegment w = MemorySegment.ofArray(want.ib());
        Opcode op = Opcode.UD_SEND_ONLY;
        int srcQp = Deth.srcQp(w, op.dethOffset());
        int payload = want.ib().length - op.headerLength() - 4 - Bth.padCount(w, 0);
        try (Node a = new Node(A, QpType.UD, srcQp)) {
            assertEquals(srcQp, a.qp.qpNum());
            a.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x5A5A5A5A),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            a.qp.modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
            a.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(Bth.psn(w, 0)), EnumSet.of(QpAttrMask.STATE,
                    QpAttrMask.SQ_PSN));
            MemorySegment.copy(w, op.headerLength(), a.buf, 0, payload);
            try (AddressHandle ah = a.pd.createAh(route(B))) {
                a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .sg(new Sge(a.mr.address(), payload, a.mr.lkey()))
                        .ud(ah, Bth.destQp(w, 0), Deth.qkey(w, op.dethOffset())));
                a.ctx.progress();
            }
            assertEquals(1, a.sent.size());
            byte[] ours = a.sent.getFirst();
            assertEquals(want.ib().length, ours.length);
            int n = ours.length - 4;
            assertArrayEquals(Arrays.copyOf(want.ib(), n), Arrays.copyOf(ours, n),
                    "UD SEND bytes before the ICRC differ from kernel rxe's");
            assertEquals(want.srcPort(), (int) a.ports.getFirst(), "rxe's UDP source port for the QPN");
        }
    }

    @ParameterizedTest(name = "{0}: RC opcode {1} as UC")
    @CsvSource({
        "rc_pingpong_small.pcap, 4, SEND",
        "rc_pingpong_seg.pcap, 0, SEND",
        "imm.pcap, 5, SEND_WITH_IMM",
        "imm.pcap, 11, RDMA_WRITE_WITH_IMM",
        "ib_write_bw.pcap, 6, RDMA_WRITE",
    })
    void shouldSendTheUcPacketsKernelRxeWouldSend(String file, int rcOpcode, WrOpcode wrOpcode) throws IOException {
        List<Captured> all = RxeWireCompatTest.packets(file);
        Captured first = RxeWireCompatTest.first(all, rcOpcode);
        MemorySegment f = MemorySegment.ofArray(first.ib());
        int destQpn = Bth.destQp(f, 0);
        int psn = Bth.psn(f, 0);
        // the packets of the message: consecutive PSNs to the same QP up to the end of the message
        List<byte[]> message = new ArrayList<>();
        int expect = psn;
        for (Captured c : all) {
            MemorySegment s = MemorySegment.ofArray(c.ib());
            Opcode o = Opcode.of(c.ib()[0] & 0xFF);
            if (o == null || o.isResponse() || Bth.destQp(s, 0) != destQpn || Bth.psn(s, 0) != expect) {
                continue;
            }
            message.add(c.ib());
            expect = (expect + 1) & 0xFFFFFF;
            if (o.isEnd()) {
                break;
            }
        }
        // the requester's QPN: the destination of the first response to this PSN
        int srcQpn = 17;
        for (Captured c : all) {
            MemorySegment s = MemorySegment.ofArray(c.ib());
            Opcode o = Opcode.of(c.ib()[0] & 0xFF);
            if (o != null && o.isResponse() && Bth.psn(s, 0) >= psn) {
                srcQpn = Bth.destQp(s, 0);
                break;
            }
        }
        assertTrue(srcQpn >= 17 && srcQpn < 64, "requester QPN " + srcQpn);
        Opcode rc = Opcode.of(rcOpcode);
        long length = 0;
        long remoteAddr = 0;
        int rkey = 0;
        try (Node a = new Node(A, QpType.UC, srcQpn)) {
            for (byte[] p : message) {
                MemorySegment s = MemorySegment.ofArray(p);
                Opcode o = Opcode.of(p[0] & 0xFF);
                int pay = p.length - o.headerLength() - 4 - Bth.padCount(s, 0);
                MemorySegment.copy(s, o.headerLength(), a.buf, length, pay);
                length += pay;
            }
            if (rc.hasReth()) {
                remoteAddr = Reth.va(f, rc.rethOffset());
                rkey = Reth.rkey(f, rc.rethOffset());
                assertEquals(length, Reth.dmaLength(f, rc.rethOffset()) & 0xFFFFFFFFL);
            }
            a.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            a.qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(destQpn).rqPsn(0)
                    .ahAttr(route(B)), EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                    QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN));
            a.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(psn), EnumSet.of(QpAttrMask.STATE,
                    QpAttrMask.SQ_PSN));
            SendWr wr = new SendWr().wrId(1).opcode(wrOpcode).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.mr.address(), (int) length, a.mr.lkey())).remote(remoteAddr, rkey);
            byte[] last = message.getLast();
            Opcode lastOp = Opcode.of(last[0] & 0xFF);
            if (lastOp.hasImm()) {
                wr.immData(ImmDt.imm(MemorySegment.ofArray(last), lastOp.immOffset()));
            }
            a.qp.postSend(wr);
            a.ctx.progress();
            assertEquals(message.size(), a.sent.size(), "packets of the message");
            for (int i = 0; i < message.size(); i++) {
                byte[] want = message.get(i).clone();
                want[0] = (byte) (want[0] | 0x20); // the UC opcode of the same operation and position
                want[8] = (byte) (want[8] & 0x7F); // rxe sets no AckReq on UC
                byte[] ours = a.sent.get(i);
                assertEquals(want.length, ours.length, "length of packet " + i);
                int n = want.length - 4;
                assertArrayEquals(Arrays.copyOf(want, n), Arrays.copyOf(ours, n), "packet " + i + " before the ICRC");
            }
            if (srcQpn == a.qp.qpNum()) {
                assertEquals(first.srcPort(), (int) a.ports.getFirst(), "UDP source port from the QPN pair");
            }
        }
    }
}
