package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bad verb calls get a {@link VerbsException} with an errno and the index of the bad work request; the requests
 * before it are posted and execute, the bad one and those after it do not. Destroying a resource in use is EBUSY.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VerbsBadFlowTest {

    private Pair pair;

    @BeforeEach
    void connect() {
        pair = Pair.invoker("127.0.5.1", "127.0.5.2", 1 << 20);
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private SendWr send(long wrId, int len) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(pair.a.addr(0), len, pair.a.mr.lkey()));
    }

    /** Posts good -> bad -> good; asserts the error names index 1 and only the first request executes. */
    private VerbsException assertSecondRejected(SendWr bad, Errno errno, String messagePart) {
        Peer b = pair.b;
        for (int i = 0; i < 3; i++) {
            b.qp.postRecv(new RecvWr().wrId(i).sg(new Sge(b.addr(i * 8192L), 8192, b.mr.lkey())));
        }
        SendWr first = send(1, 10);
        first.next(bad.wrId(2));
        bad.next(send(3, 10));
        VerbsException e = assertThrows(VerbsException.class, () -> pair.a.qp.postSend(first));
        assertEquals(errno, e.errno(), e.getMessage());
        assertEquals(1, e.badWrIndex());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
        WorkCompletion wc = pair.await(pair.a.cq);
        assertEquals(1, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status());
        pair.assertNoCompletion(pair.a.cq, TimeUnit.MILLISECONDS.toNanos(20));
        assertEquals(1, pair.awaitN(b.cq, 1).size());
        pair.assertNoCompletion(b.cq, TimeUnit.MILLISECONDS.toNanos(20));
        return e;
    }

    @Test
    void shouldRejectTooManySgesBadFlow() {
        Sge s = new Sge(pair.a.addr(0), 1, pair.a.mr.lkey());
        assertSecondRejected(send(0, 0).sg(s, s, s, s, s), Errno.EINVAL, "max_send_sge");
    }

    @Test
    void shouldRejectInlineDataLargerThanMaxInlineBadFlow() {
        assertSecondRejected(send(0, 129).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE), Errno.EINVAL,
                "max_inline_data");
    }

    @Test
    void shouldRejectAnUnknownLkeyBadFlow() {
        assertSecondRejected(send(0, 10).sg(new Sge(pair.a.addr(0), 10, pair.a.mr.lkey() + 0x100)), Errno.EINVAL,
                "not a registered memory region");
    }

    @Test
    void shouldRejectAnLkeyOfAnotherProtectionDomainBadFlow() {
        ProtectionDomain other = pair.a.ctx.allocPd();
        MemoryRegion foreign = other.registerMemory(pair.a.arena.allocate(4096), Access.LOCAL_WRITE);
        try {
            assertSecondRejected(send(0, 10).sg(new Sge(foreign.address(), 10, foreign.lkey())), Errno.EINVAL,
                    "another protection domain");
        } finally {
            foreign.close();
            other.close();
        }
    }

    @Test
    void shouldRejectAnSgeOutsideItsRegionBadFlow() {
        long end = pair.a.mr.address() + pair.a.mr.length();
        assertSecondRejected(send(0, 0).sg(new Sge(end - 4, 8, pair.a.mr.lkey())), Errno.EINVAL, "outside");
    }

    @Test
    void shouldRejectAMissingOpcodeClearlyBadFlow() {
        assertSecondRejected(send(0, 8).opcode(null), Errno.EINVAL, "no opcode");
    }

    @Test
    void shouldRejectPostingWhenTheSendQueueIsFullBadFlow() {
        int depth = Peer.defaultCap().maxSendWr();
        // b is never driven, so nothing is acknowledged and no send queue slot is freed
        for (int i = 0; i < depth; i++) {
            pair.a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.RDMA_WRITE).sg(new Sge(pair.a.addr(0), 8,
                    pair.a.mr.lkey())).remoteAddr(pair.b.addr(0)).rkey(pair.b.mr.rkey()));
        }
        VerbsException e = assertThrows(VerbsException.class, () -> pair.a.qp.postSend(send(99, 8)));
        assertEquals(Errno.ENOMEM, e.errno());
        assertEquals(0, e.badWrIndex());
        assertTrue(e.getMessage().contains("full"), e.getMessage());
    }

    @Test
    void shouldRejectReceivesBeyondTheReceiveQueueDepthBadFlow() {
        int depth = Peer.defaultCap().maxRecvWr();
        for (int i = 0; i < depth; i++) {
            pair.b.qp.postRecv(new RecvWr().wrId(i).sg(new Sge(pair.b.addr(0), 8, pair.b.mr.lkey())));
        }
        VerbsException e = assertThrows(VerbsException.class, () -> pair.b.qp.postRecv(
                new RecvWr().wrId(99).sg(new Sge(pair.b.addr(0), 8, pair.b.mr.lkey()))));
        assertEquals(Errno.ENOMEM, e.errno());
    }

    @Test
    void shouldRefuseToDestroyResourcesInUseBadFlow() {
        VerbsException pd = assertThrows(VerbsException.class, () -> pair.a.pd.close());
        assertEquals(Errno.EBUSY, pd.errno());
        VerbsException cq = assertThrows(VerbsException.class, () -> pair.a.cq.close());
        assertEquals(Errno.EBUSY, cq.errno());
        VerbsException ctx = assertThrows(VerbsException.class, () -> pair.a.ctx.close());
        assertEquals(Errno.EBUSY, ctx.errno());
        // still fully usable afterwards
        RcDataPathTest.transfer(pair, WrOpcode.RDMA_WRITE, 5000, 2);
    }

    @Test
    void shouldRefuseHeapMemoryAndBadAccessFlagsBadFlow() {
        VerbsException heap = assertThrows(VerbsException.class,
                () -> pair.a.pd.registerMemory(MemorySegment.ofArray(new byte[64]), Access.LOCAL_WRITE));
        assertEquals(Errno.EINVAL, heap.errno());
        VerbsException flags = assertThrows(VerbsException.class,
                () -> pair.a.pd.registerMemory(pair.a.arena.allocate(64), Access.REMOTE_WRITE));
        assertEquals(Errno.EINVAL, flags.errno(), "REMOTE_WRITE without LOCAL_WRITE");
        try (Arena confined = Arena.ofConfined()) {
            VerbsException c = assertThrows(VerbsException.class,
                    () -> pair.a.pd.registerMemory(confined.allocate(64), Access.LOCAL_WRITE));
            assertEquals(Errno.EINVAL, c.errno());
        }
    }

    @Test
    void shouldRejectBadQpCapsAndForeignCqsBadFlow() {
        QpCap tooDeep = new QpCap().maxSendWr(1 << 20).maxRecvWr(1).maxSendSge(1).maxRecvSge(1);
        VerbsException e = assertThrows(VerbsException.class, () -> pair.a.pd.createQp(
                new QpInitAttr().qpType(QpType.RC).sendCq(pair.a.cq).recvCq(pair.a.cq).cap(tooDeep)));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("max_send_wr"), e.getMessage());
        CompletionQueue foreign = pair.b.cq;
        VerbsException f = assertThrows(VerbsException.class, () -> pair.a.pd.createQp(
                new QpInitAttr().qpType(QpType.RC).sendCq(foreign).recvCq(pair.a.cq).cap(Peer.defaultCap())));
        assertEquals(Errno.EINVAL, f.errno());
    }

    @Test
    void shouldFailOnlyTheQpWhoseServiceThrewBadFlow() {
        // a tap that throws stands in for an engine bug on the transmit path of a's QP
        pair.a.ctx.tap((tx, p, off, len, sip, sp, dip, dp) -> {
            if (tx) {
                throw new IllegalStateException("injected");
            }
        });
        pair.a.qp.postSend(send(1, 10));
        WorkCompletion wc = pair.await(pair.a.cq);
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), "the QP fails and its WR is flushed, not lost");
        assertEquals(io.jrdma.verbs.QpState.ERR, pair.a.qp.state());
        assertEquals(1, pair.a.ctx.counters().get(Counter.QP_FATAL));
        assertEquals("injected", pair.a.ctx.lastEngineFailure().getMessage());
        pair.a.ctx.tap(null);
        // the device itself keeps working: b can still be driven and polled without errors
        pair.drive();
        assertEquals(0, pair.b.ctx.counters().get(Counter.QP_FATAL));
    }
}
