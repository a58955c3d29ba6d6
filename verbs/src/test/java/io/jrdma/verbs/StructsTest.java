package io.jrdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class StructsTest {

    @Test
    void shouldDescribeFlags() {
        assertEquals("0", Access.describe(0));
        assertEquals("LOCAL_WRITE|REMOTE_READ", Access.describe(Access.LOCAL_WRITE | Access.REMOTE_READ));
        assertEquals("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC|MW_BIND", Access.describe(0x1f));
        assertEquals("REMOTE_WRITE|0x40", Access.describe(Access.REMOTE_WRITE | 1 << 6));
        assertEquals("SIGNALED|INLINE", SendFlags.describe(SendFlags.SIGNALED | SendFlags.INLINE));
        assertEquals("GRH|WITH_INV", WcFlags.describe(WcFlags.GRH | WcFlags.WITH_INV));
        assertEquals(4, WcFlags.IP_CSUM_OK);
        assertEquals(8, WcFlags.WITH_INV);
        assertEquals(8, SendFlags.INLINE);
        assertEquals(16, Access.MW_BIND);
    }

    @Test
    void shouldFormatVerbsException() {
        VerbsException e = new VerbsException(Errno.EINVAL, "bad thing");
        assertEquals("EINVAL: bad thing", e.getMessage());
        assertEquals("bad thing", e.reason());
        assertEquals(-1, e.badWrIndex());
        VerbsException wr = new VerbsException(Errno.ENOMEM, 3, "send queue full");
        assertEquals("ENOMEM: send queue full (work request #3)", wr.getMessage());
        assertEquals(3, wr.badWrIndex());
        assertSame(Errno.ENOMEM, wr.errno());
        assertEquals("Invalid argument", Errno.EINVAL.description());
    }

    @Test
    void shouldBuildSendWrFluently() {
        Sge[] sges = {new Sge(0x1000, 64, 0x11), new Sge().set(0x2000, 32, 0x11)};
        SendWr next = new SendWr();
        SendWr wr = new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sg(sges).remote(0xdead_0000L, 0x22)
                .immData(0x1234).signaled(true).next(next);
        assertEquals(2, wr.numSge());
        assertSame(sges, wr.sgList());
        assertEquals(96, wr.totalLength());
        assertTrue(wr.signaled());
        assertEquals(SendFlags.SIGNALED, wr.sendFlags());
        assertSame(next, wr.next());
        wr.signaled(false);
        assertFalse(wr.signaled());
        assertTrue(wr.toString().contains("immData=0x1234"), wr.toString());
        wr.reset();
        assertEquals(0, wr.wrId());
        assertSame(WrOpcode.SEND, wr.opcode());
        assertNull(wr.sgList());
        assertNull(wr.next());
        assertEquals(0, wr.numSge());
        assertEquals(0, wr.remoteAddr());
    }

    @Test
    void shouldBuildRecvWrFluently() {
        Sge sge = new Sge(0x1000, -1, 5);
        RecvWr wr = new RecvWr().wrId(9).sg(sge);
        assertEquals(1, wr.numSge());
        assertEquals(0xffff_ffffL, wr.totalLength());
        wr.reset();
        assertEquals(0, wr.numSge());
        assertNull(wr.sgList());
    }

    @Test
    void shouldFillAndCopyWorkCompletion() {
        WorkCompletion wc = new WorkCompletion().slid(3).sl(2).vendorErr(9).invalidatedRkey(4);
        wc.fill(42, WcStatus.SUCCESS, WcOpcode.RECV, 100, 0xabcd, WcFlags.WITH_IMM, 0x11, 0x22);
        assertEquals(42, wc.wrId());
        assertEquals(100, wc.byteLen());
        assertEquals(0xabcd, wc.immData());
        assertEquals(0x22, wc.srcQp());
        assertEquals(0, wc.slid());
        assertEquals(0, wc.sl());
        assertEquals(0, wc.vendorErr());
        assertEquals(0, wc.invalidatedRkey());
        WorkCompletion copy = new WorkCompletion().copyFrom(wc.pkeyIndex(1));
        assertEquals(wc.toString(), copy.toString());
        assertEquals(1, copy.pkeyIndex());
        assertTrue(copy.isSuccess());
        wc.status(WcStatus.WR_FLUSH_ERR);
        assertTrue(wc.toString().contains("Work Request Flushed Error"), wc.toString());
    }

    @Test
    void shouldDeepCopyQpAttr() {
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(0x11).rqPsn(0x123456)
                .maxDestRdAtomic(1).minRnrTimer(12);
        a.ahAttr().grh(Gid.parse("::ffff:10.0.0.2"), 1, 64, 0, 0).portNum(1);
        a.cap().maxSendWr(16);
        QpAttr b = new QpAttr().copyFrom(a);
        assertNotSame(a.ahAttr(), b.ahAttr());
        assertEquals(a.toString(), b.toString());
        assertEquals(Gid.parse("::ffff:10.0.0.2"), b.ahAttr().dgid());
        assertTrue(b.ahAttr().isGlobal());
        assertEquals(16, b.cap().maxSendWr());
        a.ahAttr().portNum(2);
        assertEquals(1, b.ahAttr().portNum());
        b.reset();
        assertSame(QpState.RESET, b.qpState());
        assertNull(b.pathMtu());
        assertSame(Gid.ZERO, b.ahAttr().dgid());
        assertFalse(b.ahAttr().isGlobal());
        assertEquals(0, b.cap().maxSendWr());
    }

    @Test
    void shouldCopyCapIntoInitAttr() {
        QpCap cap = new QpCap(8, 9, 1, 2, 64);
        QpInitAttr init = new QpInitAttr().qpType(QpType.UD).cap(cap).sqSigAll(true);
        assertNotSame(cap, init.cap());
        assertEquals(cap.toString(), init.cap().toString());
        QpInitAttr copy = new QpInitAttr().copyFrom(init);
        assertSame(QpType.UD, copy.qpType());
        assertTrue(copy.sqSigAll());
        assertEquals(64, copy.cap().maxInlineData());
    }

    @Test
    void shouldAllocateNothingWhenReusingWorkRequestsAndCompletions() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Sge sge = new Sge();
        Sge[] list = {sge};
        SendWr wr = new SendWr();
        WorkCompletion wc = new WorkCompletion();
        WorkCompletion other = new WorkCompletion();
        long sum = 0;
        long tid = Thread.currentThread().threadId();
        // the fewest bytes of several rounds: one-off JIT and runtime allocations do not repeat, a per-use one would
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100_000; i++) {
                sge.set(i, 64, 7);
                wr.reset().wrId(i).opcode(WrOpcode.RDMA_WRITE).sg(list).remote(0x1000, 9).signaled(true);
                wc.fill(wr.wrId(), WcStatus.SUCCESS, wr.opcode().completionOpcode(), 64, 0, 0, 1, 0);
                other.copyFrom(wc);
                sum += other.wrId() + wr.totalLength();
            }
            fewest = Math.min(fewest, mx.getThreadAllocatedBytes(tid) - before);
        }
        assertTrue(fewest < 256, "allocated " + fewest + " bytes in 100000 uses");
        assertTrue(sum > 0);
    }
}
