package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpType;
import org.junit.jupiter.api.Test;

/**
 * The device and its ports (ibv_open_device, ibv_query_device, ibv_query_port, ibv_query_gid, ibv_close_device), as
 * rdma-core's tests/test_device.py: attributes are sane and consistent with each other, bad ports and GID indexes
 * are EINVAL, a context cannot be closed under its resources.
 */
public abstract class DeviceTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected DeviceTck() {
    }

    @Test
    public void deviceHasANameAProviderAndTheNodeGuid() {
        assertNotNull(a.device());
        assertFalse(a.device().name().isBlank(), "device name");
        assertFalse(a.device().provider().isBlank(), "provider name");
        assertEquals(a.device().guid(), a.queryDevice().nodeGuid(), "ibv_get_device_guid is the node GUID");
        assertNotEquals(0, a.device().guid());
    }

    @Test
    public void queryDeviceReportsUsableLimits() {
        DeviceAttr d = a.queryDevice();
        assertNotNull(d.fwVer());
        assertTrue(d.maxQp() > 0, "max_qp");
        assertTrue(d.maxQpWr() > 0, "max_qp_wr");
        assertTrue(d.maxSge() > 0, "max_sge");
        assertTrue(d.maxSgeRd() > 0 && d.maxSgeRd() <= d.maxSge(), "max_sge_rd");
        assertTrue(d.maxCq() > 0, "max_cq");
        assertTrue(d.maxCqe() > 0, "max_cqe");
        assertTrue(d.maxMr() > 0, "max_mr");
        assertTrue(d.maxPd() > 0, "max_pd");
        assertTrue(d.maxMrSize() >= 1L << 32, "max_mr_size covers at least 4 GiB");
        assertTrue(d.maxQpRdAtom() > 0 && d.maxQpInitRdAtom() > 0, "RDMA READ needs initiator and responder depth");
        assertTrue(d.maxResRdAtom() >= d.maxQpRdAtom(), "max_res_rd_atom covers one QP's responder resources");
        assertTrue(d.maxPkeys() >= 1, "max_pkeys");
        assertTrue(d.physPortCnt() >= 1, "phys_port_cnt");
        assertTrue(d.maxInlineData() >= 0, "max_inline_data");
        assertTrue(d.localCaAckDelay() >= 0 && d.localCaAckDelay() <= 31, "local_ca_ack_delay");
    }

    @Test
    public void pageSizeCapIncludesTheSmallPage() {
        assertTrue((a.queryDevice().pageSizeCap() & 4096) != 0, "page_size_cap must include 4 KiB pages");
    }

    @Test
    public void queryDeviceIsStable() {
        assertEquals(a.queryDevice(), a.queryDevice());
    }

    @Test
    public void queryPortReportsAnActiveRoceV2Port() {
        PortAttr p = a.queryPort(1);
        assertEquals(PortState.ACTIVE, p.state());
        assertEquals(5, p.physState(), "phys_state LinkUp");
        assertEquals(LinkLayer.ETHERNET, p.linkLayer());
        assertEquals(0, p.lid(), "RoCE ports have no LID");
        assertTrue(p.activeMtu().bytes() <= p.maxMtu().bytes(), "active MTU <= max MTU");
        assertTrue(p.gidTblLen() > environment().gidIndex(), "the routable GID index lies in the table");
        assertTrue(p.pkeyTblLen() >= 1, "pkey_tbl_len");
        assertTrue(p.maxMsgSz() >= p.activeMtu().bytes(), "max_msg_sz");
        assertEquals(p, a.queryPort(1), "stable");
    }

    @Test
    public void everyPortCanBeQueried() {
        int ports = a.queryDevice().physPortCnt();
        for (int port = 1; port <= ports; port++) {
            assertNotNull(a.queryPort(port).state());
        }
    }

    @Test
    public void queryPortZeroIsEinvalBadFlow() {
        assertVerbsError(Errno.EINVAL, () -> a.queryPort(0));
    }

    @Test
    public void queryPortBeyondThePortCountIsEinvalBadFlow() {
        int ports = a.queryDevice().physPortCnt();
        assertVerbsError(Errno.EINVAL, () -> a.queryPort(ports + 1));
        assertVerbsError(Errno.EINVAL, () -> a.queryPort(-1));
    }

    @Test
    public void routableGidIsIpv4MappedAndDiffersPerEndpoint() {
        Gid ga = gid(a);
        Gid gb = gid(b);
        assertTrue(ga.isIpv4Mapped(), () -> "RoCEv2 over IPv4: " + ga);
        assertTrue(gb.isIpv4Mapped(), () -> "RoCEv2 over IPv4: " + gb);
        assertFalse(ga.isZero());
        assertNotEquals(ga, gb, "two endpoints have two addresses");
        assertEquals(ga, a.queryGid(1, environment().gidIndex()), "stable");
    }

    @Test
    public void gidIndexZeroIsTheLinkLocalDefaultGid() {
        Gid g = a.queryGid(1, 0);
        assertTrue(g.isLinkLocal(), () -> "GID 0 of a RoCE port is the fe80:: default GID, got " + g);
    }

    @Test
    public void gidIndexOutOfTheTableIsEinvalBadFlow() {
        int len = a.queryPort(1).gidTblLen();
        assertVerbsError(Errno.EINVAL, () -> a.queryGid(1, len));
        assertVerbsError(Errno.EINVAL, () -> a.queryGid(1, -1));
    }

    @Test
    public void gidOfABadPortIsEinvalBadFlow() {
        int ports = a.queryDevice().physPortCnt();
        assertVerbsError(Errno.EINVAL, () -> a.queryGid(0, 0));
        assertVerbsError(Errno.EINVAL, () -> a.queryGid(ports + 1, 0));
    }

    @Test
    public void closeWithAnOpenPdIsEbusyBadFlow() {
        ProtectionDomain pd = a.allocPd();
        assertVerbsError(Errno.EBUSY, a::close);
        pd.close();
        a.close(); // now it closes; closing again at the end of the test is harmless
    }

    @Test
    public void closeWithAnOpenCqIsEbusyBadFlow() {
        CompletionQueue cq = a.createCq(4);
        assertVerbsError(Errno.EBUSY, a::close);
        cq.close();
        a.close();
    }

    @Test
    public void closeWithAnOpenChannelIsEbusyBadFlow() {
        CompletionChannel ch = a.createCompletionChannel();
        assertVerbsError(Errno.EBUSY, a::close);
        ch.close();
        a.close();
    }

    @Test
    public void contextStaysUsableAfterARefusedClose() {
        ProtectionDomain pd = closeLater(a.allocPd());
        assertVerbsError(Errno.EBUSY, a::close);
        Side[] p = rcPair(4096); // the refused close changed nothing: a still opens resources and moves data
        p[1].postRecv(1, 0, 16);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 16));
        assertEquals(2, await(p[0].cq).wrId());
        assertSame(a, pd.context());
    }

    @Test
    public void closeTwiceIsHarmless() {
        a.close();
        a.close();
    }

    @Test
    public void deviceCanBeReopenedAfterClose() {
        a.close();
        a = environment().open(0);
        Side[] p = rcPair(4096);
        p[1].postRecv(1, 0, 100);
        p[0].qp.postSend(sendWr(p[0], 2, 0, 100));
        assertEquals(100, await(p[1].cq).byteLen());
        assertEquals(QpType.RC, p[0].qp.type());
    }

    @Test
    public void progressIsNeverNegative() {
        assertTrue(a.progress() >= 0);
        assertTrue(b.progress() >= 0);
    }
}
