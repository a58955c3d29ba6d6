package io.jrdma.soft;

import static io.jrdma.soft.UnreliablePeer.assertNoCompletion;
import static io.jrdma.soft.UnreliablePeer.await;
import static io.jrdma.soft.UnreliablePeer.awaitCounter;
import static io.jrdma.soft.UnreliablePeer.awaitN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.Grh;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.Opcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * UD between soft devices on 127.0.32.x: datagrams both ways with the GRH area checked against the real IPv4 header
 * fields, the sender's QPN and immediate data; Q_Key checks and the privileged Q_Key; messages beyond the port MTU;
 * address handles (many, PD ownership, lifetime); one QP talking to two peers; the silent drops, each counted; and
 * SQE.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UdTest {

    private static final int QKEY = 0x11111111;
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static UnreliablePeer a;
    private static UnreliablePeer b;
    private static AddressHandle aToB;
    private static AddressHandle bToA;
    private static long wrIds = 1000;

    @BeforeAll
    static void open() {
        a = new UnreliablePeer("127.0.32.1", QpType.UD, 1 << 20, 0);
        b = new UnreliablePeer("127.0.32.2", QpType.UD, 1 << 20, 0);
        a.readyUd(QKEY, 0x10);
        b.readyUd(QKEY, 0x20);
        aToB = a.ahTo(b);
        bToA = b.ahTo(a);
    }

    @AfterAll
    static void close() {
        a.close();
        b.close();
    }

    private static int ip(String dotted) throws Exception {
        return Link.ipv4(InetAddress.getByName(dotted));
    }

    @ParameterizedTest(name = "{0} bytes, imm {1}")
    @CsvSource({"0, false", "1, true", "500, false", "1023, true", "4096, false", "4096, true"})
    void shouldSendDatagramsBothWaysWithGrhSourceQpAndImmediate(int size, boolean imm) throws Exception {
        datagram(a, b, aToB, size, imm, ip("127.0.32.1"), ip("127.0.32.2"));
        datagram(b, a, bToA, size, imm, ip("127.0.32.2"), ip("127.0.32.1"));
    }

    /** One datagram x -> y, every field of both completions, the GRH and the packet on the wire checked. */
    static void datagram(UnreliablePeer x, UnreliablePeer y, AddressHandle ah, int size, boolean imm, int xIp,
            int yIp) {
        for (int i = 0; i < size; i++) {
            x.buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 3 + size + (imm ? 1 : 0)));
        }
        long at = 256 << 10;
        y.buf.asSlice(at, 8192).fill((byte) 0x77);
        long recvId = wrIds++;
        y.qp.postRecv(new RecvWr().wrId(recvId).sg(y.sge(at, 40 + size + 100)));
        List<byte[]> sent = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        List<Integer> received = new ArrayList<>();
        x.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (tx) {
                sent.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                ports.add(sport);
            }
        });
        y.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (!tx) {
                received.add(len);
            }
        });
        long id = wrIds++;
        try {
            x.qp.postSend(new SendWr().wrId(id).opcode(imm ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND).immData(0xCAFE)
                    .sendFlags(SendFlags.SIGNALED).sg(size == 0 ? new Sge[0] : new Sge[] {x.sge(0, size)})
                    .ud(ah, y.qp.qpNum(), QKEY));
            WorkCompletion s = await(x.cq, x, y);
            assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
            assertEquals(id, s.wrId());
            assertEquals(WcOpcode.SEND, s.opcode());
            WorkCompletion r = await(y.cq, x, y);
            assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
            assertEquals(recvId, r.wrId());
            assertEquals(WcOpcode.RECV, r.opcode());
            assertEquals(Grh.LENGTH + size, r.byteLen(), "byte_len counts the 40-byte GRH");
            assertEquals(WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), r.wcFlags());
            if (imm) {
                assertEquals(0xCAFE, r.immData());
            }
            assertEquals(x.qp.qpNum(), r.srcQp());
            assertEquals(y.qp.qpNum(), r.qpNum());
            assertEquals(0, r.pkeyIndex());
        } finally {
            x.ctx.tap(null);
            y.ctx.tap(null);
        }
        // the packet
        assertEquals(1, sent.size());
        MemorySegment p = MemorySegment.ofArray(sent.getFirst());
        Opcode op = imm ? Opcode.UD_SEND_ONLY_WITH_IMMEDIATE : Opcode.UD_SEND_ONLY;
        assertEquals(op.code(), Bth.opcode(p, 0));
        assertEquals(y.qp.qpNum(), Bth.destQp(p, 0));
        assertFalse(Bth.ackReq(p, 0));
        assertEquals(0xFFFF, Bth.pkey(p, 0));
        assertEquals(QKEY, Deth.qkey(p, op.dethOffset()));
        assertEquals(x.qp.qpNum(), Deth.srcQp(p, op.dethOffset()));
        if (imm) {
            assertEquals(0xCAFE, ImmDt.imm(p, op.immOffset()));
        }
        assertEquals(Link.qpSourcePort(x.qp.qpNum()), (int) ports.getFirst(), "rxe's per-QP UDP source port");
        // the GRH area: 20 zero bytes, then the IPv4 header of that packet as it crossed the wire
        MemorySegment g = y.buf.asSlice(at, Grh.LENGTH);
        assertEquals(-1, g.asSlice(0, 20).mismatch(MemorySegment.ofArray(new byte[20])));
        int ibLen = received.getFirst();
        assertEquals(sent.getFirst().length, ibLen);
        assertEquals(0x45, g.get(ValueLayout.JAVA_BYTE, 20) & 0xFF, "IPv4, 20-byte header");
        assertEquals(0, g.get(ValueLayout.JAVA_BYTE, 21), "TOS");
        assertEquals(20 + 8 + ibLen, g.get(BE16, 22) & 0xFFFF, "total length");
        assertEquals(0, g.get(BE16, 24), "IPv4 ID: jrdma sends from DF sockets, for which Linux writes 0");
        assertEquals(0x4000, g.get(BE16, 26) & 0xFFFF, "DF, no fragment offset");
        assertEquals(64, g.get(ValueLayout.JAVA_BYTE, 28), "TTL");
        assertEquals(17, g.get(ValueLayout.JAVA_BYTE, 29), "protocol UDP");
        int sum = 0;
        for (int i = 20; i < 40; i += 2) {
            sum += g.get(BE16, i) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        assertEquals(0xFFFF, sum, "the header checksum verifies");
        assertEquals(xIp, g.get(BE32, 32), "source address");
        assertEquals(yIp, g.get(BE32, 36), "destination address");
        assertEquals(-1, x.buf.asSlice(0, size).mismatch(y.buf.asSlice(at + Grh.LENGTH, size)), "payload");
        assertEquals((byte) 0x77, y.buf.get(ValueLayout.JAVA_BYTE, at + Grh.LENGTH + size), "wrote past the data");
    }

    @Test
    void shouldDropAndCountAWrongQkey() {
        long viol = b.count(Counter.QKEY_VIOLATIONS);
        b.qp.postRecv(new RecvWr().wrId(1).sg(b.sge(0, 4096)));
        a.qp.postSend(new SendWr().wrId(2).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 64)).ud(aToB, b.qp.qpNum(),
                QKEY + 1));
        assertEquals(WcStatus.SUCCESS, await(a.cq, a, b).status(), "the sender cannot tell");
        awaitCounter(b, Counter.QKEY_VIOLATIONS, viol + 1, a, b);
        assertNoCompletion(b.cq, 20, a, b);
        a.qp.postSend(new SendWr().wrId(3).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 64)).ud(aToB, b.qp.qpNum(),
                QKEY));
        await(a.cq, a, b);
        WorkCompletion r = await(b.cq, a, b);
        assertEquals(1, r.wrId(), "the receive WQE was kept");
        assertEquals(104, r.byteLen());
    }

    @Test
    void shouldTakeTheQpsOwnQkeyForAPrivilegedRemoteQkey() {
        try (UnreliablePeer c = new UnreliablePeer("127.0.32.3", QpType.UD, 1 << 16, 0)) {
            c.readyUd(0x22222222, 0);
            AddressHandle cToB = c.ahTo(b);
            List<Integer> qkeys = new ArrayList<>();
            c.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
                if (tx) {
                    qkeys.add(Deth.qkey(p, off + Opcode.UD_SEND_ONLY.dethOffset()));
                }
            });
            long viol = b.count(Counter.QKEY_VIOLATIONS);
            b.qp.postRecv(new RecvWr().wrId(5).sg(b.sge(0, 4096)));
            // high bit set: c's own Q_Key 0x22222222 goes on the wire, which b refuses
            c.qp.postSend(new SendWr().wrId(1).sendFlags(SendFlags.SIGNALED).sg(c.sge(0, 8))
                    .ud(cToB, b.qp.qpNum(), 0x80000000 | QKEY));
            assertEquals(WcStatus.SUCCESS, await(c.cq, c, b).status());
            awaitCounter(b, Counter.QKEY_VIOLATIONS, viol + 1, c, b);
            // c's QP takes b's Q_Key; the privileged form now delivers
            c.qp.modify(new QpAttr().qpState(QpState.RTS).qkey(QKEY), EnumSet.of(QpAttrMask.STATE,
                    QpAttrMask.QKEY));
            c.qp.postSend(new SendWr().wrId(2).sendFlags(SendFlags.SIGNALED).sg(c.sge(0, 8))
                    .ud(cToB, b.qp.qpNum(), 0x80000000));
            assertEquals(WcStatus.SUCCESS, await(c.cq, c, b).status());
            WorkCompletion r = await(b.cq, c, b);
            assertEquals(5, r.wrId());
            assertEquals(c.qp.qpNum(), r.srcQp());
            assertEquals(List.of(0x22222222, QKEY), qkeys);
            assertEquals(QKEY, c.qp.query(new QpAttr()).qkey());
        }
    }

    @Test
    void shouldCompleteAMessageBeyondThePortMtuWithoutSendingIt() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.32.4", QpType.UD, 1 << 16, 1500);
             UnreliablePeer y = new UnreliablePeer("127.0.32.5", QpType.UD, 1 << 16, 1500)) {
            assertEquals(Mtu.MTU_1024, x.ctx.queryPort(1).activeMtu());
            x.readyUd(QKEY, 0);
            y.readyUd(QKEY, 0);
            AddressHandle ah = x.ahTo(y);
            y.qp.postRecv(new RecvWr().wrId(1).sg(y.sge(0, 8192)));
            long sent = x.count(Counter.SENT_PKTS);
            x.qp.postSend(new SendWr().wrId(2).sendFlags(SendFlags.SIGNALED).sg(x.sge(0, 1025))
                    .ud(ah, y.qp.qpNum(), QKEY));
            WorkCompletion s = await(x.cq, x, y);
            assertEquals(WcStatus.SUCCESS, s.status(), "IBA C10-93.1.1: no packet and no error (rxe)");
            assertEquals(sent, x.count(Counter.SENT_PKTS), "nothing was sent");
            assertEquals(1, x.count(Counter.UD_TOO_LONG));
            assertNoCompletion(y.cq, 30, x, y);
            assertEquals(QpState.RTS, x.qp.state());
            x.qp.postSend(new SendWr().wrId(3).sendFlags(SendFlags.SIGNALED).sg(x.sge(0, 1024))
                    .ud(ah, y.qp.qpNum(), QKEY));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            WorkCompletion r = await(y.cq, x, y);
            assertEquals(1, r.wrId());
            assertEquals(40 + 1024, r.byteLen());
            assertEquals(2, x.qp.query(new QpAttr()).sqPsn(), "the skipped message still took a PSN, as in rxe");
        }
    }

    @Test
    void shouldSendThroughManyAddressHandles() {
        int n = 40;
        List<AddressHandle> ahs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ahs.add(a.pd.createAh(a.routeTo(b).flowLabel(i)));
        }
        try {
            for (int i = 0; i < n; i++) {
                assertSame(a.pd, ahs.get(i).pd());
                AhAttr attr = ahs.get(i).attr();
                assertEquals(b.ctx.queryGid(1, 1), attr.dgid());
                assertEquals(i, attr.flowLabel());
                assertNotSame(attr, ahs.get(i).attr(), "attr() is a copy");
                b.qp.postRecv(new RecvWr().wrId(i).sg(b.sge(i * 128L, 128)));
            }
            for (int i = 0; i < n; i++) {
                a.buf.set(ValueLayout.JAVA_INT_UNALIGNED, i * 4L, i * 1000);
                a.qp.postSend(new SendWr().wrId(100 + i).sg(a.sge(i * 4L, 4)).ud(ahs.get(i), b.qp.qpNum(), QKEY)
                        .signaled(i == n - 1));
            }
            assertEquals(100 + n - 1, await(a.cq, a, b).wrId());
            List<WorkCompletion> r = awaitN(b.cq, n, a, b);
            for (int i = 0; i < n; i++) {
                assertEquals(i, r.get(i).wrId());
                assertEquals(44, r.get(i).byteLen());
                assertEquals(i * 1000, b.buf.get(ValueLayout.JAVA_INT_UNALIGNED, i * 128L + 40));
            }
        } finally {
            for (AddressHandle ah : ahs) {
                ah.close();
            }
        }
    }

    @Test
    void shouldTalkToTwoPeersFromOneQp() throws Exception {
        try (UnreliablePeer c = new UnreliablePeer("127.0.32.3", QpType.UD, 1 << 20, 0)) {
            c.readyUd(QKEY, 0x30);
            AddressHandle aToC = a.ahTo(c);
            AddressHandle cToA = c.ahTo(a);
            datagram(a, b, aToB, 300, false, ip("127.0.32.1"), ip("127.0.32.2"));
            datagram(a, c, aToC, 301, true, ip("127.0.32.1"), ip("127.0.32.3"));
            datagram(b, a, bToA, 302, true, ip("127.0.32.2"), ip("127.0.32.1"));
            datagram(c, a, cToA, 303, false, ip("127.0.32.3"), ip("127.0.32.1"));
            // interleaved on one QP: each reaches its own peer
            b.qp.postRecv(new RecvWr().wrId(1).sg(b.sge(0, 4096)));
            c.qp.postRecv(new RecvWr().wrId(2).sg(c.sge(0, 4096)));
            a.qp.postRecv(new RecvWr().wrId(3).sg(a.sge(65536, 4096)));
            a.qp.postRecv(new RecvWr().wrId(4).sg(a.sge(69632, 4096)));
            a.qp.postSend(new SendWr().wrId(5).sg(a.sge(0, 10)).ud(aToB, b.qp.qpNum(), QKEY));
            a.qp.postSend(new SendWr().wrId(6).sg(a.sge(0, 20)).ud(aToC, c.qp.qpNum(), QKEY).signaled(true));
            b.qp.postSend(new SendWr().wrId(7).sg(b.sge(0, 30)).ud(bToA, a.qp.qpNum(), QKEY));
            c.qp.postSend(new SendWr().wrId(8).sg(c.sge(0, 40)).ud(cToA, a.qp.qpNum(), QKEY));
            assertEquals(50, await(b.cq, a, b, c).byteLen());
            assertEquals(60, await(c.cq, a, b, c).byteLen());
            List<WorkCompletion> at = awaitN(a.cq, 3, a, b, c);
            int fromB = 0;
            int fromC = 0;
            for (WorkCompletion w : at) {
                if (w.opcode() == WcOpcode.RECV) {
                    if (w.srcQp() == b.qp.qpNum() && w.byteLen() == 70) {
                        fromB++;
                    } else if (w.srcQp() == c.qp.qpNum() && w.byteLen() == 80) {
                        fromC++;
                    }
                }
            }
            assertEquals(1, fromB, at.toString());
            assertEquals(1, fromC, at.toString());
        }
    }

    @Test
    void shouldDropWithoutReceiveWqeOrWhenTheBufferIsTooSmall() {
        long oob = b.count(Counter.OUT_OF_BUFFER);
        long len = b.count(Counter.UD_LEN_DROPPED);
        a.qp.postSend(new SendWr().wrId(1).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 100)).ud(aToB, b.qp.qpNum(),
                QKEY));
        assertEquals(WcStatus.SUCCESS, await(a.cq, a, b).status());
        awaitCounter(b, Counter.OUT_OF_BUFFER, oob + 1, a, b);
        b.qp.postRecv(new RecvWr().wrId(2).sg(b.sge(0, 40 + 99)));
        a.qp.postSend(new SendWr().wrId(3).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 100)).ud(aToB, b.qp.qpNum(),
                QKEY));
        assertEquals(WcStatus.SUCCESS, await(a.cq, a, b).status());
        awaitCounter(b, Counter.UD_LEN_DROPPED, len + 1, a, b);
        assertNoCompletion(b.cq, 20, a, b);
        assertEquals(QpState.RTS, b.qp.state(), "dropped silently, the QP goes on (rxe, IBA)");
        a.qp.postSend(new SendWr().wrId(4).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 99)).ud(aToB, b.qp.qpNum(),
                QKEY));
        await(a.cq, a, b);
        WorkCompletion r = await(b.cq, a, b);
        assertEquals(2, r.wrId(), "the too-small WQE was kept for a datagram that fits");
        assertEquals(139, r.byteLen());
        assertEquals(0, b.count(Counter.SEND_RNR_ERR));
    }

    @Test
    void shouldFailARequestWhoseAddressHandleIsOfAnotherPdAndEnterSqe() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.32.6", QpType.UD, 1 << 16, 0);
             UnreliablePeer y = new UnreliablePeer("127.0.32.7", QpType.UD, 1 << 16, 0)) {
            x.readyUd(QKEY, 0);
            y.readyUd(QKEY, 0);
            ProtectionDomain other = x.later(x.ctx.allocPd());
            AddressHandle foreign = x.later(other.createAh(x.routeTo(y)));
            AddressHandle good = x.ahTo(y);
            y.qp.postRecv(new RecvWr().wrId(50).sg(y.sge(0, 4096)));
            y.qp.postRecv(new RecvWr().wrId(51).sg(y.sge(4096, 4096)));
            x.qp.postSend(new SendWr().wrId(1).sendFlags(SendFlags.SIGNALED).sg(x.sge(0, 8)).ud(good,
                    y.qp.qpNum(), QKEY).next(new SendWr().wrId(2).sg(x.sge(0, 8)).ud(foreign, y.qp.qpNum(), QKEY)
                    .next(new SendWr().wrId(3).sendFlags(SendFlags.SIGNALED).sg(x.sge(0, 8)).ud(good,
                            y.qp.qpNum(), QKEY))));
            List<WorkCompletion> s = awaitN(x.cq, 3, x, y);
            assertEquals(WcStatus.SUCCESS, s.get(0).status());
            assertEquals(2, s.get(1).wrId());
            assertEquals(WcStatus.LOC_QP_OP_ERR, s.get(1).status(), "rxe: PDs don't match for AH and QP");
            assertEquals(3, s.get(2).wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, s.get(2).status());
            assertEquals(QpState.SQE, x.qp.state());
            assertEquals(50, await(y.cq, x, y).wrId());
            // receives go on in SQE
            x.qp.postRecv(new RecvWr().wrId(60).sg(x.sge(8192, 4096)));
            AddressHandle back = y.ahTo(x);
            y.qp.postSend(new SendWr().wrId(61).sg(y.sge(0, 16)).ud(back, x.qp.qpNum(), QKEY));
            WorkCompletion in = await(x.cq, x, y);
            assertEquals(60, in.wrId());
            assertEquals(WcStatus.SUCCESS, in.status());
            assertEquals(y.qp.qpNum(), in.srcQp());
            // SQE -> RTS
            UnreliablePeer.move(x.qp, QpState.RTS);
            x.qp.postSend(new SendWr().wrId(4).sendFlags(SendFlags.SIGNALED).sg(x.sge(0, 8)).ud(good,
                    y.qp.qpNum(), QKEY));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            assertEquals(51, await(y.cq, x, y).wrId());
        }
    }

    @Test
    void shouldKeepTheProtectionDomainWhileAnAddressHandleLivesAndDeliverAfterClose() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.32.6", QpType.UD, 1 << 16, 0);
             UnreliablePeer y = new UnreliablePeer("127.0.32.7", QpType.UD, 1 << 16, 0)) {
            x.readyUd(QKEY, 0);
            y.readyUd(QKEY, 0);
            ProtectionDomain pd2 = x.ctx.allocPd();
            AddressHandle ah = pd2.createAh(x.routeTo(y));
            VerbsException busy = assertThrows(VerbsException.class, pd2::close);
            assertEquals(Errno.EBUSY, busy.errno());
            ah.close();
            ah.close(); // idempotent
            pd2.close();
            // a request posted with a handle closed afterwards still reaches its destination
            AddressHandle h = x.pd.createAh(x.routeTo(y));
            y.qp.postRecv(new RecvWr().wrId(7).sg(y.sge(0, 4096)));
            UnreliablePeer.move(x.qp, QpState.SQD);
            x.qp.postSend(new SendWr().wrId(8).sendFlags(SendFlags.SIGNALED).sg(x.sge(0, 8))
                    .ud(h, y.qp.qpNum(), QKEY));
            h.close();
            VerbsException closed = assertThrows(VerbsException.class, () -> x.qp.postSend(new SendWr().wrId(9)
                    .sg(x.sge(0, 8)).ud(h, y.qp.qpNum(), QKEY)));
            assertEquals(Errno.EINVAL, closed.errno());
            UnreliablePeer.move(x.qp, QpState.RTS);
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            assertEquals(7, await(y.cq, x, y).wrId());
        }
    }

    @Test
    void shouldRefuseBadAddressVectors() {
        AhAttr good = a.routeTo(b);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> a.pd.createAh(new AhAttr().copyFrom(good).isGlobal(false))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> a.pd.createAh(new AhAttr().copyFrom(good).dgid(Gid.parse("fe80::1")))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> a.pd.createAh(new AhAttr().copyFrom(good).portNum(2))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class,
                () -> a.pd.createAh(new AhAttr().copyFrom(good).sgidIndex(2))).errno());
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> a.pd.createAh(null)).errno());
    }

    @Test
    void shouldRefuseWhatUdCannotSendAtPost() {
        for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ,
            WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.SEND_WITH_INV}) {
            VerbsException e = assertThrows(VerbsException.class, () -> a.qp.postSend(new SendWr().opcode(op)
                    .sg(a.sge(0, 8)).remote(b.addr(0), b.mr.rkey()).ud(aToB, b.qp.qpNum(), QKEY)));
            assertEquals(Errno.EINVAL, e.errno(), op + ": " + e.getMessage());
        }
        VerbsException noAh = assertThrows(VerbsException.class, () -> a.qp.postSend(new SendWr().sg(a.sge(0, 8))
                .remoteQpn(b.qp.qpNum()).remoteQkey(QKEY)));
        assertEquals(Errno.EINVAL, noAh.errno());
        VerbsException foreignContext = assertThrows(VerbsException.class, () -> a.qp.postSend(new SendWr()
                .sg(a.sge(0, 8)).ud(bToA, b.qp.qpNum(), QKEY)));
        assertEquals(Errno.EINVAL, foreignContext.errno());
        assertEquals(QpState.RTS, a.qp.state());
        assertNoCompletion(a.cq, 10, a, b);
    }

    @Test
    void shouldDropPacketsOfTheOtherTransport() {
        try (UnreliablePeer uc = new UnreliablePeer("127.0.32.8", QpType.UC, 1 << 16, 0)) {
            uc.connectUc(b, Mtu.MTU_1024, 0, Access.REMOTE_WRITE); // aimed at b's UD QP
            uc.qp.postRecv(new RecvWr().wrId(1).sg(uc.sge(0, 4096)));
            b.qp.postRecv(new RecvWr().wrId(2).sg(b.sge(0, 4096)));
            long bDropped = b.count(Counter.RCVD_DROPPED);
            uc.qp.postSend(new SendWr().wrId(3).sendFlags(SendFlags.SIGNALED).sg(uc.sge(0, 16)));
            assertEquals(WcStatus.SUCCESS, await(uc.cq, uc, b).status());
            awaitCounter(b, Counter.RCVD_DROPPED, bDropped + 1, uc, b);
            AddressHandle toUc = a.ahTo(uc);
            long ucDropped = uc.count(Counter.RCVD_DROPPED);
            a.qp.postSend(new SendWr().wrId(4).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 16)).ud(toUc,
                    uc.qp.qpNum(), QKEY));
            assertEquals(WcStatus.SUCCESS, await(a.cq, a, uc).status());
            awaitCounter(uc, Counter.RCVD_DROPPED, ucDropped + 1, a, uc);
            assertNoCompletion(uc.cq, 20, a, b, uc);
            assertNoCompletion(b.cq, 20, a, b, uc);
            toUc.close();
            // b's receive is still there
            a.qp.postSend(new SendWr().wrId(5).sg(a.sge(0, 16)).ud(aToB, b.qp.qpNum(), QKEY));
            assertEquals(2, await(b.cq, a, b).wrId());
        }
    }

    @Test
    void shouldReceiveInRtrAndRefuseToSendThere() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.32.9", QpType.UD, 1 << 16, 0)) {
            x.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            UnreliablePeer.move(x.qp, QpState.RTR);
            x.qp.postRecv(new RecvWr().wrId(1).sg(x.sge(0, 4096)));
            AddressHandle toX = a.ahTo(x);
            a.qp.postSend(new SendWr().wrId(2).sg(a.sge(0, 16)).ud(toX, x.qp.qpNum(), QKEY));
            WorkCompletion r = await(x.cq, a, x);
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals(56, r.byteLen());
            AddressHandle back = x.ahTo(a);
            VerbsException e = assertThrows(VerbsException.class, () -> x.qp.postSend(new SendWr().sg(x.sge(0, 8))
                    .ud(back, a.qp.qpNum(), QKEY)));
            assertEquals(Errno.EINVAL, e.errno());
            toX.close();
        }
    }

    @Test
    void shouldNotAllocateOnTheUdDataPath() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        RecvWr recvB = new RecvWr().wrId(1).sg(new Sge(b.addr(0), 4096, b.mr.lkey()));
        RecvWr recvA = new RecvWr().wrId(1).sg(new Sge(a.addr(65536), 4096, a.mr.lkey()));
        SendWr ab = new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(5).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 1000, a.mr.lkey())).ud(aToB, b.qp.qpNum(), QKEY);
        SendWr ba = new SendWr().wrId(3).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(b.addr(8192), 2000, b.mr.lkey())).ud(bToA, a.qp.qpNum(), 0x80000000);
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 4; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 1000; i++) {
                b.qp.postRecv(recvB);
                a.qp.postRecv(recvA);
                a.qp.postSend(ab);
                b.qp.postSend(ba);
                int done = 0;
                long spins = 0;
                while (done < 4) {
                    a.ctx.progress();
                    b.ctx.progress();
                    int n = a.cq.poll(wcs);
                    for (int k = 0; k < n; k++) {
                        if (wcs[k].status() != WcStatus.SUCCESS) {
                            throw new AssertionError(wcs[k].toString());
                        }
                    }
                    done += n + b.cq.poll(wcs);
                    if (++spins > 10_000_000L) {
                        throw new AssertionError("stuck at iteration " + i);
                    }
                }
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            if (round > 0) {
                best = Math.min(best, allocated);
            }
        }
        assertTrue(best < 256, "UD data path allocated " + best + " bytes in 1000 iterations");
    }

    @Test
    void shouldUseRxesUdpSourcePortForAUdQp() {
        // rxe_qp_init_req: 0xC000 + hash_32(qpn, 14); ibv_ud_pingpong's QPN 0x1a left port 0xfb97 in the capture
        assertEquals(0xFB97, Link.qpSourcePort(0x1A));
        assertEquals(Link.qpSourcePort(a.qp.qpNum()), a.ctx.link.openSourcePort(
                Link.qpSourcePort(a.qp.qpNum())), "the QP's port is open on the link");
    }
}
