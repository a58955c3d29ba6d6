package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Device;
import io.jrdma.verbs.Verbs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jrdma link show|add|delete} on a temporary configuration file, and what programs then see. */
class LinkCommandTest {

    @TempDir
    Path dir;
    private Path file;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void useTempConfig() {
        file = dir.resolve("devices.conf");
        System.setProperty("jrdma.config", file.toString());
        System.setProperty("jrdma.counters.dir", dir.resolve("counters").toString());
        System.clearProperty("jrdma.devices");
    }

    @AfterEach
    void clear() {
        System.clearProperty("jrdma.config");
        System.clearProperty("jrdma.counters.dir");
        System.clearProperty("jrdma.devices");
    }

    @Test
    void shouldAddShowAndDeleteDevices() throws IOException {
        assertEquals(0, run("link", "show"));
        assertEquals("link rxe0/1 state ACTIVE physical_state LINK_UP netdev lo address 127.0.0.1\n", take());

        assertEquals(0, run("link", "add", "rxe1", "type", "rxe", "address", "127.0.36.2"), err.toString());
        assertEquals(0, run("link", "add", "lab", "netdev", "lo", "address", "127.0.36.3"), err.toString());
        assertEquals("", take(), "add prints nothing, as rdma link add");
        assertEquals(0, run("link"));
        assertEquals("link rxe0/1 state ACTIVE physical_state LINK_UP netdev lo address 127.0.0.1\n"
                + "link rxe1/1 state ACTIVE physical_state LINK_UP netdev lo address 127.0.36.2\n"
                + "link lab/1 state ACTIVE physical_state LINK_UP netdev lo address 127.0.36.3\n", take());
        assertEquals(List.of("rxe0", "rxe1", "lab"), Verbs.devices().stream().map(Device::name).toList(),
                "every program sees the configured devices");

        assertEquals(0, run("link", "delete", "rxe0"));
        assertEquals(0, run("link", "show", "lab"));
        assertEquals("link lab/1 state ACTIVE physical_state LINK_UP netdev lo address 127.0.36.3\n", take());
        assertEquals(List.of("rxe1", "lab"), Verbs.devices().stream().map(Device::name).toList());
        assertEquals(0, run("devinfo", "-d", "lab"), err.toString());
        assertTrue(take().startsWith("hca_id:\tlab\n"));

        System.setProperty("jrdma.devices", "env0=127.0.36.9");
        assertEquals(0, run("link", "show"));
        assertEquals("link env0/1 state ACTIVE physical_state LINK_UP netdev lo address 127.0.36.9\n", take());
        assertTrue(err.toString().contains("jrdma.devices is set and takes precedence over " + file), err.toString());
    }

    @Test
    void shouldRefuseBadInputWithStatusOneAndLeaveTheConfigUntouchedBadFlow() throws IOException {
        assertEquals(0, run("link", "add", "rxe1", "address", "127.0.36.2"));
        byte[] before = Files.readAllBytes(file);
        String[][] bad = {
            {"link", "add", "rxe1", "address", "127.0.36.4"},   // duplicate name
            {"link", "add", "rxe2", "address", "127.0.36.2"},   // duplicate address
            {"link", "add", "rxe2", "address", "192.0.2.1"},    // not on a local interface
            {"link", "add", "rxe2", "address", "300.1.1.1"},    // not an address
            {"link", "add", "-rxe", "address", "127.0.36.5"},   // bad name (an option to picocli: usage)
            {"link", "add", "rx/e", "address", "127.0.36.5"},   // bad name
            {"link", "add", "rxe2", "netdev", "nosuch0"},       // unknown netdev
            {"link", "add", "rxe2", "type", "iwarp", "address", "127.0.36.5"},
            {"link", "add", "rxe2"},                            // neither address nor netdev
            {"link", "delete", "rxe9"},                         // unknown device
            {"link", "show", "rxe9"},
        };
        for (String[] args : bad) {
            err.getBuffer().setLength(0);
            int rc = run(args);
            assertTrue(rc == 1 || (rc == 2 && args[2].startsWith("-")), String.join(" ", args) + " -> " + rc);
            assertTrue(err.toString().startsWith("jrdma link ") || rc == 2, err.toString());
            assertEquals(new String(before), new String(Files.readAllBytes(file)), String.join(" ", args));
        }
        assertEquals(2, run("link", "add", "rxe2", "address"));
        assertEquals(2, run("link", "add", "rxe2", "colour", "blue"));
        assertEquals(new String(before), new String(Files.readAllBytes(file)));
        assertFalse(new String(before).contains("rxe2"));
    }

    private int run(String... args) {
        return Jrdma.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(args);
    }

    private String take() {
        String s = out.toString();
        out.getBuffer().setLength(0);
        return s;
    }
}
