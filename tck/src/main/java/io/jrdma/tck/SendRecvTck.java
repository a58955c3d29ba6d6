package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SEND and RECV on RC (ibv_post_send with IBV_WR_SEND*, ibv_post_recv), as rdma-core's tests/test_qpex.py and the
 * traffic helpers of tests/utils.py: every size around the path MTU, scatter/gather on both sides, immediate data,
 * inline data, solicited events, receive ordering, and the receiver-side errors (too small, no receive: RNR).
 */
public abstract class SendRecvTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected SendRecvTck() {
    }

    /** The path MTU {@link Link} connects with. */
    private static final int MTU = new Link().mtu.bytes();

    @Test
    public void sendLandsInPostedReceive() {
        Side[] p = rcPair(8192);
        Side x = p[0];
        Side y = p[1];
        fill(x.buf.asSlice(0, 3000), 5);
        y.qp.postRecv(new RecvWr().wrId(7).sg(y.sge(4096, 4096)));
        x.qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sg(x.sge(0, 3000)).signaled(true));
        WorkCompletion s = await(x.cq, WcStatus.SUCCESS);
        assertEquals(9, s.wrId());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = await(y.cq, WcStatus.SUCCESS);
        assertEquals(7, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(3000, r.byteLen());
        assertEquals(-1, x.buf.asSlice(0, 3000).mismatch(y.buf.asSlice(4096, 3000)));
    }

    /** Sizes as offsets from multiples of the path MTU: {@code k * MTU + d} is encoded as {@code k * 10000 + d}. */
    private static int size(int code) {
        int k = Math.floorDiv(code + 5000, 10000);
        return k * MTU + (code - k * 10000);
    }

    @ParameterizedTest(name = "{0} (k*10000+d = k MTUs + d bytes)")
    @ValueSource(ints = {0, 1, 2, 3, 10000 - 1, 10000, 10000 + 1, 20000, 30000 + 17, 70000 - 3})
    public void sendOfEverySizeAroundTheMtu(int code) {
        int len = size(code);
        Side[] p = rcPair(16 * MTU);
        Side x = p[0];
        Side y = p[1];
        fill(x.buf.asSlice(0, len), len);
        fill(y.buf.asSlice(8 * MTU, len + 64), 99); // a different pattern, so a short copy cannot pass
        y.postRecv(1, 8 * MTU, 8 * MTU);
        x.qp.postSend(sendWr(x, 2, 0, len));
        WorkCompletion s = await(x.cq, WcStatus.SUCCESS);
        assertEquals(2, s.wrId());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = await(y.cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(len, r.byteLen());
        assertEquals(y.qp.qpNum(), r.qpNum());
        assertEquals(0, r.wcFlags() & WcFlags.WITH_IMM);
        assertEquals(-1, x.buf.asSlice(0, len).mismatch(y.buf.asSlice(8 * MTU, len)));
        MemorySegment pattern = MemorySegment.ofArray(new byte[len + 64]);
        fill(pattern, 99);
        assertEquals(-1, pattern.asSlice(len, 64).mismatch(y.buf.asSlice(8 * MTU + len, 64)),
                "bytes past the message in the receive buffer are untouched");
    }

    @Test
    public void gatherListOfSeveralSgesFormsOneMessage() {
        Side[] p = rcPair(16384);
        Side x = p[0];
        fill(x.buf, 1);
        Sge[] gather = {x.sge(100, 700), x.sge(5000, 1), x.sge(9000, 1500), x.sge(2, 0)};
        p[1].postRecv(1, 0, 4096);
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(gather).signaled(true));
        assertEquals(2201, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        MemorySegment got = p[1].buf;
        assertEquals(-1, x.buf.asSlice(100, 700).mismatch(got.asSlice(0, 700)));
        assertEquals(x.buf.get(ValueLayout.JAVA_BYTE, 5000),
                got.get(ValueLayout.JAVA_BYTE, 700));
        assertEquals(-1, x.buf.asSlice(9000, 1500).mismatch(got.asSlice(701, 1500)));
    }

    @Test
    public void scatterListOfSeveralSgesReceivesOneMessage() {
        Side[] p = rcPair(16384);
        Side y = p[1];
        fill(p[0].buf.asSlice(0, 3000), 2);
        Sge[] scatter = {y.sge(1000, 1), y.sge(4000, 999), y.sge(8000, 0), y.sge(12000, 4000)};
        y.qp.postRecv(new RecvWr().wrId(1).sg(scatter));
        p[0].qp.postSend(sendWr(p[0], 2, 0, 3000));
        assertEquals(3000, await(y.cq, WcStatus.SUCCESS).byteLen());
        MemorySegment src = p[0].buf;
        assertEquals(src.get(ValueLayout.JAVA_BYTE, 0),
                y.buf.get(ValueLayout.JAVA_BYTE, 1000));
        assertEquals(-1, src.asSlice(1, 999).mismatch(y.buf.asSlice(4000, 999)));
        assertEquals(-1, src.asSlice(1000, 2000).mismatch(y.buf.asSlice(12000, 2000)));
    }

    @Test
    public void sgeListsOnBothSidesWithUnalignedBoundaries() {
        Side[] p = rcPair(32768);
        Side x = p[0];
        Side y = p[1];
        fill(x.buf, 3);
        Sge[] gather = {x.sge(3, MTU - 1), x.sge(2 * MTU + 1, MTU + 5), x.sge(5 * MTU, 3)};
        Sge[] scatter = {y.sge(16384 + 7, 10), y.sge(20000, MTU), y.sge(24000, 2 * MTU)};
        int len = (MTU - 1) + (MTU + 5) + 3;
        y.qp.postRecv(new RecvWr().wrId(1).sg(scatter));
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(gather).signaled(true));
        assertEquals(len, await(y.cq, WcStatus.SUCCESS).byteLen());
        byte[] sent = new byte[len];
        int o = 0;
        for (Sge s : gather) {
            MemorySegment.copy(x.buf, ValueLayout.JAVA_BYTE, s.addr() - x.mr.address(), sent, o,
                    s.length());
            o += s.length();
        }
        byte[] got = new byte[len];
        o = 0;
        for (Sge s : scatter) {
            int n = Math.min(s.length(), len - o);
            MemorySegment.copy(y.buf, ValueLayout.JAVA_BYTE, s.addr() - y.mr.address(), got, o, n);
            o += n;
        }
        assertEquals(-1, Arrays.mismatch(sent, got));
    }

    @Test
    public void sendWithImmediateDeliversTheImmediate() {
        Side[] p = rcPair(4096);
        p[1].postRecv(1, 0, 256);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 100).opcode(WrOpcode.SEND_WITH_IMM).immData(0xCAFEBABE));
        WorkCompletion s = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.SEND, s.opcode(), "a send with immediate completes as SEND at the sender");
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RECV, r.opcode());
        assertTrue((r.wcFlags() & WcFlags.WITH_IMM) != 0, r::toString);
        assertEquals(0xCAFEBABE, r.immData());
        assertEquals(100, r.byteLen());
    }

    @Test
    public void zeroLengthSendWithImmediateCarriesOnlyTheImmediate() {
        Side[] p = rcPair(4096);
        p[1].qp.postRecv(new RecvWr().wrId(1)); // no scatter entries at all
        p[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(7).signaled(true));
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(0, r.byteLen());
        assertEquals(7, r.immData());
        assertTrue((r.wcFlags() & WcFlags.WITH_IMM) != 0);
    }

    @Test
    public void multiPacketSendWithImmediate() {
        Side[] p = rcPair(4 * MTU);
        fill(p[0].buf.asSlice(0, 3 * MTU + 1), 4);
        p[1].postRecv(1, 0, 4 * MTU);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 3 * MTU + 1).opcode(WrOpcode.SEND_WITH_IMM).immData(-1));
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(3 * MTU + 1, r.byteLen());
        assertEquals(-1, r.immData());
        assertEquals(-1, p[0].buf.asSlice(0, 3 * MTU + 1).mismatch(p[1].buf.asSlice(0, 3 * MTU + 1)));
    }

    @Test
    public void inlineSendCopiesTheDataAtPostTime() {
        Side[] p = rcPair(4096);
        Side x = p[0];
        fill(x.buf.asSlice(0, 60), 8);
        byte[] original = x.buf.asSlice(0, 60).toArray(ValueLayout.JAVA_BYTE);
        p[1].postRecv(1, 0, 64);
        moveTo(x.qp, QpState.SQD); // the request cannot start before the buffer is overwritten
        x.qp.postSend(sendWr(x, 2, 0, 60).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        x.buf.asSlice(0, 60).fill((byte) 0x5A);
        moveTo(x.qp, QpState.RTS);
        await(x.cq, WcStatus.SUCCESS);
        assertEquals(60, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, MemorySegment.ofArray(original).mismatch(p[1].buf.asSlice(0, 60)),
                "an inline send carries the bytes as they were when posted");
    }

    @Test
    public void inlineSendOfExactlyMaxInlineAndOfNothing() {
        Side[] p = rcPair(4096);
        int max = p[0].qp.cap().maxInlineData();
        fill(p[0].buf.asSlice(0, max), 9);
        p[1].postRecv(1, 0, 1024);
        p[1].postRecv(2, 1024, 1024);
        p[0].qp.postSend(sendWr(p[0], 3, 0, max).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        p[0].qp.postSend(sendWr(p[0], 4, 0, 0).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        assertEquals(max, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(0, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, max).mismatch(p[1].buf.asSlice(0, max)));
        assertEquals(2, awaitN(p[0].cq, 2).size());
    }

    @Test
    public void inlineGatherListOfSeveralSges() {
        Side[] p = rcPair(4096);
        fill(p[0].buf, 10);
        p[1].postRecv(1, 0, 64);
        p[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(p[0].sge(10, 20), p[0].sge(1000, 30))
                .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE));
        assertEquals(50, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[0].buf.asSlice(10, 20).mismatch(p[1].buf.asSlice(0, 20)));
        assertEquals(-1, p[0].buf.asSlice(1000, 30).mismatch(p[1].buf.asSlice(20, 30)));
    }

    @Test
    public void solicitedSendWakesAReceiverArmedForSolicitedOnly() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue recvCq = closeLater(b.createCq(8, ch));
        x.createQp(QpType.RC);
        y.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(y.cq).recvCq(recvCq).cap(defaultCap()));
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        y.postRecv(1, 0, 64);
        y.postRecv(2, 64, 64);
        recvCq.requestNotify(true);
        x.qp.postSend(sendWr(x, 10, 0, 8).opcode(WrOpcode.SEND_WITH_IMM).immData(1));
        await(x.cq, WcStatus.SUCCESS);
        assertEquals(null, ch.awaitEvent(Duration.ofMillis(30)));
        x.qp.postSend(sendWr(x, 11, 0, 8).opcode(WrOpcode.SEND_WITH_IMM).immData(2)
                .sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED));
        assertSame(recvCq, ch.awaitEvent(Duration.ofSeconds(5)));
        recvCq.ackEvents(1);
        List<WorkCompletion> got = awaitN(recvCq, 2);
        assertEquals(List.of(1, 2), got.stream().map(WorkCompletion::immData).toList());
    }

    @Test
    public void receivesAreConsumedInPostingOrder() {
        Side[] p = rcPair(16384);
        for (int i = 0; i < 8; i++) {
            p[1].postRecv(100 + i, i * 1024L, 1024);
        }
        for (int i = 0; i < 8; i++) {
            fill(p[0].buf.asSlice(i * 1024L, 10 + i), i);
            p[0].qp.postSend(sendWr(p[0], i, i * 1024L, 10 + i));
        }
        List<WorkCompletion> got = awaitN(p[1].cq, 8);
        for (int i = 0; i < 8; i++) {
            assertEquals(100 + i, got.get(i).wrId());
            assertEquals(10 + i, got.get(i).byteLen(), "message i went into receive i");
            assertEquals(-1, p[0].buf.asSlice(i * 1024L, 10 + i).mismatch(p[1].buf.asSlice(i * 1024L, 10 + i)));
        }
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), awaitN(p[0].cq, 8).stream().map(WorkCompletion::wrId)
                .toList(), "send completions come in posting order");
    }

    @Test
    public void aFullSendQueueOfOutstandingMessages() {
        Side[] p = rcPair(1 << 16);
        int n = p[0].qp.cap().maxSendWr();
        RecvWr recvs = null;
        SendWr sends = null;
        for (int i = n - 1; i >= 0; i--) {
            recvs = new RecvWr().wrId(1000 + i).sg(p[1].sge(i * 1024L, 1024)).next(recvs);
            sends = sendWr(p[0], i, i * 1024L, 1000 + i % 24).next(sends);
        }
        fill(p[0].buf, 11);
        p[1].qp.postRecv(recvs);
        p[0].qp.postSend(sends);
        List<WorkCompletion> s = awaitN(p[0].cq, n);
        List<WorkCompletion> r = awaitN(p[1].cq, n);
        for (int i = 0; i < n; i++) {
            assertEquals(i, s.get(i).wrId());
            assertEquals(WcStatus.SUCCESS, s.get(i).status());
            assertEquals(1000 + i, r.get(i).wrId());
            assertEquals(1000 + i % 24, r.get(i).byteLen());
            assertEquals(-1, p[0].buf.asSlice(i * 1024L, 1000 + i % 24)
                    .mismatch(p[1].buf.asSlice(i * 1024L, 1000 + i % 24)));
        }
    }

    @Test
    public void bothSidesSendAtOnce() {
        Side[] p = rcPair(8192);
        fill(p[0].buf.asSlice(0, 2500), 1);
        fill(p[1].buf.asSlice(0, 2500), 2);
        p[0].postRecv(1, 4096, 4096);
        p[1].postRecv(2, 4096, 4096);
        p[0].qp.postSend(sendWr(p[0], 3, 0, 2500));
        p[1].qp.postSend(sendWr(p[1], 4, 0, 2500));
        List<WorkCompletion> atX = awaitN(p[0].cq, 2);
        List<WorkCompletion> atY = awaitN(p[1].cq, 2);
        assertEquals(Set.of(1L, 3L), Set.of(atX.get(0).wrId(), atX.get(1).wrId()));
        assertEquals(Set.of(2L, 4L), Set.of(atY.get(0).wrId(), atY.get(1).wrId()));
        assertEquals(-1, p[0].buf.asSlice(0, 2500).mismatch(p[1].buf.asSlice(4096, 2500)));
        assertEquals(-1, p[1].buf.asSlice(0, 2500).mismatch(p[0].buf.asSlice(4096, 2500)));
    }

    // --------------------------------------------------------------------------------------------- receiver errors

    @Test
    public void receiveTooSmallIsALocalLengthErrorAtTheReceiverBadFlow() {
        Side[] p = rcPair(8192);
        Side x = p[0];
        Side y = p[1];
        y.postRecv(5, 0, 100);
        y.postRecv(6, 4096, 100);
        x.qp.postSend(sendWr(x, 7, 0, 2500).next(sendWr(x, 8, 0, 10)));
        WorkCompletion recv = await(y.cq);
        assertEquals(5, recv.wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, recv.status(), recv::toString);
        assertEquals(6, await(y.cq, WcStatus.WR_FLUSH_ERR).wrId());
        WorkCompletion send = await(x.cq);
        assertEquals(7, send.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, send.status(), send::toString);
        assertEquals(8, await(x.cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, x.qp.state());
        assertEquals(QpState.ERR, y.qp.state());
        assertNoCompletion(x.cq, 20);
        assertNoCompletion(y.cq, 1);
    }

    @Test
    public void receiveIntoMemoryWithoutLocalWriteIsAProtectionErrorBadFlow() {
        Side[] p = rcPair(8192);
        MemoryRegion readOnly = closeLater(p[1].pd.registerMemory(buffer(4096), Access.REMOTE_READ));
        p[1].qp.postRecv(new RecvWr().wrId(5).sg(sge(readOnly, 0, 256)));
        p[1].postRecv(6, 0, 256);
        p[0].qp.postSend(sendWr(p[0], 7, 0, 64).next(sendWr(p[0], 8, 0, 8)));
        WorkCompletion recv = await(p[1].cq);
        assertEquals(5, recv.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, recv.status(), recv::toString);
        assertEquals(6, await(p[1].cq, WcStatus.WR_FLUSH_ERR).wrId());
        WorkCompletion send = await(p[0].cq);
        assertEquals(WcStatus.REM_OP_ERR, send.status(), send::toString);
        assertEquals(8, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
        assertEquals(QpState.ERR, p[1].qp.state());
        assertEquals(0, readOnly.segment().get(ValueLayout.JAVA_LONG, 0), "nothing was written");
    }

    @Test
    public void receiveWithoutScatterEntriesTakesOnlyEmptyMessagesBadFlow() {
        Side[] p = rcPair(4096);
        p[1].qp.postRecv(new RecvWr().wrId(1));
        p[1].qp.postRecv(new RecvWr().wrId(2));
        p[0].qp.postSend(sendWr(p[0], 3, 0, 0).next(sendWr(p[0], 4, 0, 1)));
        assertEquals(0, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(2, await(p[1].cq, WcStatus.LOC_LEN_ERR).wrId());
        assertEquals(3, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(4, await(p[0].cq, WcStatus.REM_INV_REQ_ERR).wrId());
    }

    private Side[] rnrPair(int rnrRetry) {
        Link link = new Link();
        link.rnrRetry = rnrRetry;
        link.minRnrTimer = 1; // 0.01 ms between tries
        return connectedPair(QpType.RC, 8192, ALL_ACCESS, link);
    }

    @Test
    public void rnrRetriesExhaustedIsRnrRetryExceededBadFlow() {
        Side[] p = rnrPair(2);
        p[0].qp.postSend(sendWr(p[0], 1, 0, 64).next(sendWr(p[0], 2, 0, 8)));
        WorkCompletion wc = await(p[0].cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status(), wc::toString);
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
        assertEquals(QpState.RTS, p[1].qp.state(), "an RNR NAK is not an error at the responder");
        assertNoCompletion(p[1].cq, 20);
    }

    @Test
    public void rnrRetryZeroFailsAtTheFirstRnrNakBadFlow() {
        Side[] p = rnrPair(0);
        p[0].qp.postSend(sendWr(p[0], 1, 0, 64));
        assertEquals(1, await(p[0].cq, WcStatus.RNR_RETRY_EXC_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
        p[1].postRecv(9, 0, 64); // too late: nothing arrives
        assertNoCompletion(p[1].cq, 20);
    }

    @Test
    public void rnrRetryRecoversOnceAReceiveIsPosted() {
        Side[] p = rnrPair(7); // 7 = retry forever
        fill(p[0].buf.asSlice(0, 64), 12);
        p[0].qp.postSend(sendWr(p[0], 1, 0, 64));
        assertNoCompletion(p[0].cq, 30); // RNR NAKs go back and forth; nothing completes
        p[1].postRecv(2, 0, 64);
        assertEquals(1, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(64, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 64).mismatch(p[1].buf.asSlice(0, 64)));
    }

    @Test
    public void rnrOnAMultiPacketSendResendsTheWholeMessage() {
        Side[] p = rnrPair(7);
        fill(p[0].buf.asSlice(0, 3 * MTU), 13);
        p[0].qp.postSend(sendWr(p[0], 1, 0, 3 * MTU));
        assertNoCompletion(p[0].cq, 20);
        p[1].postRecv(2, 4096, 4096);
        assertEquals(3 * MTU, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(-1, p[0].buf.asSlice(0, 3 * MTU).mismatch(p[1].buf.asSlice(4096, 3 * MTU)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mtu.class)
    public void sendAtEveryPathMtu(Mtu mtu) {
        Link link = new Link();
        link.mtu = mtu;
        Side[] p = connectedPair(QpType.RC, 1 << 15, ALL_ACCESS, link);
        int len = 3 * mtu.bytes() + mtu.bytes() / 2;
        fill(p[0].buf.asSlice(0, len), mtu.code());
        p[1].postRecv(1, 16384, 16384);
        p[1].postRecv(2, 0, 16);
        p[0].qp.postSend(sendWr(p[0], 3, 0, len).next(sendWr(p[0], 4, 0, mtu.bytes())));
        assertEquals(len, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(WcStatus.LOC_LEN_ERR, await(p[1].cq).status(), "one MTU does not fit 16 bytes");
        assertEquals(-1, p[0].buf.asSlice(0, len).mismatch(p[1].buf.asSlice(16384, len)));
        assertEquals(WcStatus.SUCCESS, await(p[0].cq).status());
        assertEquals(WcStatus.REM_INV_REQ_ERR, await(p[0].cq).status());
    }

    @Test
    public void solicitedMultiPacketSendWakesTheReceiver() {
        Side x = sideA(1 << 14, ALL_ACCESS);
        Side y = sideB(1 << 14, ALL_ACCESS);
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue recvCq = closeLater(b.createCq(8, ch));
        x.createQp(QpType.RC);
        y.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(y.cq).recvCq(recvCq).cap(defaultCap()));
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        y.postRecv(1, 0, 8192);
        recvCq.requestNotify(true);
        x.qp.postSend(sendWr(x, 2, 0, 3 * MTU + 3).sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED));
        assertSame(recvCq, ch.awaitEvent(Duration.ofSeconds(5)));
        recvCq.ackEvents(1);
        assertEquals(3 * MTU + 3, awaitN(recvCq, 1).getFirst().byteLen());
    }

    @Test
    public void theResponderMinRnrTimerPacesTheRetries() {
        Link link = new Link();
        link.rnrRetry = 2;
        link.minRnrTimer = 20; // 10.24 ms per RNR NAK
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        long t0 = System.nanoTime();
        p[0].qp.postSend(sendWr(p[0], 1, 0, 8));
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, await(p[0].cq).status());
        long ms = (System.nanoTime() - t0) / 1_000_000L;
        assertTrue(ms >= 20, () -> "two waits of 10.24 ms before giving up, took " + ms + " ms");
    }

    @Test
    public void sendGathersFromTwoRegionsOfOnePd() {
        Side[] p = rcPair(4096);
        MemoryRegion second = closeLater(p[0].pd.registerMemory(buffer(4096), 0));
        fill(p[0].buf.asSlice(0, 100), 14);
        fill(second.segment().asSlice(0, 200), 15);
        p[1].postRecv(1, 0, 4096);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 0).sg(p[0].sge(0, 100), sge(second, 0, 200)));
        assertEquals(300, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 100).mismatch(p[1].buf.asSlice(0, 100)));
        assertEquals(-1, second.segment().asSlice(0, 200).mismatch(p[1].buf.asSlice(100, 200)));
    }

    @Test
    public void receiveOverflowingInTheMiddleOfAMessageBadFlow() {
        Side[] p = rcPair(8192);
        p[1].postRecv(1, 0, MTU + MTU / 2); // the first packet fits, the message does not
        p[1].postRecv(2, 4096, 4096);
        p[0].qp.postSend(sendWr(p[0], 3, 0, 2 * MTU + 1));
        assertEquals(1, await(p[1].cq, WcStatus.LOC_LEN_ERR).wrId());
        assertEquals(2, await(p[1].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(3, await(p[0].cq, WcStatus.REM_INV_REQ_ERR).wrId());
        assertEquals(QpState.ERR, p[1].qp.state());
    }

    @Test
    public void requestsQueuedBehindAnRnrNakedSendFollowItInOrder() {
        Side[] p = rnrPair(7);
        fill(p[1].buf.asSlice(4096, 2000), 16);
        fill(p[0].buf.asSlice(0, 100), 17);
        // SEND (no receive yet: RNR NAK), then a READ and a WRITE that the responder must not run before it
        p[0].qp.postSend(sendWr(p[0], 1, 0, 100)
                .next(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sg(p[0].sge(4096, 2000))
                        .remote(p[1].addr(4096), p[1].mr.rkey()).signaled(true)
                .next(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE).sg(p[0].sge(0, 100))
                        .remote(p[1].addr(2048), p[1].mr.rkey()).signaled(true))));
        assertNoCompletion(p[0].cq, 20);
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_LONG, 2048), "the WRITE waits its turn");
        p[1].postRecv(9, 0, 100);
        assertEquals(List.of(1L, 2L, 3L), awaitN(p[0].cq, 3).stream().filter(WorkCompletion::isSuccess)
                .map(WorkCompletion::wrId).toList());
        assertEquals(100, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[1].buf.asSlice(4096, 2000).mismatch(p[0].buf.asSlice(4096, 2000)));
        assertEquals(-1, p[0].buf.asSlice(0, 100).mismatch(p[1].buf.asSlice(2048, 100)));
    }

    @Test
    public void anRnrNakAfterAReadRetriesOnlyTheSend() {
        Side[] p = rnrPair(7);
        fill(p[1].buf.asSlice(4096, 3000), 18);
        p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sg(p[0].sge(4096, 3000))
                .remote(p[1].addr(4096), p[1].mr.rkey()).signaled(true).next(sendWr(p[0], 2, 0, 10)));
        WorkCompletion read = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(1, read.wrId(), "the READ completes while the SEND behind it waits for a receive");
        assertNoCompletion(p[0].cq, 10);
        p[1].postRecv(5, 0, 10);
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(5, await(p[1].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[1].cq, 10);
        assertEquals(-1, p[1].buf.asSlice(4096, 3000).mismatch(p[0].buf.asSlice(4096, 3000)));
    }
}
