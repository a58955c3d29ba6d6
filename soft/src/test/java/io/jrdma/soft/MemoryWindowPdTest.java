package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.DeviceCapFlags;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protection domain isolation of regions and windows on the soft device, and the windows in query_device and
 * their key space.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryWindowPdTest extends MemoryWindowFixture {

    // ------------------------------------------------------------------------------------------------- PDs

    /** A second RC connection between a and b whose b end is in {@code bPd}. */
    private QueuePair[] secondConnection(ProtectionDomain bPd) {
        QueuePair qa = later(a.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(a.cq).recvCq(a.cq)
                .cap(Peer.defaultCap())));
        QueuePair qb = later(bPd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(b.cq).recvCq(b.cq)
                .cap(Peer.defaultCap())));
        connect(qa, qb.qpNum(), b.ctx);
        connect(qb, qa.qpNum(), a.ctx);
        return new QueuePair[] {qa, qb};
    }

    private static void connect(QueuePair qp, int remoteQpn, SoftContext remote) {
        Peer.connect(qp, remoteQpn, remote.queryGid(1, 1), new Peer.Link());
    }

    @Test
    void shouldRefuseAnRkeyOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryRegion foreign = later(other.registerMemory(b.arena.allocate(4096, 4096), Peer.ALL_ACCESS));
        assertRemoteAccessError(write(foreign.address(), foreign.rkey(), 32));
    }

    @Test
    void shouldRefuseAWindowOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryRegion mr = later(other.registerMemory(b.arena.allocate(4096, 4096), Access.LOCAL_WRITE
                | Access.MW_BIND));
        QueuePair[] second = secondConnection(other);
        MemoryWindow mw = later(other.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind().wrId(1).sendFlags(SendFlags.SIGNALED);
        bind.bindInfo().mr(mr).addr(mr.address()).length(4096).mwAccessFlags(RW);
        int rkey = second[1].bindMw(mw, bind);
        assertEquals(WcStatus.SUCCESS, pair.await(b.cq).status());
        // usable through the connection whose responder is in the window's PD ...
        second[0].postSend(write(mr.address(), rkey, 32).wrId(5));
        WorkCompletion ok = pair.await(a.cq);
        assertEquals(5, ok.wrId());
        assertEquals(WcStatus.SUCCESS, ok.status(), ok.toString());
        // ... but not through one in another PD
        assertRemoteAccessError(write(mr.address(), rkey, 32));
    }

    @Test
    void shouldOnlyLetTheBindingQpUseAType2WindowBadFlow() {
        QueuePair[] second = secondConnection(b.pd);
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().wrId(3).opcode(WrOpcode.BIND_MW).signaled(true).mw(mw).bindRkey(0x77);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(WINDOW_LENGTH).mwAccessFlags(RW);
        second[1].postSend(wr); // bound by b's second QP
        assertEquals(WcStatus.SUCCESS, pair.await(b.cq).status());
        second[0].postSend(write(windowAddr(), mw.rkey(), 32).wrId(6));
        WorkCompletion ok = pair.await(a.cq);
        assertEquals(6, ok.wrId());
        assertEquals(WcStatus.SUCCESS, ok.status(), ok.toString());
        assertRemoteAccessError(write(windowAddr(), mw.rkey(), 32)); // through b's first QP
    }

    @Test
    void shouldRefuseIbvBindMwWithARegionOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryWindow mw = later(other.allocMw(MwType.TYPE_1));
        MwBind bind = new MwBind();
        bind.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        VerbsException e = assertThrows(VerbsException.class, () -> b.qp.bindMw(mw, bind));
        assertEquals(Errno.EPERM, e.errno(), "rxe's provider: MR and MW of different PDs");
    }

    @Test
    void shouldFailType2BindThroughAQpOfAnotherPdBadFlow() {
        ProtectionDomain other = later(b.ctx.allocPd());
        MemoryWindow mw = later(other.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().opcode(WrOpcode.BIND_MW).mw(mw).bindRkey(0x12);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        assertBindError(wr); // C10-72
    }

    @Test
    void shouldRefuseAWindowRkeyAsAnLkeyBadFlow() {
        MemoryWindow mw = boundType1(RW);
        VerbsException e = assertThrows(VerbsException.class, () -> b.qp.postSend(new SendWr().opcode(
                WrOpcode.SEND).sg(new Sge(windowAddr(), 8, mw.rkey()))));
        assertEquals(Errno.EINVAL, e.errno());
    }

    @Test
    void shouldReportMemoryWindowsInQueryDevice() {
        DeviceAttr attr = b.ctx.queryDevice();
        assertTrue(attr.maxMw() > 0);
        assertEquals(DeviceCapFlags.MEM_WINDOW, attr.deviceCapFlags() & DeviceCapFlags.MEM_WINDOW);
        assertEquals(DeviceCapFlags.MEM_WINDOW_TYPE_2B, attr.deviceCapFlags() & DeviceCapFlags.MEM_WINDOW_TYPE_2B);
    }

    @Test
    void shouldGiveWindowsKeysOutsideTheRegionsKeySpace() {
        MemoryWindow w1 = later(b.pd.allocMw(MwType.TYPE_1));
        MemoryWindow w2 = later(b.pd.allocMw(MwType.TYPE_2));
        assertNotEquals(w1.rkey() >>> 8, w2.rkey() >>> 8);
        assertTrue(w1.rkey() >>> 8 >= SoftLimits.MAX_MR, "window slots follow the region slots");
        assertEquals(MwType.TYPE_2, w2.type());
        assertEquals(b.pd, w2.pd());
    }
}
