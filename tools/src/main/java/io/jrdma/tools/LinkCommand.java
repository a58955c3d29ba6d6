package io.jrdma.tools;

import io.jrdma.soft.CountersFile;
import io.jrdma.soft.DeviceConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jrdma link show|add|delete}: the soft devices of this machine, as {@code rdma link} shows and configures
 * kernel rxe devices. add and delete edit the per-user configuration file ({@link DeviceConfig}) that every jrdma
 * program reads.
 */
@Command(name = "link", mixinStandardHelpOptions = true,
        description = {"Shows and configures soft RoCEv2 devices (as rdma link).",
            "Devices come from, first match wins: the jrdma.devices property or JRDMA_DEVICES variable "
                + "(name=ipv4,...), the configuration file (jrdma.config / JRDMA_CONFIG, else "
                + "$XDG_CONFIG_HOME/jrdma/devices.conf or ~/.config/jrdma/devices.conf), the default rxe0 on "
                + "127.0.0.1."},
        subcommands = {LinkCommand.Show.class, LinkCommand.Add.class, LinkCommand.Delete.class})
final class LinkCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** Without a subcommand: {@code show}, as rdma link does. */
    @Override
    public Integer call() {
        return new Show().show(spec.commandLine().getOut(), spec.commandLine().getErr(), null);
    }

    /** A note on stderr when the property or variable hides the file from programs. */
    static void noteOverride(PrintWriter err, DeviceConfig.Effective eff) {
        if (eff.source() == DeviceConfig.Source.PROPERTY || eff.source() == DeviceConfig.Source.ENVIRONMENT) {
            err.println("jrdma link: note: " + (eff.source() == DeviceConfig.Source.PROPERTY ? "jrdma.devices"
                    : "JRDMA_DEVICES") + " is set and takes precedence over " + eff.file());
            err.flush();
        }
    }

    /** {@code jrdma link show [NAME]}. */
    @Command(name = "show", aliases = "list", mixinStandardHelpOptions = true,
            description = "Lists the devices programs see: name/port, state, netdev, address and, when a running "
                    + "process has the device open, its pid.")
    static final class Show implements Callable<Integer> {

        @Parameters(arity = "0..1", paramLabel = "NAME", description = "only this device")
        private String name;

        @Spec
        private CommandSpec spec;

        @Override
        public Integer call() {
            return show(spec.commandLine().getOut(), spec.commandLine().getErr(), name);
        }

        int show(PrintWriter out, PrintWriter err, String only) {
            DeviceConfig.Effective eff = DeviceConfig.effective();
            noteOverride(err, eff);
            List<CountersFile> open = CountersFile.list(CountersFile.directory());
            boolean found = false;
            try {
                for (DeviceConfig.Entry e : eff.entries()) {
                    if (only != null && !only.equals(e.name())) {
                        continue;
                    }
                    found = true;
                    out.println(line(e, open));
                }
            } finally {
                open.forEach(CountersFile::close);
            }
            out.flush();
            if (only != null && !found) {
                throw new IllegalArgumentException("no device named '" + only + "'");
            }
            return 0;
        }

        private static String line(DeviceConfig.Entry e, List<CountersFile> open) {
            String netdev = e.netdev() != null ? e.netdev() : DeviceConfig.netdevOf(e.address());
            StringBuilder sb = new StringBuilder("link ").append(e.name()).append("/1 state ")
                    .append(netdev != null ? "ACTIVE physical_state LINK_UP" : "DOWN physical_state DISABLED")
                    .append(" netdev ").append(netdev != null ? netdev : "-")
                    .append(" address ").append(e.address());
            List<String> pids = new ArrayList<>();
            for (CountersFile f : open) {
                if (f.device().equals(e.name()) && f.address().getHostAddress().equals(e.address()) && !f.closed()
                        && !f.stale()) {
                    pids.add(Long.toString(f.pid()));
                }
            }
            if (!pids.isEmpty()) {
                sb.append(" open_by pid ").append(String.join(",", pids));
            }
            return sb.toString();
        }
    }

    /** {@code jrdma link add NAME [type rxe] [address A] [netdev N]}. */
    @Command(name = "add", mixinStandardHelpOptions = true,
            description = {"Adds a soft device to the configuration file, on an address of a local interface "
                    + "(any 127.x.y.z is on lo) or on a netdev's first IPv4 address:",
                "  jrdma link add rxe1 address 127.0.0.2",
                "  jrdma link add rxe2 type rxe netdev eth0"})
    static final class Add implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "NAME", description = "device name: a letter, then letters, digits, "
                + "'_' or '-' (31 at most)")
        private String name;

        @Parameters(index = "1..*", paramLabel = "KEY VALUE", description = "type rxe | address IPV4 | netdev NETDEV")
        private List<String> pairs = new ArrayList<>();

        @Spec
        private CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            String address = null;
            String netdev = null;
            if (pairs.size() % 2 != 0) {
                throw new ParameterException(spec.commandLine(), "'" + pairs.getLast() + "' needs a value");
            }
            for (int i = 0; i < pairs.size(); i += 2) {
                String key = pairs.get(i);
                String value = pairs.get(i + 1);
                switch (key.toLowerCase(Locale.ROOT)) {
                    case "type" -> {
                        if (!value.equals("rxe")) {
                            throw new IllegalArgumentException("only type rxe (soft RoCEv2) exists, not '" + value
                                    + "'");
                        }
                    }
                    case "address", "addr" -> address = value;
                    case "netdev", "dev" -> netdev = value;
                    default -> throw new ParameterException(spec.commandLine(), "unknown keyword '" + key
                            + "' (type, address, netdev)");
                }
            }
            Path file = DeviceConfig.path();
            DeviceConfig.add(file, name, address, netdev);
            noteOverride(spec.commandLine().getErr(), DeviceConfig.effective());
            return 0;
        }
    }

    /** {@code jrdma link delete NAME}. */
    @Command(name = "delete", aliases = "del", mixinStandardHelpOptions = true,
            description = "Removes a soft device from the configuration file.")
    static final class Delete implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "NAME", description = "device name")
        private String name;

        @Spec
        private CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            DeviceConfig.delete(DeviceConfig.path(), name);
            noteOverride(spec.commandLine().getErr(), DeviceConfig.effective());
            return 0;
        }
    }
}
