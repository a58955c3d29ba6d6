package io.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The ibv_devices and ibv_devinfo layouts of {@link DeviceReport} and the commands that print them. */
class DeviceReportTest {

    private static final String ADDR = "127.0.3.3";
    private static final String GUID = "[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}";

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @AfterEach
    void clearDevices() {
        System.clearProperty("jrdma.devices");
    }

    @Test
    void shouldPrintDevicesAsIbvDevices() {
        SoftDevice d = SoftDevice.builder().name("rxe3").address(ADDR).build();
        String text = DeviceReport.devices(List.of(d));
        assertEquals("    device          \t   node GUID\n"
                + "    ------          \t----------------\n"
                + "    rxe3            \t" + String.format("%016x", d.guid()) + "\n", text);
    }

    @Test
    void shouldQualifyANameTwoProvidersShare() {
        SoftDevice d = SoftDevice.builder().name("rxe3").address(ADDR).build();
        Device kernel = new Device() {
            @Override
            public String name() {
                return "rxe3";
            }

            @Override
            public long guid() {
                return 0x5054ff0077000bL;
            }

            @Override
            public String provider() {
                return "ibverbs";
            }

            @Override
            public Context open() {
                throw new UnsupportedOperationException();
            }
        };
        String text = DeviceReport.devices(List.of(kernel, d));
        assertEquals("    device          \t   node GUID\n"
                + "    ------          \t----------------\n"
                + "    ibverbs:rxe3    \t005054ff0077000b\n"
                + "    soft:rxe3       \t" + String.format("%016x", d.guid()) + "\n", text);
    }

    @Test
    void shouldPrintDevinfoAsIbvDevinfo() {
        try (SoftContext ctx = device().open()) {
            String text = DeviceReport.devinfo(ctx, 0, false);
            assertMatches("hca_id:\trxe3\n"
                    + "\ttransport:\t\t\tInfiniBand \\(0\\)\n"
                    + "\tfw_ver:\t\t\t\t[0-9.]+\n"
                    + "\tnode_guid:\t\t\t" + GUID + "\n"
                    + "\tsys_image_guid:\t\t\t" + GUID + "\n"
                    + "\tvendor_id:\t\t\t0x[0-9a-f]{4,}\n"
                    + "\tvendor_part_id:\t\t\t\\d+\n"
                    + "\thw_ver:\t\t\t\t0x[0-9A-F]+\n"
                    + "\tphys_port_cnt:\t\t\t1\n"
                    + "\t\tport:\t1\n"
                    + "\t\t\tstate:\t\t\tPORT_ACTIVE \\(4\\)\n"
                    + "\t\t\tmax_mtu:\t\t4096 \\(5\\)\n"
                    + "\t\t\tactive_mtu:\t\t(256 \\(1\\)|512 \\(2\\)|1024 \\(3\\)|2048 \\(4\\)|4096 \\(5\\))\n"
                    + "\t\t\tsm_lid:\t\t\t0\n"
                    + "\t\t\tport_lid:\t\t0\n"
                    + "\t\t\tport_lmc:\t\t0x00\n"
                    + "\t\t\tlink_layer:\t\tEthernet\n"
                    + "\n", text);
            assertTrue(text.contains("\tnode_guid:\t\t\t" + DeviceReport.guid(ctx.device().guid()) + "\n"), text);
        }
    }

    @Test
    void shouldAddLimitsAndGidTableWhenVerbose() {
        try (SoftContext ctx = device().open()) {
            String text = DeviceReport.devinfo(ctx, 0, true);
            for (String field : new String[] {"max_qp", "max_qp_wr", "max_sge", "max_cq", "max_cqe", "max_mr",
                "max_pd", "max_qp_rd_atom", "max_qp_init_rd_atom"}) {
                assertTrue(Pattern.compile("\n\t" + field + ":\t+\\d+\n").matcher(text).find(), field + " in\n" + text);
            }
            assertTrue(text.contains("\n\tatomic_cap:\t\t\tATOMIC_HCA (1)\n"), text);
            assertTrue(Pattern.compile("\n\t\t\tGID\\[  0]:\t\tfe80::[0-9a-f:]+, RoCE v2\n").matcher(text).find(),
                    text);
            assertTrue(text.contains("\n\t\t\tGID[  1]:\t\t::ffff:" + ADDR + ", RoCE v2\n"), text);
            assertTrue(text.indexOf("max_qp:") < text.indexOf("\t\tport:\t1") && text.endsWith("RoCE v2\n\n"), text);
        }
    }

    @Test
    void shouldFormatGuidInGroupsOfFour() {
        assertEquals("0002:c903:0001:0a2b", DeviceReport.guid(0x0002_c903_0001_0a2bL));
        assertEquals("ffff:ffff:ffff:ffff", DeviceReport.guid(-1L));
    }

    @Test
    void shouldRunDevinfoAndDevicesCommands() {
        System.setProperty("jrdma.devices", "rxe9=127.0.3.4");
        assertEquals(0, command().execute("devinfo", "-d", "rxe9", "-v"), err.toString());
        assertTrue(out.toString().startsWith("hca_id:\trxe9\n"), out.toString());
        assertTrue(out.toString().contains("::ffff:127.0.3.4, RoCE v2"), out.toString());

        out.getBuffer().setLength(0);
        assertEquals(0, command().execute("devices"), err.toString());
        assertTrue(out.toString().contains("\n    rxe9            \t"), out.toString());
    }

    @Test
    void shouldRunDevinfoWhileTheDeviceIsInUse() {
        System.setProperty("jrdma.devices", "busy0=127.0.38.20");
        SoftDevice d = SoftDevice.builder().name("busy0").address("127.0.38.20").threading(Threading.INVOKER).build();
        try (SoftContext ctx = d.open()) {
            assertEquals(0, command().execute("devinfo", "-d", "busy0", "-i", "1"), err.toString());
            assertTrue(out.toString().startsWith("hca_id:\tbusy0\n"), out.toString());
            assertTrue(out.toString().contains("\t\tport:\t1\n"), out.toString());
            assertEquals(0, ctx.counters().get(io.jrdma.soft.Counter.SENT_PKTS));
        }
        assertEquals(1, command().execute("devinfo", "-d", "busy0", "-i", "2"));
        assertTrue(err.toString().contains("has no port 2"), err.toString());
        assertEquals(2, command().execute("devinfo", "-i", "-1"));
    }

    @Test
    void shouldFailOnUnknownDeviceOrUsageBadFlow() {
        System.setProperty("jrdma.devices", "rxe9=127.0.3.4");
        assertEquals(1, command().execute("devinfo", "-d", "mlx5_0"));
        assertTrue(err.toString().contains("jrdma devinfo: error:") && err.toString().contains("mlx5_0"),
                err.toString());
        assertEquals(2, command().execute("devinfo", "--no-such-option"));
        assertEquals(2, command().execute());
    }

    private CommandLine command() {
        return Jrdma.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
    }

    private static SoftDevice device() {
        return SoftDevice.builder().name("rxe3").address(ADDR).threading(Threading.INVOKER).build();
    }

    private static void assertMatches(String regex, String text) {
        assertTrue(Pattern.compile(regex).matcher(text).matches(), "want\n" + regex + "\ngot\n" + text);
    }
}
