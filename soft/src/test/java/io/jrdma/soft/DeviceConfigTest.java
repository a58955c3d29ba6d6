package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Device;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** The device configuration file: edits, validation that leaves the file untouched, and what SoftProvider sees. */
class DeviceConfigTest {

    @TempDir
    Path dir;
    private Path file;

    @BeforeEach
    void useTempConfig() {
        file = dir.resolve("jrdma").resolve("devices.conf");
        System.setProperty("jrdma.config", file.toString());
        System.clearProperty("jrdma.devices");
    }

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.config");
        System.clearProperty("jrdma.devices");
    }

    @Test
    void shouldStartFromTheDefaultDeviceAndAddAndDelete() throws IOException {
        assertEquals(DeviceConfig.Source.DEFAULT, DeviceConfig.effective().source());
        assertEquals(List.of(DeviceConfig.DEFAULT), DeviceConfig.effective().entries());

        DeviceConfig.Entry added = DeviceConfig.add(file, "rxe1", "127.0.36.2", null);
        assertEquals(new DeviceConfig.Entry("rxe1", "127.0.36.2", "lo"), added);
        DeviceConfig.add(file, "obs_2", "127.0.36.3", "lo");
        DeviceConfig.Effective eff = DeviceConfig.effective();
        assertEquals(DeviceConfig.Source.FILE, eff.source());
        assertEquals(List.of("rxe0", "rxe1", "obs_2"), eff.entries().stream().map(DeviceConfig.Entry::name).toList());
        assertTrue(Files.readString(file).contains("\nrxe1 127.0.36.2 netdev lo\n"), Files.readString(file));

        DeviceConfig.delete(file, "rxe0");
        assertEquals(List.of("rxe1", "obs_2"), names(DeviceConfig.effective().entries()));
        DeviceConfig.delete(file, "rxe1");
        DeviceConfig.delete(file, "obs_2");
        assertEquals(DeviceConfig.Source.FILE, DeviceConfig.effective().source(), "an empty file is the whole list");
        assertEquals(List.of(), DeviceConfig.effective().entries());
        try (var files = Files.list(file.getParent())) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temporary file left");
        }
    }

    @Test
    void shouldRejectBadInputAndLeaveTheFileUntouchedBadFlow() throws IOException {
        assertRejected("no network interface", () -> DeviceConfig.add(file, "rxe1", null, "nosuch0"));
        assertFalse(Files.exists(file), "a failed first add creates no file");

        DeviceConfig.add(file, "rxe1", "127.0.36.2", null);
        byte[] before = Files.readAllBytes(file);
        assertRejected("already exists", () -> DeviceConfig.add(file, "rxe1", "127.0.36.4", null));
        assertRejected("already used by device rxe1", () -> DeviceConfig.add(file, "rxe2", "127.0.36.2", null));
        assertRejected("already used by device rxe0", () -> DeviceConfig.add(file, "rxe2", "127.0.0.1", null));
        assertRejected("not on any local interface", () -> DeviceConfig.add(file, "rxe2", "192.0.2.1", null));
        assertRejected("not an IPv4 address", () -> DeviceConfig.add(file, "rxe2", "localhost", null));
        assertRejected("not an IPv4 address", () -> DeviceConfig.add(file, "rxe2", "127.0.36.300", null));
        assertRejected("bad device name", () -> DeviceConfig.add(file, "2rxe", "127.0.36.5", null));
        assertRejected("bad device name", () -> DeviceConfig.add(file, "rxe/2", "127.0.36.5", null));
        assertRejected("bad device name", () -> DeviceConfig.add(file, "r".repeat(32), "127.0.36.5", null));
        assertRejected("needs an address or a netdev", () -> DeviceConfig.add(file, "rxe2", null, null));
        assertRejected("no device named", () -> DeviceConfig.delete(file, "rxe7"));
        assertEquals(new String(before), new String(Files.readAllBytes(file)), "the file is untouched");
    }

    @Test
    void shouldReportAMalformedFileWithItsLineBadFlow() throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "# devices\nrxe0 127.0.0.1\nrxe1 127.0.36.2 eth0\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, DeviceConfig::effective);
        assertTrue(e.getMessage().contains(file + ":3:"), e.getMessage());
    }

    @Test
    void shouldListConfiguredDevicesInTheProviderWithTheSettingFirst() throws IOException {
        DeviceConfig.add(file, "cfg1", "127.0.36.6", null);
        DeviceConfig.delete(file, "rxe0");
        assertEquals(List.of("cfg1"), deviceNames());
        SoftDevice d = (SoftDevice) new SoftProvider().devices().getFirst();
        assertEquals("127.0.36.6", d.address().getHostAddress());

        System.setProperty("jrdma.devices", "prop1=127.0.36.7");
        assertEquals(DeviceConfig.Source.PROPERTY, DeviceConfig.effective().source());
        assertEquals(List.of("prop1"), deviceNames(), "the property wins over the file");
        System.clearProperty("jrdma.devices");

        Files.delete(file);
        assertEquals(List.of("rxe0"), deviceNames(), "no file: the default device");
    }

    private static List<String> deviceNames() {
        return new SoftProvider().devices().stream().map(Device::name).toList();
    }

    private static List<String> names(List<DeviceConfig.Entry> entries) {
        return entries.stream().map(DeviceConfig.Entry::name).toList();
    }

    private static void assertRejected(String message, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(message), "'" + message + "' not in: " + e.getMessage());
    }
}
