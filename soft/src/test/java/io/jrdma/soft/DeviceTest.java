package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.Verbs;
import io.jrdma.verbs.VerbsException;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Device discovery, configuration, and what queryDevice / queryPort / queryGid report. */
class DeviceTest {

    @Test
    void shouldFindTheConfiguredDevicesThroughTheProvider() {
        String old = System.getProperty("jrdma.devices");
        System.setProperty("jrdma.devices", "x0=127.0.11.1, x1=127.0.11.2");
        try {
            List<Device> devices = Verbs.devices();
            assertEquals(List.of("x0", "x1"), devices.stream().map(Device::name).toList());
            assertEquals("soft", devices.getFirst().provider());
            assertEquals("x1", Verbs.device("x1").name());
            VerbsException e = assertThrows(VerbsException.class, () -> Verbs.device("nope"));
            assertEquals(Errno.ENODEV, e.errno());
            assertTrue(e.getMessage().contains("x0"), e.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty("jrdma.devices");
            } else {
                System.setProperty("jrdma.devices", old);
            }
        }
    }

    @Test
    void shouldReportAttributesAndGidsLikeRxe() throws Exception {
        SoftDevice dev = SoftDevice.builder().name("q0").address("127.0.11.3").threading(Threading.INVOKER).build();
        try (Context ctx = dev.open()) {
            DeviceAttr d = ctx.queryDevice();
            assertEquals(dev.guid(), d.nodeGuid());
            assertEquals(1, d.physPortCnt());
            assertTrue(d.maxQp() > 0 && d.maxQpWr() > 0 && d.maxSge() > 0 && d.maxCqe() > 0);
            assertEquals(0xFFFFFF, d.vendorId());

            PortAttr p = ctx.queryPort(1);
            assertEquals(PortState.ACTIVE, p.state());
            assertEquals(LinkLayer.ETHERNET, p.linkLayer());
            assertEquals(Mtu.MTU_4096, p.maxMtu());
            assertEquals(Mtu.MTU_4096, p.activeMtu(), "loopback MTU 65536 - 80 rounds down to 4096");
            assertEquals(2, p.gidTblLen());

            Gid g1 = ctx.queryGid(1, 1);
            assertEquals(Gid.fromInet(InetAddress.getByName("127.0.11.3")), g1);
            assertTrue(g1.isIpv4Mapped());
            Gid g0 = ctx.queryGid(1, 0);
            assertTrue(g0.toString().startsWith("fe80:0000:0000:0000:"), g0.toString());
            // EUI-64 of the node GUID: the link-local GID's interface id is the GUID
            assertEquals(dev.guid(), g0.lo());

            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> ctx.queryPort(2)).errno());
            assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> ctx.queryGid(1, 2)).errno());
            assertEquals(Errno.EBUSY, assertThrows(VerbsException.class, dev::open).errno(),
                    "a device is open once per process");
        }
        dev.open().close(); // and can be opened again after close
    }

    @Test
    void shouldDeriveTheActiveMtuFromTheLinkMtu() {
        SoftDevice dev = SoftDevice.builder().address("127.0.11.4").linkMtu(1500).threading(Threading.INVOKER)
                .build();
        try (Context ctx = dev.open()) {
            assertEquals(Mtu.MTU_1024, ctx.queryPort(1).activeMtu(), "1500 - 80 rounds down to 1024, as rxe");
        }
    }

    @Test
    void shouldFailClearlyWhenTheAddressIsTakenBadFlow() {
        SoftDevice a = SoftDevice.builder().name("a").address("127.0.11.5").threading(Threading.INVOKER).build();
        SoftDevice b = SoftDevice.builder().name("b").address("127.0.11.5").threading(Threading.INVOKER).build();
        try (Context ctx = a.open()) {
            assertEquals("a", ctx.device().name());
            VerbsException e = assertThrows(VerbsException.class, b::open);
            assertEquals(Errno.EBUSY, e.errno());
            assertTrue(e.getMessage().contains("127.0.11.5"), e.getMessage());
        }
    }
}
