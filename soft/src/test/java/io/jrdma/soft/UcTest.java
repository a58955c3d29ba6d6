package io.jrdma.soft;

import static io.jrdma.soft.UnreliablePeer.assertNoCompletion;
import static io.jrdma.soft.UnreliablePeer.await;
import static io.jrdma.soft.UnreliablePeer.awaitCounter;
import static io.jrdma.soft.UnreliablePeer.awaitN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
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
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Transport;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * UC between two soft devices on 127.0.31.x: SEND, SEND_WITH_IMM, RDMA WRITE and RDMA WRITE_WITH_IMM at every
 * size class around the path MTU, with no ACKs on the wire; the responder's silent drops (missing packet, no receive
 * WQE, no access, bad rkey), each counted; errors at post for what UC cannot carry; and the SQE state.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcTest {

    private static final int MTU = 1024;
    private static final int PSN = 0xFFFFFE; // the 24-bit wrap inside the first message
    private static UnreliablePeer a;
    private static UnreliablePeer b;
    private static long wrIds = 100;

    @BeforeAll
    static void connect() {
        a = new UnreliablePeer("127.0.31.1", QpType.UC, 1 << 20, 0);
        b = new UnreliablePeer("127.0.31.2", QpType.UC, 1 << 20, 0);
        a.connectUc(b, Mtu.MTU_1024, PSN, Access.REMOTE_WRITE);
        b.connectUc(a, Mtu.MTU_1024, PSN, Access.REMOTE_WRITE);
    }

    @AfterAll
    static void close() {
        a.close();
        b.close();
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (WrOpcode op : new WrOpcode[] {WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
            WrOpcode.RDMA_WRITE_WITH_IMM}) {
            for (int size : new int[] {0, 1, MTU - 1, MTU, MTU + 1, 3 * MTU + 17, 64 << 10}) {
                out.add(Arguments.of(op, size));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} of {1} bytes")
    @MethodSource("cases")
    void shouldMoveDataWithoutAcknowledgements(WrOpcode op, int size) {
        transfer(a, b, op, size);
    }

    /** One message from {@code x} to {@code y}: data, completions, packet count, no ACK, UC opcodes, no AckReq. */
    static void transfer(UnreliablePeer x, UnreliablePeer y, WrOpcode op, int size) {
        MemorySegment src = x.buf.asSlice(0, size);
        for (int i = 0; i < size; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + size + op.ordinal()));
        }
        long dstOff = 512 << 10;
        y.buf.asSlice(dstOff, size + 64).fill((byte) 0x5A);
        boolean recv = op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE_WITH_IMM;
        long recvId = wrIds++;
        if (recv) {
            y.qp.postRecv(new RecvWr().wrId(recvId).sg(y.sge(dstOff, 256 << 10)));
        }
        List<byte[]> sent = new ArrayList<>();
        x.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (tx) {
                sent.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            }
        });
        long ySentBefore = y.count(Counter.SENT_PKTS);
        long yRcvdBefore = y.count(Counter.RCVD_PKTS);
        int packets = Math.max(1, (size + MTU - 1) / MTU);
        long id = wrIds++;
        int imm = 0x0A0B0C00 + size;
        try {
            x.qp.postSend(new SendWr().wrId(id).opcode(op).sendFlags(SendFlags.SIGNALED).immData(imm)
                    .sg(size == 0 ? new Sge[0] : new Sge[] {x.sge(0, size)}).remote(y.addr(dstOff), y.mr.rkey()));
            WorkCompletion s = await(x.cq, x, y);
            assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
            assertEquals(id, s.wrId());
            assertEquals(op.completionOpcode(), s.opcode());
            if (recv) {
                WorkCompletion r = await(y.cq, x, y);
                assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
                assertEquals(recvId, r.wrId());
                assertEquals(size, r.byteLen());
                assertEquals(op == WrOpcode.RDMA_WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV,
                        r.opcode());
                boolean withImm = op != WrOpcode.SEND;
                assertEquals(withImm ? WcFlags.WITH_IMM : 0, r.wcFlags());
                if (withImm) {
                    assertEquals(imm, r.immData());
                }
                assertEquals(y.qp.qpNum(), r.qpNum());
            } else {
                awaitCounter(y, Counter.RCVD_PKTS, yRcvdBefore + packets, x, y);
                assertNoCompletion(y.cq, 20, x, y);
            }
            assertEquals(yRcvdBefore + packets, y.count(Counter.RCVD_PKTS));
            assertEquals(-1, src.mismatch(y.buf.asSlice(dstOff, size)), "data differs");
            assertEquals((byte) 0x5A, y.buf.get(ValueLayout.JAVA_BYTE, dstOff + size), "wrote past the message");
        } finally {
            x.ctx.tap(null);
        }
        assertEquals(packets, sent.size(), "packets of the message");
        for (byte[] pkt : sent) {
            MemorySegment s = MemorySegment.ofArray(pkt);
            Opcode o = Opcode.of(Bth.opcode(s, 0));
            assertEquals(Transport.UC, o.transport());
            assertFalse(Bth.ackReq(s, 0), "UC packets never ask for an ACK (rxe)");
        }
        assertEquals(ySentBefore, y.count(Counter.SENT_PKTS), "the UC responder sends nothing back");
    }

    @Test
    void shouldSetSolicitedOnlyOnTheLastPacketOfASend() {
        List<byte[]> sent = new ArrayList<>();
        a.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (tx) {
                sent.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            }
        });
        try {
            b.qp.postRecv(new RecvWr().wrId(1).sg(b.sge(0, 8192)));
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED
                    | SendFlags.SOLICITED).sg(a.sge(0, 2 * MTU + 5)));
            assertEquals(WcStatus.SUCCESS, await(a.cq, a, b).status());
            assertEquals(WcStatus.SUCCESS, await(b.cq, a, b).status());
        } finally {
            a.ctx.tap(null);
        }
        assertEquals(3, sent.size());
        assertFalse(Bth.solicited(MemorySegment.ofArray(sent.get(0)), 0));
        assertFalse(Bth.solicited(MemorySegment.ofArray(sent.get(1)), 0));
        assertTrue(Bth.solicited(MemorySegment.ofArray(sent.get(2)), 0));
        assertEquals(Opcode.UC_SEND_LAST.code(), Bth.opcode(MemorySegment.ofArray(sent.get(2)), 0));
    }

    @Test
    void shouldRejectWhatUcCannotCarryAtPost() {
        for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP,
            WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.SEND_WITH_INV}) {
            VerbsException e = assertThrows(VerbsException.class, () -> a.qp.postSend(new SendWr().wrId(1)
                    .opcode(op).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 8)).remote(b.addr(0), b.mr.rkey())));
            assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
            assertEquals(0, e.badWrIndex());
        }
        assertEquals(QpState.RTS, a.qp.state());
        assertNoCompletion(a.cq, 10, a, b);
        transfer(a, b, WrOpcode.SEND, 10); // nothing of the refused requests was queued
    }

    @Test
    void shouldRefuseRcOnlyAttributes() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.31.9", QpType.UC, 4096, 0)) {
            x.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(a.qp.qpNum()).rqPsn(5)
                    .maxDestRdAtomic(1).ahAttr(x.routeTo(a));
            VerbsException e = assertThrows(VerbsException.class, () -> x.qp.modify(rtr, EnumSet.of(
                    QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN,
                    QpAttrMask.MAX_DEST_RD_ATOMIC)));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("MAX_DEST_RD_ATOMIC"), e.getMessage());
            assertEquals(QpState.INIT, x.qp.state());
            x.qp.modify(rtr, EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                    QpAttrMask.RQ_PSN));
            VerbsException t = assertThrows(VerbsException.class, () -> x.qp.modify(new QpAttr()
                    .qpState(QpState.RTS).sqPsn(9).timeout(14), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN,
                    QpAttrMask.TIMEOUT)));
            assertEquals(Errno.EINVAL, t.errno());
            x.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(9), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            QpAttr q = x.qp.query(new QpAttr());
            assertEquals(QpState.RTS, q.qpState());
            assertEquals(5, q.rqPsn());
            assertEquals(9, q.sqPsn());
            assertEquals(a.qp.qpNum(), q.destQpNum());
            assertEquals(Mtu.MTU_1024, q.pathMtu());
        }
    }

    /** Which packet of a three-packet message is lost on the wire. */
    enum Lost { FIRST, MIDDLE, LAST }

    @ParameterizedTest(name = "{0} packet lost")
    @EnumSource(Lost.class)
    void shouldDropTheMessageWithAMissingPacketAndDeliverTheNextIntact(Lost lost) {
        try (UnreliablePeer x = new UnreliablePeer("127.0.31.3", QpType.UC, 1 << 16, 0);
             UnreliablePeer y = new UnreliablePeer("127.0.31.4", QpType.UC, 1 << 16, 0)) {
            x.connectUc(y, Mtu.MTU_1024, 0x100, Access.REMOTE_WRITE);
            y.connectUc(x, Mtu.MTU_1024, 0x100, Access.REMOTE_WRITE);
            int victim = Opcode.send(Transport.UC, io.jrdma.wire.Position.valueOf(lost.name()), false, false).code();
            AtomicInteger lostCount = new AtomicInteger();
            x.ctx.transmitter.dropHook(p -> Bth.opcode(p, 0) == victim && lostCount.getAndIncrement() == 0);
            y.qp.postRecv(new RecvWr().wrId(41).sg(y.sge(0, 8192)));
            y.qp.postRecv(new RecvWr().wrId(42).sg(y.sge(8192, 8192)));
            fillPattern(x.buf.asSlice(0, 3000), 1);
            x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 3000)));
            WorkCompletion s1 = await(x.cq, x, y);
            assertEquals(WcStatus.SUCCESS, s1.status(), "the UC requester cannot know the packet was lost");
            assertEquals(1, lostCount.get());
            awaitCounter(y, Counter.RCVD_PKTS, 2, x, y);
            assertNoCompletion(y.cq, 30, x, y);
            // a lost LAST shows only when the next message starts
            assertEquals(lost == Lost.LAST ? 0 : 1, y.count(Counter.UC_MSG_DROPPED));

            fillPattern(x.buf.asSlice(4096, 2500), 2);
            x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(77)
                    .sendFlags(SendFlags.SIGNALED).sg(x.sge(4096, 2500)));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            WorkCompletion r = await(y.cq, x, y);
            assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
            assertEquals(41, r.wrId(), "the dropped message's receive WQE serves the next message");
            assertEquals(2500, r.byteLen());
            assertEquals(77, r.immData());
            assertEquals(-1, x.buf.asSlice(4096, 2500).mismatch(y.buf.asSlice(0, 2500)), "next message intact");
            assertEquals(1, y.count(Counter.OUT_OF_SEQ_REQUEST), "one PSN gap seen");
            assertEquals(1, y.count(Counter.UC_MSG_DROPPED), "one message dropped");
            assertEquals(QpState.RTS, y.qp.state());
            assertEquals(0, y.count(Counter.SENT_PKTS), "no NAK on UC");
            // the second receive WQE is still there
            x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 10)));
            await(x.cq, x, y);
            assertEquals(42, await(y.cq, x, y).wrId());
            assertEquals(0x100 + 3 + 3 + 1, y.qp.query(new QpAttr()).rqPsn(), "rq_psn follows every packet seen");
        }
    }

    @Test
    void shouldDropAWriteWithImmediateThatLostItsMiddle() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.31.3", QpType.UC, 1 << 16, 0);
             UnreliablePeer y = new UnreliablePeer("127.0.31.4", QpType.UC, 1 << 16, 0)) {
            x.connectUc(y, Mtu.MTU_1024, 0, Access.REMOTE_WRITE);
            y.connectUc(x, Mtu.MTU_1024, 0, Access.REMOTE_WRITE);
            AtomicInteger middles = new AtomicInteger();
            x.ctx.transmitter.dropHook(p -> Bth.opcode(p, 0) == Opcode.UC_RDMA_WRITE_MIDDLE.code()
                    && middles.getAndIncrement() == 0);
            y.qp.postRecv(new RecvWr().wrId(5).sg(y.sge(0, 16)));
            fillPattern(x.buf.asSlice(0, 3000), 3);
            SendWr w = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(9)
                    .sendFlags(SendFlags.SIGNALED).sg(x.sge(0, 3000)).remote(y.addr(8192), y.mr.rkey());
            x.qp.postSend(w);
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            awaitCounter(y, Counter.UC_MSG_DROPPED, 1, x, y);
            assertNoCompletion(y.cq, 30, x, y);
            x.qp.postSend(w.wrId(2));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            WorkCompletion r = await(y.cq, x, y);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
            assertEquals(5, r.wrId());
            assertEquals(3000, r.byteLen());
            assertEquals(-1, x.buf.asSlice(0, 3000).mismatch(y.buf.asSlice(8192, 3000)));
        }
    }

    @Test
    void shouldDropWithoutReceiveWqeAndSendNoRnrNak() {
        long before = b.count(Counter.OUT_OF_BUFFER);
        long bSent = b.count(Counter.SENT_PKTS);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sg(a.sge(0, 100)));
        assertEquals(WcStatus.SUCCESS, await(a.cq, a, b).status());
        awaitCounter(b, Counter.OUT_OF_BUFFER, before + 1, a, b);
        assertNoCompletion(b.cq, 20, a, b);
        assertEquals(bSent, b.count(Counter.SENT_PKTS), "no RNR NAK on UC");
        assertEquals(0, b.count(Counter.SEND_RNR_ERR));
        transfer(a, b, WrOpcode.SEND, 100);
    }

    @Test
    void shouldDropWritesTheQpMayNotReceiveOrWhoseRkeyIsBad() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.31.5", QpType.UC, 1 << 16, 0);
             UnreliablePeer y = new UnreliablePeer("127.0.31.6", QpType.UC, 1 << 16, 0)) {
            x.connectUc(y, Mtu.MTU_1024, 0, Access.REMOTE_WRITE);
            y.connectUc(x, Mtu.MTU_1024, 0, 0); // y's QP does not allow remote writes
            fillPattern(x.buf.asSlice(0, 2048), 4);
            x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 2048)).remote(y.addr(0), y.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            awaitCounter(y, Counter.UC_MSG_DROPPED, 1, x, y);
            assertTrue(y.buf.asSlice(0, 2048).mismatch(MemorySegment.ofArray(new byte[2048])) < 0,
                    "nothing written");
            y.qp.modify(new QpAttr().qpState(QpState.RTS).qpAccessFlags(Access.REMOTE_WRITE),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS));
            x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 2048)).remote(y.addr(0), y.mr.rkey() ^ 0x100));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            awaitCounter(y, Counter.UC_MSG_DROPPED, 2, x, y);
            assertTrue(y.buf.asSlice(0, 2048).mismatch(MemorySegment.ofArray(new byte[2048])) < 0);
            assertEquals(QpState.RTS, y.qp.state(), "a UC rkey violation does not fail the QP");
            x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 2048)).remote(y.addr(0), y.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            awaitCounter(y, Counter.RCVD_PKTS, 6, x, y);
            assertEquals(-1, x.buf.asSlice(0, 2048).mismatch(y.buf.asSlice(0, 2048)));
            assertEquals(0, y.count(Counter.SENT_PKTS));
        }
    }

    @Test
    void shouldFailTheReceiveAndTheQpWhenTheBufferIsTooSmall() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.31.5", QpType.UC, 1 << 16, 0);
             UnreliablePeer y = new UnreliablePeer("127.0.31.6", QpType.UC, 1 << 16, 0)) {
            x.connectUc(y, Mtu.MTU_1024, 0, Access.REMOTE_WRITE);
            y.connectUc(x, Mtu.MTU_1024, 0, Access.REMOTE_WRITE);
            y.qp.postRecv(new RecvWr().wrId(1).sg(y.sge(0, 1500)));
            y.qp.postRecv(new RecvWr().wrId(2).sg(y.sge(4096, 4096)));
            x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 2000)));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            List<WorkCompletion> r = awaitN(y.cq, 2, x, y);
            assertEquals(1, r.get(0).wrId());
            assertEquals(WcStatus.LOC_LEN_ERR, r.get(0).status());
            assertEquals(2, r.get(1).wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, r.get(1).status());
            assertEquals(QpState.ERR, y.qp.state());
        }
    }

    @Test
    void shouldEnterSqeOnALocalErrorFlushTheRestKeepReceivingAndResume() {
        try (UnreliablePeer x = new UnreliablePeer("127.0.31.7", QpType.UC, 1 << 16, 0);
             UnreliablePeer y = new UnreliablePeer("127.0.31.8", QpType.UC, 1 << 16, 0)) {
            x.connectUc(y, Mtu.MTU_1024, 0, Access.REMOTE_WRITE);
            y.connectUc(x, Mtu.MTU_1024, 0, Access.REMOTE_WRITE);
            MemoryRegion doomed = x.pd.registerMemory(x.arena.allocate(4096, 4096), Access.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                y.qp.postRecv(new RecvWr().wrId(10 + i).sg(y.sge(i * 4096L, 4096)));
            }
            UnreliablePeer.move(x.qp, QpState.SQD); // hold the requests until the region is gone
            x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 100)));
            x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(doomed.address(), 100, doomed.lkey())));
            x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sg(x.sge(0, 100))); // unsignaled
            doomed.close();
            UnreliablePeer.move(x.qp, QpState.RTS);
            List<WorkCompletion> s = awaitN(x.cq, 3, x, y);
            assertEquals(1, s.get(0).wrId());
            assertEquals(WcStatus.SUCCESS, s.get(0).status());
            assertEquals(2, s.get(1).wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, s.get(1).status());
            assertEquals(3, s.get(2).wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, s.get(2).status(), "an unsignaled request flushes with a WC");
            assertEquals(QpState.SQE, x.qp.state());
            assertEquals(10, await(y.cq, x, y).wrId());
            // in SQE new sends flush, receives keep working
            x.qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 100)));
            WorkCompletion f = await(x.cq, x, y);
            assertEquals(4, f.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, f.status());
            x.qp.postRecv(new RecvWr().wrId(20).sg(x.sge(8192, 4096)));
            y.qp.postSend(new SendWr().wrId(21).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(y.sge(0, 64)));
            assertEquals(WcStatus.SUCCESS, await(y.cq, x, y).status());
            WorkCompletion in = await(x.cq, x, y);
            assertEquals(20, in.wrId());
            assertEquals(WcStatus.SUCCESS, in.status());
            assertEquals(QpState.SQE, x.qp.state());
            // SQE -> RTS resumes sending
            x.qp.modify(new QpAttr().qpState(QpState.RTS).curQpState(QpState.SQE),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.CUR_STATE));
            assertEquals(QpState.RTS, x.qp.state());
            fillPattern(x.buf.asSlice(0, 1500), 6);
            x.qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(x.sge(0, 1500)));
            assertEquals(WcStatus.SUCCESS, await(x.cq, x, y).status());
            WorkCompletion r = await(y.cq, x, y);
            assertEquals(11, r.wrId());
            assertEquals(1500, r.byteLen());
            assertEquals(-1, x.buf.asSlice(0, 1500).mismatch(y.buf.asSlice(4096, 1500)));
        }
    }

    @Test
    void shouldNotAllocateOnTheUcDataPath() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        RecvWr recv = new RecvWr().wrId(1).sg(new Sge(b.addr(0), 4096, b.mr.lkey()));
        SendWr send = new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(5).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 2500, a.mr.lkey()));
        SendWr write = new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(8192), 3000, a.mr.lkey())).remote(b.addr(8192), b.mr.rkey());
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion()};
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 4; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 1000; i++) {
                b.qp.postRecv(recv);
                a.qp.postSend(send);
                a.qp.postSend(write);
                int sendDone = 0;
                int recvDone = 0;
                long spins = 0;
                while (sendDone < 2 || recvDone < 1) {
                    b.ctx.progress();
                    sendDone += a.cq.poll(wcs);
                    recvDone += b.cq.poll(wcs);
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
        assertTrue(best < 256, "UC data path allocated " + best + " bytes in 1000 iterations");
    }

    static void fillPattern(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7 + (i >>> 8)));
        }
    }
}
