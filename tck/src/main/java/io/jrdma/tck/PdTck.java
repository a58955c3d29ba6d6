package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.WcStatus;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Protection domains (ibv_alloc_pd, ibv_dealloc_pd), as rdma-core's tests/test_pd.py: a PD cannot be deallocated
 * while a QP or MR belongs to it (EBUSY), a deallocated PD makes nothing new, and keys of one PD are useless to the
 * QPs of another.
 */
public abstract class PdTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected PdTck() {
    }

    @Test
    public void allocAndClose() {
        ProtectionDomain pd = a.allocPd();
        assertSame(a, pd.context());
        pd.close();
    }

    @Test
    public void manyPdsAtOnce() {
        int n = Math.min(256, a.queryDevice().maxPd());
        List<ProtectionDomain> pds = new ArrayList<>();
        IdentityHashMap<ProtectionDomain, Boolean> seen = new IdentityHashMap<>();
        for (int i = 0; i < n; i++) {
            ProtectionDomain pd = a.allocPd();
            pds.add(pd);
            seen.put(pd, true);
        }
        assertEquals(n, seen.size());
        for (ProtectionDomain pd : pds.reversed()) {
            pd.close();
        }
    }

    @Test
    public void allocBeyondMaxPdIsEnomemBadFlow() {
        int max = a.queryDevice().maxPd();
        Assumptions.assumeTrue(max <= 8192, "the device's max_pd is too large to exhaust in a unit test");
        List<ProtectionDomain> pds = new ArrayList<>();
        try {
            for (int i = 0; i < max; i++) {
                pds.add(a.allocPd());
            }
            assertVerbsError(Errno.ENOMEM, a::allocPd);
        } finally {
            for (ProtectionDomain pd : pds) {
                pd.close();
            }
        }
        a.allocPd().close(); // one freed slot is enough again
    }

    @Test
    public void closeWithARegisteredMrIsEbusyBadFlow() {
        ProtectionDomain pd = a.allocPd();
        MemoryRegion mr = pd.registerMemory(buffer(4096), Access.LOCAL_WRITE);
        assertVerbsError(Errno.EBUSY, pd::close);
        mr.close();
        pd.close();
    }

    @Test
    public void closeWithAQpIsEbusyBadFlow() {
        ProtectionDomain pd = a.allocPd();
        var cq = a.createCq(8);
        QueuePair qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq).cap(defaultCap()));
        assertVerbsError(Errno.EBUSY, pd::close);
        qp.close();
        pd.close();
        cq.close();
    }

    @Test
    public void busyPdKeepsWorkingAfterARefusedClose() {
        Side[] p = rcPair(8192);
        assertVerbsError(Errno.EBUSY, p[0].pd::close);
        assertVerbsError(Errno.EBUSY, p[1].pd::close);
        fill(p[0].buf.asSlice(0, 500), 3);
        p[0].qp.postSend(writeWr(p[0], 7, 0, 500, p[1], 1000));
        assertEquals(WcStatus.SUCCESS, await(p[0].cq).status());
        assertEquals(-1, p[0].buf.asSlice(0, 500).mismatch(p[1].buf.asSlice(1000, 500)));
    }

    @Test
    public void closeTwiceIsHarmless() {
        ProtectionDomain pd = a.allocPd();
        pd.close();
        pd.close();
    }

    @Test
    public void closedPdRegistersNothingBadFlow() {
        ProtectionDomain pd = a.allocPd();
        pd.close();
        assertVerbsError(Errno.EINVAL, () -> pd.registerMemory(buffer(64), Access.LOCAL_WRITE));
    }

    @Test
    public void closedPdCreatesNoQpBadFlow() {
        ProtectionDomain pd = a.allocPd();
        var cq = closeLater(a.createCq(8));
        pd.close();
        assertVerbsError(Errno.EINVAL, () -> pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq)
                .cap(defaultCap())));
    }

    @Test
    public void remoteKeyOfAnotherPdIsARemoteAccessErrorBadFlow() {
        Side[] p = rcPair(8192);
        ProtectionDomain other = closeLater(b.allocPd());
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        // the rkey is valid on b's device, but not for b's QP, whose PD is another one
        assertFatalRemoteError(p[0], p[1], writeWr(p[0], 0, 0, 64, p[1], 0).remote(foreign.address(),
                foreign.rkey()), WcStatus.REM_ACCESS_ERR);
    }

    @Test
    public void localKeyOfAnotherPdIsRefusedAtPostBadFlow() {
        Side[] p = rcPair(8192);
        ProtectionDomain other = closeLater(a.allocPd());
        MemoryRegion foreign = closeLater(other.registerMemory(buffer(4096), ALL_ACCESS));
        var e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(sendWr(p[0], 1, 0, 8)
                .sg(sge(foreign, 0, 8))));
        assertEquals(0, e.badWrIndex());
    }
}
