package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Unreliable Datagram QPs (IBV_QPT_UD) and address handles: datagrams with the 40-byte GRH area, the sender's QPN
 * and immediate data; Q_Key checks and the privileged Q_Key; the port MTU limit; the silent drops of a receiver;
 * address handle rules (attributes, PD ownership and lifetime); and the send queue error state (SQE).
 */
public abstract class UdTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected UdTck() {
    }

    private static final int QKEY = 0x11111111;
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Side[] pair() {
        return connectedPair(QpType.UD, 64 << 10, ALL_ACCESS, new Link());
    }

    private AddressHandle ah(Side from, Side to) {
        return closeLater(from.pd.createAh(route(to.ctx)));
    }

    private static SendWr datagram(long wrId, AddressHandle ah, QueuePair to, int qkey) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).ud(ah, to.qpNum(), qkey);
    }

    /** The GRH area of a receive from {@code src} to {@code dst}: the packet's network header (RoCEv2). */
    private void assertGrh(MemorySegment g, Gid src, Gid dst) {
        if (src.isIpv4Mapped()) {
            assertEquals(-1, g.asSlice(0, 20).mismatch(MemorySegment.ofArray(new byte[20])), "20 zero bytes");
            assertEquals(0x45, g.get(ValueLayout.JAVA_BYTE, 20) & 0xFF, "an IPv4 header in the last 20 bytes");
            assertEquals(17, g.get(ValueLayout.JAVA_BYTE, 29), "protocol UDP");
            int sum = 0;
            for (int i = 20; i < 40; i += 2) {
                sum += g.get(BE16, i) & 0xFFFF;
            }
            sum = (sum & 0xFFFF) + (sum >>> 16);
            assertEquals(0xFFFF, sum, "IPv4 header checksum");
            assertEquals((int) src.lo(), g.get(BE32, 32), "source address");
            assertEquals((int) dst.lo(), g.get(BE32, 36), "destination address");
        } else {
            assertEquals(6, (g.get(ValueLayout.JAVA_BYTE, 0) & 0xF0) >>> 4, "IPv6 header");
            assertEquals(17, g.get(ValueLayout.JAVA_BYTE, 6), "next header UDP");
            assertEquals(src, Gid.of(g.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals(dst, Gid.of(g.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE)));
        }
    }

    @Test
    public void datagramArrivesAfterTheGrhWithTheSendersQpn() {
        Side[] p = pair();
        fill(p[0].buf.asSlice(0, 500), 1);
        p[1].postRecv(7, 4096, 1000);
        p[0].qp.postSend(datagram(8, ah(p[0], p[1]), p[1].qp, QKEY).sg(p[0].sge(0, 500)).signaled(true));
        WorkCompletion s = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(8, s.wrId());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(7, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(40 + 500, r.byteLen(), "byte_len includes the GRH");
        assertEquals(WcFlags.GRH, r.wcFlags());
        assertEquals(p[0].qp.qpNum(), r.srcQp());
        assertEquals(p[1].qp.qpNum(), r.qpNum());
        assertEquals(0, r.pkeyIndex());
        assertGrh(p[1].buf.asSlice(4096, 40), gid(a), gid(b));
        assertEquals(-1, p[0].buf.asSlice(0, 500).mismatch(p[1].buf.asSlice(4096 + 40, 500)));
    }

    @Test
    public void immediateDataAndAReplyToTheSourceQpn() {
        Side[] p = pair();
        p[1].postRecv(1, 0, 4096);
        p[0].postRecv(2, 8192, 4096);
        p[0].qp.postSend(datagram(3, ah(p[0], p[1]), p[1].qp, QKEY).opcode(WrOpcode.SEND_WITH_IMM).immData(0xBEEF)
                .sg(p[0].sge(0, 64)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(WcFlags.GRH | WcFlags.WITH_IMM, r.wcFlags());
        assertEquals(0xBEEF, r.immData());
        assertEquals(104, r.byteLen());
        // answer whoever sent it: the completion names the QP
        p[1].qp.postSend(datagram(4, ah(p[1], p[0]), p[1].qp, QKEY).remoteQpn(r.srcQp()).sg(p[1].sge(0, 10))
                .signaled(true));
        await(p[1].cq, WcStatus.SUCCESS);
        WorkCompletion back = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(2, back.wrId());
        assertEquals(50, back.byteLen());
        assertEquals(p[1].qp.qpNum(), back.srcQp());
        assertGrh(p[0].buf.asSlice(8192, 40), gid(b), gid(a));
    }

    @Test
    public void zeroByteDatagramCarriesOnlyTheGrh() {
        Side[] p = pair();
        p[1].postRecv(1, 0, 40);
        p[0].qp.postSend(datagram(2, ah(p[0], p[1]), p[1].qp, QKEY).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(40, r.byteLen());
        assertGrh(p[1].buf.asSlice(0, 40), gid(a), gid(b));
    }

    @Test
    public void wrongQkeyIsDroppedAndTheReceiveKept() {
        Side[] p = pair();
        AddressHandle ah = ah(p[0], p[1]);
        p[1].postRecv(1, 0, 4096);
        p[0].qp.postSend(datagram(2, ah, p[1].qp, QKEY ^ 1).sg(p[0].sge(0, 16)).signaled(true));
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId(), "the sender cannot tell");
        assertNoCompletion(p[1].cq, 50);
        p[0].qp.postSend(datagram(3, ah, p[1].qp, QKEY).sg(p[0].sge(0, 17)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(1, r.wrId());
        assertEquals(57, r.byteLen());
    }

    @Test
    public void privilegedQkeyTakesTheSendersOwnQkey() {
        Side[] p = pair();
        AddressHandle ah = ah(p[0], p[1]);
        p[1].postRecv(1, 0, 4096);
        p[1].postRecv(2, 4096, 4096);
        // the high bit set: the QP's Q_Key (0x11111111, the receiver's too) is used, whatever the low bits say
        p[0].qp.postSend(datagram(3, ah, p[1].qp, 0x80000000).sg(p[0].sge(0, 8)).signaled(true));
        p[0].qp.postSend(datagram(4, ah, p[1].qp, 0x80000000 | 0x2222).sg(p[0].sge(0, 9)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(48, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(49, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        // the sender's QP changes its Q_Key: the privileged form now carries the new one, which the receiver refuses
        p[0].qp.modify(new QpAttr().qpState(QpState.RTS).qkey(0x33333333), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.QKEY));
        assertEquals(0x33333333, p[0].qp.query(new QpAttr()).qkey());
        p[1].postRecv(5, 0, 4096);
        p[0].qp.postSend(datagram(6, ah, p[1].qp, 0x80000000).sg(p[0].sge(0, 8)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        assertNoCompletion(p[1].cq, 50);
    }

    @Test
    public void messageBeyondThePortMtuCompletesButIsNotDelivered() {
        int mtu = a.queryPort(1).activeMtu().bytes();
        Side[] p = pair();
        AddressHandle ah = ah(p[0], p[1]);
        p[1].postRecv(1, 0, 40 + mtu + 64);
        p[0].qp.postSend(datagram(2, ah, p[1].qp, QKEY).sg(p[0].sge(0, mtu + 1)).signaled(true));
        WorkCompletion s = await(p[0].cq);
        assertEquals(WcStatus.SUCCESS, s.status(), "IBA C10-93.1.1: no packet, and no error either");
        assertNoCompletion(p[1].cq, 50);
        assertEquals(QpState.RTS, p[0].qp.state());
        p[0].qp.postSend(datagram(3, ah, p[1].qp, QKEY).sg(p[0].sge(0, mtu)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(1, r.wrId());
        assertEquals(40 + mtu, r.byteLen());
    }

    @Test
    public void datagramWithoutAFittingReceiveIsDropped() {
        Side[] p = pair();
        AddressHandle ah = ah(p[0], p[1]);
        p[0].qp.postSend(datagram(1, ah, p[1].qp, QKEY).sg(p[0].sge(0, 100)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        assertNoCompletion(p[1].cq, 30);
        p[1].postRecv(2, 0, 40 + 99); // one byte short
        p[0].qp.postSend(datagram(3, ah, p[1].qp, QKEY).sg(p[0].sge(0, 100)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        assertNoCompletion(p[1].cq, 30);
        assertEquals(QpState.RTS, p[1].qp.state(), "UD drops silently; the QP goes on");
        p[0].qp.postSend(datagram(4, ah, p[1].qp, QKEY).sg(p[0].sge(0, 99)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(2, r.wrId(), "the receive that was too small is used by a datagram that fits");
        assertEquals(139, r.byteLen());
    }

    @Test
    public void onlySendsArePossible() {
        Side[] p = pair();
        AddressHandle ah = ah(p[0], p[1]);
        for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ,
            WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD}) {
            assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(datagram(1, ah, p[1].qp, QKEY).opcode(op)
                    .sg(p[0].sge(0, 8)).remote(p[1].addr(0), p[1].mr.rkey()).signaled(true)));
        }
        assertEquals(QpState.RTS, p[0].qp.state());
        assertNoCompletion(p[0].cq, 20);
    }

    @Test
    public void addressHandleKeepsItsAttributesAndPd() {
        Side[] p = pair();
        AhAttr attr = route(b).flowLabel(0x12345).trafficClass(0);
        AddressHandle ah = closeLater(p[0].pd.createAh(attr));
        assertSame(p[0].pd, ah.pd());
        AhAttr back = ah.attr();
        assertNotSame(attr, back);
        assertEquals(gid(b), back.dgid());
        assertEquals(0x12345, back.flowLabel());
        assertEquals(environment().gidIndex(), back.sgidIndex());
        assertEquals(1, back.portNum());
        assertEquals(true, back.isGlobal());
        attr.flowLabel(1);
        assertEquals(0x12345, ah.attr().flowLabel(), "the handle copied the attributes");
        assertVerbsError(Errno.EINVAL, () -> p[0].pd.createAh(route(b).isGlobal(false)));
        assertVerbsError(Errno.EINVAL, () -> p[0].pd.createAh(route(b).portNum(7)));
    }

    @Test
    public void protectionDomainOutlivesItsAddressHandles() {
        ProtectionDomain pd = a.allocPd();
        AddressHandle ah = pd.createAh(route(b));
        assertVerbsError(Errno.EBUSY, pd::close);
        ah.close();
        pd.close();
    }

    @Test
    public void manyAddressHandlesEachDeliver() {
        Side[] p = pair();
        int n = 12;
        AddressHandle[] ahs = new AddressHandle[n];
        for (int i = 0; i < n; i++) {
            ahs[i] = ah(p[0], p[1]);
            p[1].postRecv(i, i * 256L, 256);
            p[0].buf.set(ValueLayout.JAVA_INT_UNALIGNED, i * 4L, 0x1000 + i);
        }
        for (int i = 0; i < n; i++) {
            p[0].qp.postSend(datagram(100 + i, ahs[i], p[1].qp, QKEY).sg(p[0].sge(i * 4L, 4)).signaled(true));
        }
        for (int i = 0; i < n; i++) {
            assertEquals(100 + i, await(p[0].cq, WcStatus.SUCCESS).wrId());
        }
        for (int i = 0; i < n; i++) {
            WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
            assertEquals(i, r.wrId());
            assertEquals(0x1000 + i, p[1].buf.get(ValueLayout.JAVA_INT_UNALIGNED, i * 256L + 40));
        }
    }

    @Test
    public void oneQpTalksToTwoPeers() {
        Side x = sideA(16384, ALL_ACCESS);
        Side y = sideB(16384, ALL_ACCESS);
        x.createQp(QpType.UD);
        y.createQp(QpType.UD);
        QueuePair y2 = closeLater(y.pd.createQp(new io.jrdma.verbs.QpInitAttr().qpType(QpType.UD).sendCq(y.cq)
                .recvCq(y.cq).cap(defaultCap())));
        Link l = new Link();
        connect(x, y, l);
        connect(y, x, l);
        QueuePair first = y.qp;
        y.qp = y2;
        connect(y, x, l);
        y.qp = first;
        AddressHandle toY = ah(x, y);
        AddressHandle toX = ah(y, x);
        first.postRecv(new RecvWr().wrId(1).sg(y.sge(0, 4096)));
        y2.postRecv(new RecvWr().wrId(2).sg(y.sge(4096, 4096)));
        x.postRecv(3, 0, 4096);
        x.postRecv(4, 4096, 4096);
        x.qp.postSend(datagram(5, toY, first, QKEY).sg(x.sge(8192, 10)).signaled(true));
        x.qp.postSend(datagram(6, toY, y2, QKEY).sg(x.sge(8192, 20)).signaled(true));
        first.postSend(datagram(7, toX, x.qp, QKEY).sg(y.sge(8192, 30)));
        y2.postSend(datagram(8, toX, x.qp, QKEY).sg(y.sge(8192, 40)));
        int seen = 0;
        for (int i = 0; i < 6; i++) {
            WorkCompletion w = await(i < 2 ? y.cq : x.cq, WcStatus.SUCCESS);
            if (w.wrId() == 1) {
                assertEquals(50, w.byteLen());
                assertEquals(first.qpNum(), w.qpNum());
            } else if (w.wrId() == 2) {
                assertEquals(60, w.byteLen());
                assertEquals(y2.qpNum(), w.qpNum());
            } else if (w.opcode() == WcOpcode.RECV) {
                assertEquals(w.srcQp() == first.qpNum() ? 70 : 80, w.byteLen(), w.toString());
                assertEquals(x.qp.qpNum(), w.qpNum());
            } else {
                assertEquals(WcOpcode.SEND, w.opcode());
            }
            seen |= 1 << w.wrId();
        }
        assertEquals(0b1111110, seen, "receives 1 to 4 and sends 5 and 6");
    }

    @Test
    public void receivesInRtrButSendsOnlyFromRts() {
        Side x = sideA(16384, ALL_ACCESS);
        Side y = sideB(16384, ALL_ACCESS);
        x.createQp(QpType.UD);
        y.createQp(QpType.UD);
        connect(x, y, new Link());
        y.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        moveTo(y.qp, QpState.RTR);
        y.postRecv(1, 0, 4096);
        x.qp.postSend(datagram(2, ah(x, y), y.qp, QKEY).sg(x.sge(0, 5)).signaled(true));
        await(x.cq, WcStatus.SUCCESS);
        assertEquals(45, await(y.cq, WcStatus.SUCCESS).byteLen());
        AddressHandle back = ah(y, x);
        assertVerbsError(Errno.EINVAL, () -> y.qp.postSend(datagram(3, back, x.qp, QKEY).sg(y.sge(0, 5))));
        assertEquals(QpState.RTR, y.qp.state());
    }

    @Test
    public void addressHandleOfAnotherPdFailsTheRequestAndEntersSqe() {
        Side[] p = pair();
        Side x = p[0];
        Side y = p[1];
        ProtectionDomain other = closeLater(a.allocPd());
        AddressHandle foreign = closeLater(other.createAh(route(b)));
        AddressHandle good = ah(x, y);
        y.postRecv(10, 0, 4096);
        y.postRecv(11, 4096, 4096);
        x.qp.postSend(datagram(1, good, y.qp, QKEY).sg(x.sge(0, 8)).signaled(true)
                .next(datagram(2, foreign, y.qp, QKEY).sg(x.sge(0, 8)).signaled(true)
                        .next(datagram(3, good, y.qp, QKEY).sg(x.sge(0, 8)).signaled(true))));
        assertEquals(1, await(x.cq, WcStatus.SUCCESS).wrId());
        assertEquals(2, await(x.cq, WcStatus.LOC_QP_OP_ERR).wrId());
        assertEquals(3, await(x.cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.SQE, x.qp.state());
        assertEquals(10, await(y.cq, WcStatus.SUCCESS).wrId());
        // receives keep working in SQE
        x.postRecv(20, 8192, 4096);
        y.qp.postSend(datagram(21, ah(y, x), x.qp, QKEY).sg(y.sge(8192, 4)).signaled(true));
        await(y.cq, WcStatus.SUCCESS);
        WorkCompletion in = await(x.cq, WcStatus.SUCCESS);
        assertEquals(20, in.wrId());
        assertEquals(y.qp.qpNum(), in.srcQp());
        // back to RTS: sending resumes
        x.qp.modify(new QpAttr().qpState(QpState.RTS).curQpState(QpState.SQE),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.CUR_STATE));
        x.qp.postSend(datagram(4, good, y.qp, QKEY).sg(x.sge(0, 8)).signaled(true));
        assertEquals(4, await(x.cq, WcStatus.SUCCESS).wrId());
        assertEquals(11, await(y.cq, WcStatus.SUCCESS).wrId());
    }

    @Test
    public void errorStateFlushesSendsAndReceives() {
        Side[] p = pair();
        p[0].postRecv(1, 0, 64);
        moveTo(p[0].qp, QpState.ERR);
        p[0].qp.postSend(datagram(2, ah(p[0], p[1]), p[1].qp, QKEY).sg(p[0].sge(0, 8)));
        WorkCompletion x = await(p[0].cq, WcStatus.WR_FLUSH_ERR);
        WorkCompletion y = await(p[0].cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(3, x.wrId() + y.wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
    }
}
