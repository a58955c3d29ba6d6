package io.jrdma.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.cm.EventChannel;
import io.jrdma.cm.spi.CmProvider;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.spi.Provider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The native connection manager on a host without an RDMA device (this project's build machines): it is declared
 * as a provider, says why it is unavailable, throws nothing but a VerbsException ENODEV, and
 * {@link EventChannel#create()} passes it by. Binding librdmacm's functions is checked where the library exists.
 */
class CmUnavailableTest {

    private static void noDevice() {
        assumeTrue(DeviceList.get().devices().isEmpty(), "this host has RDMA devices");
    }

    @Test
    void shouldBeDeclaredAsACmProviderOnTheModuleAndTheClassPath() throws Exception {
        var descriptor = IbvCmProvider.class.getModule().getDescriptor();
        assumeTrue(descriptor != null, "not run as a module");
        assertTrue(descriptor.provides().stream().anyMatch(p -> p.service().equals(CmProvider.class.getName())
                && p.providers().equals(List.of(IbvCmProvider.class.getName()))), descriptor::toString);
        try (var in = IbvCmProvider.class.getResourceAsStream("/META-INF/services/" + CmProvider.class.getName())) {
            assertEquals(IbvCmProvider.class.getName(), new String(in.readAllBytes(), StandardCharsets.US_ASCII)
                    .strip());
        }
        IbvCmProvider p = new IbvCmProvider();
        assertEquals("ibverbs", p.name());
        assertEquals(Provider.NATIVE_ORDER, p.order());
    }

    @Test
    void shouldGiveTheDeviceListsReasonWithoutThrowing() {
        noDevice();
        IbvCmProvider p = new IbvCmProvider();
        assertEquals(DeviceList.get().reason(), p.unavailableReason().orElseThrow());
        VerbsException e = assertThrows(VerbsException.class, p::createEventChannel);
        assertEquals(Errno.ENODEV, e.errno());
        assertEquals("ENODEV: the native connection manager is unavailable: " + DeviceList.get().reason(),
                e.getMessage());
    }

    @Test
    void shouldBePassedByWhenAChannelIsCreated() {
        noDevice();
        EventChannel ch;
        try {
            ch = EventChannel.create();
        } catch (VerbsException e) { // no other CM provider is installed: the reason names this one's
            assertEquals(Errno.ENODEV, e.errno());
            assertTrue(e.getMessage().contains("ibverbs: " + DeviceList.get().reason()), e::getMessage);
            return;
        }
        try (ch) {
            assertEquals("soft", ch.provider());
        }
    }

    @Test
    void shouldNameAMissingLibrary() {
        Object r = LibRdmacm.bind("librdmacm-missing.so.99");
        String reason = assertInstanceOf(String.class, r);
        assertTrue(reason.startsWith("cannot load librdmacm-missing.so.99 ("), reason);
        assertTrue(reason.endsWith("install rdma-core's librdmacm (Debian/Ubuntu: apt-get install librdmacm1)"),
                reason);
    }

    @Test
    void shouldBindEveryFunctionOfTheInstalledLibrary() {
        assumeTrue(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/librdmacm.so.1")), "librdmacm1 not installed");
        LibRdmacm lib = assertInstanceOf(LibRdmacm.class, LibRdmacm.bind(LibRdmacm.DEFAULT_LIBRARY));
        assertEquals("librdmacm.so.1", lib.name);
        noDevice(); // librdmacm fails at its first call (ucma_init): -1/errno becomes the VerbsException
        VerbsException e = assertThrows(VerbsException.class, () -> IbvEventChannel.create(lib));
        assertEquals(Errno.ENODEV, e.errno());
        assertEquals("ENODEV: rdma_create_event_channel failed: No such device", e.getMessage());
    }
}
