package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Remote access violations (IBA 9.7.5.2.8, class C): the responder NAKs with a remote access error, the requester
 * completes the WR with REM_ACCESS_ERR, both QPs go to ERR and every later WR is flushed with WR_FLUSH_ERR.
 * A receive buffer that is too small gives LOC_LEN_ERR at the receiver and REM_INV_REQ_ERR at the sender.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RemoteAccessBadFlowTest {

    private Pair pair;

    @BeforeEach
    void connect() {
        pair = Pair.invoker("127.0.2.1", "127.0.2.2", 1 << 20);
    }

    @AfterEach
    void close() {
        pair.close();
    }

    /** Posts a receive at b, then {@code bad} followed by a second WR at a; asserts the error and both flushes. */
    private void assertRemoteError(SendWr bad, WcStatus expected) {
        Peer a = pair.a;
        Peer b = pair.b;
        b.qp.postRecv(new RecvWr().wrId(77).sg(new Sge(b.addr(0), 64, b.mr.lkey())));
        SendWr after = new SendWr().wrId(99).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 8, a.mr.lkey()));
        bad.wrId(98).sendFlags(SendFlags.SIGNALED).next(after);
        a.qp.postSend(bad);

        WorkCompletion first = pair.await(a.cq);
        assertEquals(98, first.wrId());
        assertEquals(expected, first.status(), first.toString());
        WorkCompletion second = pair.await(a.cq);
        assertEquals(99, second.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, second.status(), "the WR after the error is flushed");
        assertEquals(QpState.ERR, a.qp.state());
        if (expected == WcStatus.REM_ACCESS_ERR || expected == WcStatus.REM_INV_REQ_ERR) {
            WorkCompletion recv = pair.await(b.cq);
            if (recv.status() == WcStatus.LOC_LEN_ERR) {
                recv = pair.await(b.cq);
            }
            assertEquals(QpState.ERR, b.qp.state(), "the responder QP goes to ERR on a class C error");
        }
    }

    private SendWr write(long remoteAddr, int rkey, int len) {
        return new SendWr().opcode(WrOpcode.RDMA_WRITE).sg(new Sge(pair.a.addr(0), len, pair.a.mr.lkey()))
                .remoteAddr(remoteAddr).rkey(rkey);
    }

    private SendWr read(long remoteAddr, int rkey, int len) {
        return new SendWr().opcode(WrOpcode.RDMA_READ).sg(new Sge(pair.a.addr(0), len, pair.a.mr.lkey()))
                .remoteAddr(remoteAddr).rkey(rkey);
    }

    @Test
    void shouldFailWriteWithWrongRkeyBadFlow() {
        assertRemoteError(write(pair.b.addr(0), pair.b.mr.rkey() ^ 0x5500, 100), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void shouldFailWritePastTheEndOfTheRegionBadFlow() {
        long end = pair.b.mr.address() + pair.b.mr.length();
        assertRemoteError(write(end - 50, pair.b.mr.rkey(), 100), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void shouldFailWriteBeforeTheStartOfTheRegionBadFlow() {
        assertRemoteError(write(pair.b.mr.address() - 8, pair.b.mr.rkey(), 16), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void shouldFailReadPastTheEndOfTheRegionBadFlow() {
        long end = pair.b.mr.address() + pair.b.mr.length();
        assertRemoteError(read(end - 4000, pair.b.mr.rkey(), 5000), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void shouldFailWriteWithoutRemoteWritePermissionBadFlow() {
        MemorySegment seg = pair.b.arena.allocate(4096);
        try (MemoryRegion ro = pair.b.pd.registerMemory(seg, Access.LOCAL_WRITE | Access.REMOTE_READ)) {
            assertRemoteError(write(ro.address(), ro.rkey(), 100), WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    void shouldFailReadWithoutRemoteReadPermissionBadFlow() {
        MemorySegment seg = pair.b.arena.allocate(4096);
        try (MemoryRegion wo = pair.b.pd.registerMemory(seg, Access.LOCAL_WRITE | Access.REMOTE_WRITE)) {
            assertRemoteError(read(wo.address(), wo.rkey(), 100), WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    void shouldFailAccessThroughADeregisteredRegionBadFlow() {
        MemorySegment seg = pair.b.arena.allocate(4096);
        MemoryRegion gone = pair.b.pd.registerMemory(seg, Peer.ALL_ACCESS);
        long addr = gone.address();
        int rkey = gone.rkey();
        gone.close();
        assertRemoteError(write(addr, rkey, 100), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void shouldFailWriteWhenTheQpDoesNotAllowRemoteWriteBadFlow() {
        pair.close();
        Peer.Link link = new Peer.Link();
        link.qpAccess = Access.REMOTE_READ;
        pair = new Pair("127.0.2.1", "127.0.2.2", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20, Peer.ALL_ACCESS,
                Peer.defaultCap(), link);
        // as rxe (check_op_valid): an operation the QP does not enable is an invalid request, not an access error
        assertRemoteError(write(pair.b.addr(0), pair.b.mr.rkey(), 100), WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    void shouldReportLocalLengthErrorAtTheReceiverBadFlow() {
        Peer a = pair.a;
        Peer b = pair.b;
        b.qp.postRecv(new RecvWr().wrId(5).sg(new Sge(b.addr(0), 100, b.mr.lkey())));
        b.qp.postRecv(new RecvWr().wrId(6).sg(new Sge(b.addr(4096), 100, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(0), 2500, a.mr.lkey())));
        WorkCompletion recv = pair.await(b.cq);
        assertEquals(5, recv.wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, recv.status());
        assertEquals(WcOpcode.RECV, recv.opcode());
        WorkCompletion flushed = pair.await(b.cq);
        assertEquals(6, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        WorkCompletion send = pair.await(a.cq);
        assertEquals(WcStatus.REM_INV_REQ_ERR, send.status());
        assertEquals(QpState.ERR, a.qp.state());
        assertEquals(QpState.ERR, b.qp.state());
    }

    @Test
    void shouldFailReadIntoAReadOnlyLocalBufferWithLocalProtectionErrorBadFlow() {
        MemorySegment seg = pair.a.arena.allocate(4096);
        try (MemoryRegion noLocalWrite = pair.a.pd.registerMemory(seg, Access.REMOTE_READ)) {
            pair.a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(noLocalWrite.address(), 100, noLocalWrite.lkey())).remoteAddr(pair.b.addr(0))
                    .rkey(pair.b.mr.rkey()));
            WorkCompletion wc = pair.await(pair.a.cq);
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
            assertEquals(QpState.ERR, pair.a.qp.state());
        }
    }
}
