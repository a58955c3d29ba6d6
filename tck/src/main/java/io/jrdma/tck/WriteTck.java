package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RDMA WRITE and WRITE with immediate on RC (IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM): sizes around the MTU,
 * gather lists, immediate data consuming a receive, zero-length writes, and every way the responder refuses a
 * write (bad rkey, out of bounds, rights missing on the MR or the QP) with both QPs' states and the flushes.
 */
public abstract class WriteTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected WriteTck() {
    }

    private static final int MTU = new Link().mtu.bytes();

    private static final long TARGET = 1 << 15;

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 3, 1023, 1024, 1025, 4096, 4097, 10000})
    public void writeOfEverySize(int len) {
        Side[] p = rcPair(1 << 16);
        fill(p[0].buf.asSlice(0, len), len);
        p[0].qp.postSend(writeWr(p[0], 5, 0, len, p[1], TARGET + 3));
        WorkCompletion wc = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(5, wc.wrId());
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        assertEquals(-1, p[0].buf.asSlice(0, len).mismatch(p[1].buf.asSlice(TARGET + 3, len)));
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_BYTE, TARGET + 2), "the byte before is untouched");
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_BYTE, TARGET + 3 + len), "the byte after is untouched");
        assertNoCompletion(p[1].cq, 5);
    }

    @Test
    public void writeGathersFromSeveralSges() {
        Side[] p = rcPair(1 << 16);
        fill(p[0].buf, 2);
        Sge[] gather = {p[0].sge(7, MTU + 1), p[0].sge(4000, 2), p[0].sge(9000, 2 * MTU)};
        p[0].qp.postSend(writeWr(p[0], 1, 0, 0, p[1], TARGET).sg(gather));
        await(p[0].cq, WcStatus.SUCCESS);
        MemorySegment got = p[1].buf.asSlice(TARGET);
        assertEquals(-1, p[0].buf.asSlice(7, MTU + 1).mismatch(got.asSlice(0, MTU + 1)));
        assertEquals(-1, p[0].buf.asSlice(4000, 2).mismatch(got.asSlice(MTU + 1, 2)));
        assertEquals(-1, p[0].buf.asSlice(9000, 2 * MTU).mismatch(got.asSlice(MTU + 3, 2 * MTU)));
    }

    @Test
    public void plainWriteConsumesNoReceive() {
        Side[] p = rcPair(1 << 16);
        p[1].postRecv(40, 0, 64);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 100, p[1], TARGET));
        await(p[0].cq, WcStatus.SUCCESS);
        assertNoCompletion(p[1].cq, 20);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 8));
        assertEquals(40, await(p[1].cq, WcStatus.SUCCESS).wrId(), "the receive was still there for the SEND");
    }

    @Test
    public void writeWithImmediateConsumesAReceive() {
        Side[] p = rcPair(1 << 16);
        fill(p[0].buf.asSlice(0, 3000), 3);
        p[1].postRecv(40, 0, 16); // smaller than the write: the data goes to the rkey's memory, not here
        p[0].qp.postSend(writeWr(p[0], 1, 0, 3000, p[1], TARGET).opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                .immData(0x12345678));
        WorkCompletion s = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RDMA_WRITE, s.opcode());
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(40, r.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(3000, r.byteLen(), "byte_len of RECV_RDMA_WITH_IMM is the write's length");
        assertTrue((r.wcFlags() & WcFlags.WITH_IMM) != 0);
        assertEquals(0x12345678, r.immData());
        assertEquals(-1, p[0].buf.asSlice(0, 3000).mismatch(p[1].buf.asSlice(TARGET, 3000)));
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_LONG, 0), "the receive buffer is not written");
    }

    @Test
    public void zeroLengthWriteWithImmediateConsumesAReceive() {
        Side[] p = rcPair(4096);
        p[1].postRecv(40, 0, 16);
        p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(5).signaled(true));
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(0, r.byteLen());
        assertEquals(5, r.immData());
        await(p[0].cq, WcStatus.SUCCESS);
    }

    @Test
    public void writeWithImmediateWaitsForAReceive() {
        Link link = new Link();
        link.minRnrTimer = 1;
        Side[] p = connectedPair(QpType.RC, 1 << 16, ALL_ACCESS, link);
        fill(p[0].buf.asSlice(0, 3 * MTU), 4);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 3 * MTU, p[1], TARGET).opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                .immData(77));
        assertNoCompletion(p[0].cq, 20); // RNR: the last packet needs a receive
        p[1].postRecv(2, 0, 8);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(3 * MTU, r.byteLen());
        assertEquals(77, r.immData());
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(-1, p[0].buf.asSlice(0, 3 * MTU).mismatch(p[1].buf.asSlice(TARGET, 3 * MTU)));
    }

    @Test
    public void zeroLengthWriteNeedsNoValidKey() {
        Side[] p = rcPair(4096);
        // C9-88: a zero-byte RDMA operation is not required to carry a valid address or rkey
        p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).remote(0xDEAD0000L, 0x1234).signaled(true));
        WorkCompletion wc = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        assertEquals(QpState.RTS, p[1].qp.state());
    }

    @Test
    public void unsignaledWritesThenASignaledOne() {
        Side[] p = rcPair(1 << 16);
        fill(p[0].buf.asSlice(0, 8000), 5);
        for (int i = 0; i < 7; i++) {
            p[0].qp.postSend(writeWr(p[0], i, i * 1000L, 1000, p[1], TARGET + i * 1000L).signaled(false));
        }
        p[0].qp.postSend(writeWr(p[0], 7, 7000, 1000, p[1], TARGET + 7000));
        assertEquals(7, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[0].cq, 20);
        assertEquals(-1, p[0].buf.asSlice(0, 8000).mismatch(p[1].buf.asSlice(TARGET, 8000)),
                "every write before the signaled one is done when it completes");
    }

    @Test
    public void unsignaledWritesFreeTheirSlotsForMoreThanADepth() {
        Side[] p = rcPair(1 << 16);
        int depth = p[0].qp.cap().maxSendWr();
        fill(p[0].buf.asSlice(0, 8), 6);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < depth - 1; i++) {
                p[0].qp.postSend(writeWr(p[0], i, 0, 8, p[1], TARGET + 8L * i).signaled(false));
            }
            p[0].qp.postSend(writeWr(p[0], 1000 + round, 0, 8, p[1], 0));
            assertEquals(1000 + round, await(p[0].cq, WcStatus.SUCCESS).wrId());
        }
        assertNoCompletion(p[0].cq, 10);
    }

    @Test
    public void largeWriteAcrossManyPackets() {
        int len = 256 * 1024 + 5;
        Side[] p = rcPair(2L * len);
        fill(p[0].buf.asSlice(0, len), 7);
        p[0].qp.postSend(writeWr(p[0], 1, 0, len, p[1], len));
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(-1, p[0].buf.asSlice(0, len).mismatch(p[1].buf.asSlice(len, len)));
    }

    // --------------------------------------------------------------------------------------------- refused writes

    @Test
    public void writeWithABadRkeyIsARemoteAccessErrorBadFlow() {
        Side[] p = rcPair(1 << 16);
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 100, p[1], 0).rkey(p[1].mr.rkey() ^ 0x5500),
                WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void writePastTheEndOfTheRegionBadFlow() {
        Side[] p = rcPair(1 << 16);
        long end = p[1].mr.length();
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 100, p[1], end - 99), WcStatus.REM_ACCESS_ERR);
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_BYTE, end - 1), "nothing of the refused write landed");
    }

    @Test
    public void writeBeforeTheStartOfTheRegionBadFlow() {
        Side[] p = rcPair(1 << 16);
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 16, p[1], 0).remote(p[1].addr(0) - 8,
                p[1].mr.rkey()), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void multiPacketWriteOverflowingTheRegionBadFlow() {
        Side[] p = rcPair(1 << 16);
        long end = p[1].mr.length();
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 3 * MTU, p[1], end - 2 * MTU),
                WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void writeToARegionWithoutRemoteWriteBadFlow() {
        Side[] p = rcPair(4096);
        MemoryRegion readOnly = closeLater(p[1].pd.registerMemory(buffer(4096), Access.LOCAL_WRITE
                | Access.REMOTE_READ));
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 64, p[1], 0).remote(readOnly.address(),
                readOnly.rkey()), WcStatus.REM_ACCESS_ERR);
        assertEquals(0, readOnly.segment().get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    public void writeToAQpWithoutRemoteWriteIsAnInvalidRequestBadFlow() {
        Link link = new Link();
        link.qpAccess = Access.REMOTE_READ;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        // as rxe's check_op_valid: an operation the QP does not enable is an invalid request (NAK code 1)
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 64, p[1], 0), WcStatus.REM_INV_REQ_ERR);
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    public void writeWithImmediateAndABadRkeyFailsTheReceiveItConsumedBadFlow() {
        Side[] p = rcPair(4096);
        p[1].postRecv(100, 0, 64);
        p[1].postRecv(101, 64, 64);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 64, p[1], 0).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(1)
                .rkey(p[1].mr.rkey() ^ 0x5500).next(sendWr(p[0], 2, 0, 8)));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(p[0].cq).status());
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        // IBA / ibv_poll_cq(3): the receive a WRITE with immediate consumed completes with a local access error
        WorkCompletion consumed = await(p[1].cq);
        assertEquals(100, consumed.wrId());
        assertEquals(WcStatus.LOC_ACCESS_ERR, consumed.status(), consumed::toString);
        assertEquals(101, await(p[1].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
        assertEquals(QpState.ERR, p[1].qp.state());
    }

    @Test
    public void laterWritesAfterAFailedOneAreFlushedNotExecutedBadFlow() {
        Side[] p = rcPair(4096);
        fill(p[0].buf.asSlice(0, 64), 8);
        SendWr bad = writeWr(p[0], 1, 0, 64, p[1], 0).rkey(p[1].mr.rkey() ^ 0x5500);
        SendWr good = writeWr(p[0], 2, 0, 64, p[1], 1024);
        p[0].qp.postSend(bad.next(good));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(p[0].cq).status());
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertNoCompletion(p[0].cq, 20);
        assertEquals(0, p[1].buf.get(ValueLayout.JAVA_LONG, 1024), "the flushed write never executed");
    }

    @Test
    public void anUnsignaledWriteThatFailsStillCompletesBadFlow() {
        Side[] p = rcPair(4096);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 8, p[1], 0).rkey(p[1].mr.rkey() ^ 0x5500).signaled(false)
                .next(writeWr(p[0], 2, 0, 8, p[1], 0).signaled(false)));
        WorkCompletion wc = await(p[0].cq);
        assertEquals(1, wc.wrId(), "errors complete even when unsignaled");
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId(), "and so do flushes");
        assertNoCompletion(p[0].cq, 10);
    }

    @Test
    public void solicitedWriteWithImmediateWakesTheReceiver() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        CompletionChannel ch = closeLater(b.createCompletionChannel());
        CompletionQueue recvCq = closeLater(b.createCq(8, ch));
        x.createQp(QpType.RC);
        y.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(y.cq).recvCq(recvCq)
                .cap(defaultCap()));
        Link link = new Link();
        connect(x, y, link);
        connect(y, x, link);
        y.postRecv(1, 0, 8);
        y.postRecv(2, 0, 8);
        recvCq.requestNotify(true);
        x.qp.postSend(writeWr(x, 3, 0, 8, y, 64).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(1));
        await(x.cq, WcStatus.SUCCESS);
        assertEquals(null, ch.awaitEvent(Duration.ofMillis(30)));
        x.qp.postSend(writeWr(x, 4, 0, 8, y, 64).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(2)
                .sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED));
        assertEquals(recvCq, ch.awaitEvent(Duration.ofSeconds(5)));
        recvCq.ackEvents(1);
        assertEquals(2, awaitN(recvCq, 2).get(1).immData());
    }
}
