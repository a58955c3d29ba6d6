package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RDMA READ on RC (IBV_WR_RDMA_READ): sizes around the MTU, scatter lists, zero-length reads, the initiator depth
 * (max_rd_atomic) and responder resources (max_dest_rd_atomic), FENCE, ordering with other requests, and every way
 * the responder refuses a read, with both QPs' states and the flushes.
 */
public abstract class ReadTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected ReadTck() {
    }

    private static final int MTU = new Link().mtu.bytes();

    private static final long SOURCE = 1 << 15;

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 7, 1023, 1024, 1025, 2048, 5000, 12289})
    public void readOfEverySize(int len) {
        Side[] p = rcPair(1 << 16);
        fill(p[1].buf.asSlice(SOURCE, len), len);
        p[0].qp.postSend(readWr(p[0], 9, 5, len, p[1], SOURCE));
        WorkCompletion wc = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(9, wc.wrId());
        assertEquals(WcOpcode.RDMA_READ, wc.opcode());
        assertEquals(len, wc.byteLen());
        assertEquals(-1, p[1].buf.asSlice(SOURCE, len).mismatch(p[0].buf.asSlice(5, len)));
        assertEquals(0, p[0].buf.get(ValueLayout.JAVA_BYTE, 4), "the byte before is untouched");
        assertEquals(0, p[0].buf.get(ValueLayout.JAVA_BYTE, 5 + len), "the byte after is untouched");
        assertNoCompletion(p[1].cq, 5);
    }

    @Test
    public void readScattersIntoSeveralSges() {
        Side[] p = rcPair(1 << 16);
        int len = 2 * MTU + 100;
        fill(p[1].buf.asSlice(SOURCE, len), 3);
        Sge[] scatter = {p[0].sge(1, 50), p[0].sge(3000, MTU), p[0].sge(9000, MTU + 50)};
        p[0].qp.postSend(readWr(p[0], 1, 0, 0, p[1], SOURCE).sg(scatter));
        assertEquals(len, await(p[0].cq, WcStatus.SUCCESS).byteLen());
        MemorySegment src = p[1].buf.asSlice(SOURCE);
        assertEquals(-1, src.asSlice(0, 50).mismatch(p[0].buf.asSlice(1, 50)));
        assertEquals(-1, src.asSlice(50, MTU).mismatch(p[0].buf.asSlice(3000, MTU)));
        assertEquals(-1, src.asSlice(50 + MTU, MTU + 50).mismatch(p[0].buf.asSlice(9000, MTU + 50)));
    }

    @Test
    public void zeroLengthReadNeedsNoValidKey() {
        Side[] p = rcPair(4096);
        p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).remote(0xBEEF000L, 0x77).signaled(true));
        WorkCompletion wc = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RDMA_READ, wc.opcode());
        assertEquals(0, wc.byteLen());
        assertEquals(QpState.RTS, p[1].qp.state());
    }

    @Test
    public void largeReadAcrossManyResponsePackets() {
        int len = 512 * 1024 + 3;
        Side[] p = rcPair(2L * len);
        fill(p[1].buf.asSlice(len, len), 4);
        p[0].qp.postSend(readWr(p[0], 1, 0, len, p[1], len));
        assertEquals(len, await(p[0].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[1].buf.asSlice(len, len).mismatch(p[0].buf.asSlice(0, len)));
    }

    @Test
    public void manyReadsWithAnInitiatorDepthOfOne() {
        Link link = new Link();
        link.maxRd = 1;
        Side[] p = connectedPair(QpType.RC, 1 << 16, ALL_ACCESS, link);
        fill(p[1].buf.asSlice(SOURCE, 16 * 1000), 5);
        SendWr chain = null;
        for (int i = 15; i >= 0; i--) {
            chain = readWr(p[0], i, i * 1000L, 1000, p[1], SOURCE + i * 1000L).next(chain);
        }
        p[0].qp.postSend(chain);
        List<WorkCompletion> got = awaitN(p[0].cq, 16);
        for (int i = 0; i < 16; i++) {
            assertEquals(i, got.get(i).wrId(), "reads complete in order");
            assertEquals(WcStatus.SUCCESS, got.get(i).status());
        }
        assertEquals(-1, p[1].buf.asSlice(SOURCE, 16 * 1000).mismatch(p[0].buf.asSlice(0, 16 * 1000)));
    }

    @Test
    public void multiPacketReadsUpToTheInitiatorDepthAtOnce() {
        Side[] p = rcPair(1 << 16);
        int n = new Link().maxRd * 2;
        int len = 3 * MTU + 1;
        fill(p[1].buf.asSlice(SOURCE, (long) n * len), 6);
        SendWr chain = null;
        for (int i = n - 1; i >= 0; i--) {
            chain = readWr(p[0], i, (long) i * len, len, p[1], SOURCE + (long) i * len).next(chain);
        }
        p[0].qp.postSend(chain);
        assertEquals(n, awaitN(p[0].cq, n).stream().filter(WorkCompletion::isSuccess).count());
        assertEquals(-1, p[1].buf.asSlice(SOURCE, (long) n * len).mismatch(p[0].buf.asSlice(0, (long) n * len)));
    }

    @Test
    public void readsAndWritesCompleteInPostingOrder() {
        Side[] p = rcPair(1 << 16);
        fill(p[0].buf.asSlice(0, 4096), 7);
        fill(p[1].buf.asSlice(SOURCE, 4096), 8);
        p[0].qp.postSend(writeWr(p[0], 1, 0, 2000, p[1], 0)
                .next(readWr(p[0], 2, 8192, 3000, p[1], SOURCE)
                .next(writeWr(p[0], 3, 2000, 100, p[1], 2000)
                .next(readWr(p[0], 4, 12288, 10, p[1], SOURCE + 3000)))));
        List<WorkCompletion> got = awaitN(p[0].cq, 4);
        assertEquals(List.of(1L, 2L, 3L, 4L), got.stream().map(WorkCompletion::wrId).toList());
        assertEquals(List.of(WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ),
                got.stream().map(WorkCompletion::opcode).toList());
        assertEquals(-1, p[0].buf.asSlice(0, 2100).mismatch(p[1].buf.asSlice(0, 2100)));
        assertEquals(-1, p[1].buf.asSlice(SOURCE, 3000).mismatch(p[0].buf.asSlice(8192, 3000)));
    }

    @Test
    public void readReturnsDataWrittenBeforeItOnTheSameQp() {
        Side[] p = rcPair(1 << 16);
        fill(p[0].buf.asSlice(0, 3000), 9);
        // the write and the read of the same remote bytes: RC executes requests in order at the responder
        p[0].qp.postSend(writeWr(p[0], 1, 0, 3000, p[1], SOURCE).signaled(false)
                .next(readWr(p[0], 2, 8192, 3000, p[1], SOURCE)));
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(-1, p[0].buf.asSlice(0, 3000).mismatch(p[0].buf.asSlice(8192, 3000)));
    }

    @Test
    public void fencedSendAfterAReadCarriesTheReadData() {
        Side[] p = rcPair(1 << 16);
        fill(p[1].buf.asSlice(SOURCE, 2000), 10);
        p[1].postRecv(50, 0, 4096);
        // the SEND gathers the very bytes the READ fills: only a fence makes it wait for them
        SendWr send = sendWr(p[0], 2, 100, 2000).sendFlags(SendFlags.SIGNALED | SendFlags.FENCE);
        p[0].qp.postSend(readWr(p[0], 1, 100, 2000, p[1], SOURCE).next(send));
        List<WorkCompletion> got = awaitN(p[0].cq, 2);
        assertEquals(List.of(1L, 2L), got.stream().map(WorkCompletion::wrId).toList());
        assertEquals(2000, await(p[1].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[1].buf.asSlice(SOURCE, 2000).mismatch(p[1].buf.asSlice(0, 2000)),
                "the SEND left after the READ data arrived");
    }

    @Test
    public void fencedWriteAfterAReadCarriesTheReadData() {
        Side[] p = rcPair(1 << 16);
        fill(p[1].buf.asSlice(SOURCE, 3 * MTU), 11);
        SendWr write = writeWr(p[0], 2, 0, 3 * MTU, p[1], 0).sendFlags(SendFlags.SIGNALED | SendFlags.FENCE);
        p[0].qp.postSend(readWr(p[0], 1, 0, 3 * MTU, p[1], SOURCE).next(write));
        assertEquals(List.of(1L, 2L), awaitN(p[0].cq, 2).stream().map(WorkCompletion::wrId).toList());
        assertEquals(-1, p[1].buf.asSlice(SOURCE, 3 * MTU).mismatch(p[1].buf.asSlice(0, 3 * MTU)));
    }

    @Test
    public void unsignaledReadThenASignaledSend() {
        Side[] p = rcPair(1 << 16);
        fill(p[1].buf.asSlice(SOURCE, 500), 12);
        p[1].postRecv(1, 0, 64);
        p[0].qp.postSend(readWr(p[0], 1, 0, 500, p[1], SOURCE).signaled(false).next(sendWr(p[0], 2, 4096, 8)));
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[0].cq, 10);
        assertEquals(-1, p[1].buf.asSlice(SOURCE, 500).mismatch(p[0].buf.asSlice(0, 500)),
                "the read before the signaled send is complete");
    }

    // --------------------------------------------------------------------------------------------- refused reads

    @Test
    public void readWithABadRkeyIsARemoteAccessErrorBadFlow() {
        Side[] p = rcPair(1 << 16);
        assertFatalRemoteError(p[0], p[1], readWr(p[0], 0, 0, 100, p[1], 0).rkey(p[1].mr.rkey() ^ 0x5500),
                WcStatus.REM_ACCESS_ERR);
        assertEquals(0, p[0].buf.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    public void readPastTheEndOfTheRegionBadFlow() {
        Side[] p = rcPair(1 << 16);
        long end = p[1].mr.length();
        assertFatalRemoteError(p[0], p[1], readWr(p[0], 0, 0, 3 * MTU, p[1], end - MTU), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void readFromARegionWithoutRemoteReadBadFlow() {
        Side[] p = rcPair(4096);
        MemoryRegion writeOnly = closeLater(p[1].pd.registerMemory(buffer(4096), Access.LOCAL_WRITE
                | Access.REMOTE_WRITE));
        assertFatalRemoteError(p[0], p[1], readWr(p[0], 0, 0, 64, p[1], 0).remote(writeOnly.address(),
                writeOnly.rkey()), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void readFromAQpWithoutRemoteReadIsAnInvalidRequestBadFlow() {
        Link link = new Link();
        link.qpAccess = Access.REMOTE_WRITE;
        Side[] p = connectedPair(QpType.RC, 4096, ALL_ACCESS, link);
        assertFatalRemoteError(p[0], p[1], readWr(p[0], 0, 0, 64, p[1], 0), WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    public void readFromAResponderWithoutResourcesIsAnInvalidRequestBadFlow() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(QpType.RC);
        y.createQp(QpType.RC);
        Link link = new Link();
        connect(x, y, link);
        link.maxRd = 0; // y: max_dest_rd_atomic 0, no RDMA READ may target it
        connect(y, x, link);
        assertFatalRemoteError(x, y, readWr(x, 0, 0, 64, y, 0), WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    public void readIntoMemoryWithoutLocalWriteIsALocalProtectionErrorBadFlow() {
        Side[] p = rcPair(4096);
        MemoryRegion noLocalWrite = closeLater(p[0].pd.registerMemory(buffer(4096), Access.REMOTE_READ));
        fill(p[1].buf.asSlice(0, 100), 13);
        p[0].qp.postSend(readWr(p[0], 1, 0, 0, p[1], 0).sg(sge(noLocalWrite, 0, 100))
                .next(sendWr(p[0], 2, 0, 8)));
        WorkCompletion wc = await(p[0].cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.LOC_PROT_ERR, wc.status(), wc::toString);
        assertEquals(2, await(p[0].cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
        assertEquals(0, noLocalWrite.segment().get(ValueLayout.JAVA_LONG, 0), "nothing was placed");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mtu.class)
    public void readAtEveryPathMtu(Mtu mtu) {
        Link link = new Link();
        link.mtu = mtu;
        Side[] p = connectedPair(QpType.RC, 1 << 16, ALL_ACCESS, link);
        int len = 4 * mtu.bytes() + 1;
        fill(p[1].buf.asSlice(SOURCE, len), mtu.code());
        p[0].qp.postSend(readWr(p[0], 1, 0, len, p[1], SOURCE));
        assertEquals(len, await(p[0].cq, WcStatus.SUCCESS).byteLen());
        assertEquals(-1, p[1].buf.asSlice(SOURCE, len).mismatch(p[0].buf.asSlice(0, len)));
    }

    @Test
    public void readsFromBothSidesAtOnce() {
        Side[] p = rcPair(1 << 16);
        fill(p[0].buf.asSlice(SOURCE, 5000), 16);
        fill(p[1].buf.asSlice(SOURCE, 5000), 17);
        p[0].qp.postSend(readWr(p[0], 1, 0, 5000, p[1], SOURCE));
        p[1].qp.postSend(readWr(p[1], 2, 0, 5000, p[0], SOURCE));
        assertEquals(1, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(2, await(p[1].cq, WcStatus.SUCCESS).wrId());
        assertEquals(-1, p[1].buf.asSlice(SOURCE, 5000).mismatch(p[0].buf.asSlice(0, 5000)));
        assertEquals(-1, p[0].buf.asSlice(SOURCE, 5000).mismatch(p[1].buf.asSlice(0, 5000)));
    }
}
