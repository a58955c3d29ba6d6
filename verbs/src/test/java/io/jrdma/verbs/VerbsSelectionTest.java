package io.jrdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.spi.Provider;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How {@link Verbs} orders providers and picks a device: native first, qualified names, one-provider mode. */
class VerbsSelectionTest {

    private record FakeDevice(String name, String provider) implements Device {
        @Override
        public long guid() {
            return 1;
        }

        @Override
        public Context open() {
            throw new UnsupportedOperationException("a fake device");
        }
    }

    private record FakeProvider(String name, int order, List<String> deviceNames, String reason)
            implements Provider {
        @Override
        public List<Device> devices() {
            return deviceNames.stream().map(n -> (Device) new FakeDevice(n, name)).toList();
        }

        @Override
        public Optional<String> unavailableReason() {
            return Optional.ofNullable(reason);
        }
    }

    private static final Provider SOFT = new FakeProvider("soft", Provider.SOFTWARE_ORDER, List.of("rxe0", "lab"),
            null);
    private static final Provider NATIVE = new FakeProvider("ibverbs", Provider.NATIVE_ORDER, List.of("rxe0",
            "mlx5_0"), null);
    private static final Provider NATIVE_NONE = new FakeProvider("ibverbs", Provider.NATIVE_ORDER, List.of(),
            "libibverbs.so.1 lists no device (ibv_get_device_list: Function not implemented)");

    private static List<String> names(List<Device> devices) {
        return devices.stream().map(d -> d.provider() + ":" + d.name()).toList();
    }

    @Test
    void shouldListNativeDevicesBeforeSoftOnesWhateverTheServiceOrder() {
        List<Provider> providers = Verbs.sorted(List.of(SOFT, NATIVE));
        assertEquals(List.of("ibverbs:rxe0", "ibverbs:mlx5_0", "soft:rxe0", "soft:lab"),
                names(Verbs.devices(providers, null)));
    }

    @Test
    void shouldPickTheNativeDeviceForABareNameBothProvidersUse() {
        List<Provider> providers = Verbs.sorted(List.of(SOFT, NATIVE));
        assertEquals("ibverbs", Verbs.device(providers, null, "rxe0").provider());
        assertEquals("ibverbs", Verbs.device(providers, null, null).provider(), "the first device is native");
    }

    @Test
    void shouldHonourAProviderQualifiedName() {
        List<Provider> providers = Verbs.sorted(List.of(SOFT, NATIVE));
        Device soft = Verbs.device(providers, null, "soft:rxe0");
        assertEquals("soft", soft.provider());
        assertEquals("rxe0", soft.name());
        assertEquals("ibverbs", Verbs.device(providers, null, "ibverbs:rxe0").provider());
        assertEquals("soft", Verbs.device(providers, null, "SOFT:lab").provider(), "the qualifier ignores case");
    }

    @Test
    void shouldRestrictToOneProvider() {
        List<Provider> providers = Verbs.sorted(List.of(SOFT, NATIVE));
        assertEquals(List.of("soft:rxe0", "soft:lab"), names(Verbs.devices(providers, "soft")));
        assertEquals("soft", Verbs.device(providers, "soft", "rxe0").provider());
        assertEquals("soft", Verbs.device(providers, "soft", null).provider());
        assertEquals(List.of(), Verbs.devices(providers, "nosuch"));
    }

    @Test
    void shouldRefuseAQualifierOtherThanTheRestrictionBadFlow() {
        List<Provider> providers = Verbs.sorted(List.of(SOFT, NATIVE));
        VerbsException e = assertThrows(VerbsException.class,
                () -> Verbs.device(providers, "soft", "ibverbs:rxe0"));
        assertEquals(Errno.ENODEV, e.errno());
        assertTrue(e.getMessage().contains("allows only 'soft'"), e.getMessage());
    }

    @Test
    void shouldNameTheKnownProvidersForAnUnknownQualifierBadFlow() {
        List<Provider> providers = Verbs.sorted(List.of(SOFT, NATIVE));
        VerbsException e = assertThrows(VerbsException.class, () -> Verbs.device(providers, null, "verbz:rxe0"));
        assertEquals(Errno.ENODEV, e.errno());
        assertEquals("ENODEV: no RDMA provider named 'verbz' (have: [ibverbs, soft])", e.getMessage());
    }

    @Test
    void shouldExplainWhyTheNativeProviderHasNoDeviceBadFlow() {
        List<Provider> providers = Verbs.sorted(List.of(SOFT, NATIVE_NONE));
        assertEquals("soft", Verbs.device(providers, null, "rxe0").provider(), "soft still serves");
        VerbsException e = assertThrows(VerbsException.class, () -> Verbs.device(providers, "ibverbs", "rxe0"));
        assertEquals(Errno.ENODEV, e.errno());
        assertEquals("ENODEV: no RDMA device found (ibverbs: libibverbs.so.1 lists no device (ibv_get_device_list: "
                + "Function not implemented))", e.getMessage());
        VerbsException missing = assertThrows(VerbsException.class, () -> Verbs.device(providers, null, "mlx5_0"));
        assertEquals("ENODEV: no RDMA device named 'mlx5_0' (have: [soft:rxe0, soft:lab]; ibverbs: libibverbs.so.1 "
                + "lists no device (ibv_get_device_list: Function not implemented))", missing.getMessage());
    }

    @Test
    void shouldSayWhenNoProviderIsInstalledBadFlow() {
        VerbsException e = assertThrows(VerbsException.class, () -> Verbs.device(List.of(), null, null));
        assertEquals(Errno.ENODEV, e.errno());
        assertTrue(e.getMessage().contains("is a provider on the class path?"), e.getMessage());
    }

    @Test
    void shouldOrderProvidersOfEqualOrderByName() {
        Provider b = new FakeProvider("b", 5, List.of("x"), null);
        Provider a = new FakeProvider("a", 5, List.of("x"), null);
        List<Provider> sorted = Verbs.sorted(List.of(SOFT, b, a));
        assertSame(a, sorted.get(0));
        assertSame(b, sorted.get(1));
        assertSame(SOFT, sorted.get(2));
    }
}
