package io.jrdma.ibverbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Verbs;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.spi.Provider;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On a host with libibverbs but no RDMA device (this project's CI machines, which install it: ibv_get_device_list
 * fails with ENOSYS), or with no libibverbs at all (a fresh machine before anything is installed), the provider lists
 * nothing, says why, and the soft devices stay available. Skipped where a device exists.
 */
class NoDeviceTest {

    private static DeviceList list() {
        DeviceList list = DeviceList.get();
        assumeTrue(list.devices().isEmpty(), () -> "this host has RDMA devices: " + list.devices());
        return list;
    }

    /** The start of the reason this host gives: the library lists no device, or it cannot be loaded. */
    private static String expectedReasonStart(DeviceList list) {
        return list.lib() != null ? "libibverbs.so.1 lists no device (ibv_get_device_list"
                : "cannot load libibverbs.so.1 (";
    }

    @Test
    void shouldListNoDeviceAndSayWhyWithoutThrowing() {
        DeviceList list = list();
        String reason = list.reason();
        assertTrue(reason != null && reason.startsWith(expectedReasonStart(list)), () -> "reason: " + reason);
        Provider p = new IbvProvider();
        assertEquals("ibverbs", p.name());
        assertEquals(Provider.NATIVE_ORDER, p.order());
        assertEquals(List.of(), p.devices());
        assertEquals(reason, p.unavailableReason().orElseThrow());
    }

    @Test
    void shouldTellAHostWithoutTheLibraryWhatToInstall() {
        DeviceList list = list();
        assumeTrue(list.lib() == null, "libibverbs.so.1 is installed here");
        assertEquals("cannot load libibverbs.so.1 (Cannot open library: libibverbs.so.1); install rdma-core's "
                + "libibverbs (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers)", list.reason());
    }

    @Test
    void shouldNameTheMissingKernelSupportForEnosys() {
        String reason = list().reason();
        assumeTrue(reason.contains("Function not implemented"), () -> "not ENOSYS here: " + reason);
        assertEquals("libibverbs.so.1 lists no device (ibv_get_device_list: Function not implemented — no RDMA "
                + "device or kernel support)", reason);
    }

    @Test
    void shouldPutTheReasonIntoTheEnodevOfAQualifiedNameBadFlow() {
        String reason = list().reason();
        VerbsException e = assertThrows(VerbsException.class, () -> Verbs.device("ibverbs:rxe0"));
        assertEquals(Errno.ENODEV, e.errno());
        assertEquals("ENODEV: no RDMA device found (ibverbs: " + reason + ")", e.getMessage());
    }

    @Test
    void shouldStillListTheSoftDevices() {
        DeviceList list = list();
        List<Device> all = assertDoesNotThrow(Verbs::devices);
        assertFalse(all.isEmpty(), "the soft provider's devices");
        assertTrue(all.stream().allMatch(d -> d.provider().equals("soft")), all::toString);
        assertEquals("soft", Verbs.device(null).provider());
        VerbsException e = assertThrows(VerbsException.class, () -> Verbs.device("mlx5_0"));
        assertTrue(e.getMessage().contains("; ibverbs: " + expectedReasonStart(list)), e::getMessage);
    }

    @Test
    void shouldAgreeWithTheLibrarysStatusStrings() {
        assumeTrue(DeviceList.get().lib() != null, "libibverbs.so.1 is not installed");
        assertDoesNotThrow(() -> SelfCheck.statusStrings(DeviceList.get().lib()));
    }
}
