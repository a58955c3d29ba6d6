package io.jrdma.soft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The soft devices of this machine: which names and addresses every jrdma program sees, as {@code rdma link}
 * configures kernel rxe devices. {@code jrdma link add|delete} edits the per-user configuration file, which
 * {@link SoftProvider} reads on every device listing.
 *
 * <p>Where the devices come from, first match wins:
 * <ol>
 *   <li>the system property {@code jrdma.devices}, then the environment variable {@code JRDMA_DEVICES}:
 *       {@code name=ipv4,...} (a bare address is named {@code rxe<N>}), for one program or one shell;</li>
 *   <li>the configuration file (see {@link #path()}), when it exists — even empty, it is the whole list;</li>
 *   <li>the default: one device {@code rxe0} on 127.0.0.1.</li>
 * </ol>
 *
 * <p>The file has one device a line, {@code NAME ADDRESS [netdev NETDEV]}; {@code #} starts a comment. It is
 * written whole to a temporary file and renamed over the old one, under a lock, so a reader sees the old or the
 * new list and two concurrent edits do not lose each other.
 */
public final class DeviceConfig {

    /** The default device when nothing is configured. */
    public static final Entry DEFAULT = new Entry("rxe0", "127.0.0.1", "lo");

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,30}");
    private static final String HEADER = "# jrdma soft RoCEv2 devices, one \"NAME ADDRESS [netdev NETDEV]\" a line."
            + "\n# Edited by jrdma link add|delete; read by every jrdma program (JRDMA_DEVICES overrides it).\n";

    /** One device: its name, IPv4 address and (informative) network interface. */
    public record Entry(String name, String address, String netdev) {
        /** Checks the fields' syntax (not whether the address is local). */
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(address, "address");
        }

        /** The line of the configuration file. */
        String line() {
            return name + " " + address + (netdev == null ? "" : " netdev " + netdev);
        }
    }

    /** Where the effective device list came from. */
    public enum Source {
        /** The {@code jrdma.devices} system property. */
        PROPERTY,
        /** The {@code JRDMA_DEVICES} environment variable. */
        ENVIRONMENT,
        /** The configuration file. */
        FILE,
        /** No setting and no file: the default device. */
        DEFAULT
    }

    /** The devices programs see now, and where they came from. */
    public record Effective(Source source, Path file, List<Entry> entries) {
    }

    private DeviceConfig() {
    }

    /**
     * The configuration file: {@code jrdma.config} / {@code JRDMA_CONFIG} when set, else
     * {@code $XDG_CONFIG_HOME/jrdma/devices.conf}, else {@code ~/.config/jrdma/devices.conf}.
     */
    public static Path path() {
        String configured = Settings.get("jrdma.config", "JRDMA_CONFIG");
        if (configured != null) {
            return Path.of(configured);
        }
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".config");
        return base.resolve("jrdma").resolve("devices.conf");
    }

    /**
     * The devices every jrdma program sees now, by the precedence above.
     *
     * @throws IllegalStateException when the setting or the file is malformed (with the file and line)
     */
    public static Effective effective() {
        Path file = path();
        String property = System.getProperty("jrdma.devices");
        if (property != null && !property.isBlank()) {
            return new Effective(Source.PROPERTY, file, parseSpec(property, "jrdma.devices"));
        }
        String env = System.getenv("JRDMA_DEVICES");
        if (env != null && !env.isBlank()) {
            return new Effective(Source.ENVIRONMENT, file, parseSpec(env, "JRDMA_DEVICES"));
        }
        try {
            List<Entry> entries = read(file);
            if (entries != null) {
                return new Effective(Source.FILE, file, entries);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the jrdma device configuration " + file + ": "
                    + e.getMessage(), e);
        }
        return new Effective(Source.DEFAULT, file, List.of(DEFAULT));
    }

    /** The {@code name=ipv4,...} list of {@code jrdma.devices} / {@code JRDMA_DEVICES}. */
    static List<Entry> parseSpec(String spec, String where) {
        List<Entry> out = new ArrayList<>();
        int n = 0;
        for (String item : spec.split(",")) {
            String s = item.trim();
            if (s.isEmpty()) {
                continue;
            }
            int eq = s.indexOf('=');
            String name = eq < 0 ? "rxe" + n : s.substring(0, eq).trim();
            String addr = eq < 0 ? s : s.substring(eq + 1).trim();
            n++;
            if (name.isEmpty() || addr.isEmpty()) {
                throw new IllegalStateException(where + ": '" + s + "' is not NAME=ADDRESS");
            }
            out.add(new Entry(name, addr, null));
        }
        return out;
    }

    /**
     * The entries of a configuration file, or null when it does not exist.
     *
     * @throws IllegalStateException when a line is malformed
     */
    public static List<Entry> read(Path file) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return null;
        }
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String[] t = (hash < 0 ? line : line.substring(0, hash)).trim().split("\\s+");
            if (t.length == 1 && t[0].isEmpty()) {
                continue;
            }
            if (!(t.length == 2 || (t.length == 4 && t[2].equals("netdev")))) {
                throw new IllegalStateException(file + ":" + (i + 1) + ": expected NAME ADDRESS [netdev NETDEV], got '"
                        + line.trim() + "'");
            }
            out.add(new Entry(t[0], t[1], t.length == 4 ? t[3] : null));
        }
        return out;
    }

    /**
     * Adds device {@code name} on {@code address} and/or {@code netdev} to the configuration file (created, from
     * the devices programs see without it, when missing) and returns the entry written. With only a netdev, the
     * device takes the netdev's first IPv4 address; with only an address, the netdev is the interface that has it.
     *
     * @throws IllegalArgumentException for a bad name, a name or address already configured, an address that is
     *                                  on no local interface, an unknown netdev, or an address not on the netdev;
     *                                  the file is left untouched
     */
    public static Entry add(Path file, String name, String address, String netdev) throws IOException {
        Entry[] added = new Entry[1];
        edit(file, entries -> {
            Entry e = validate(entries, name, address, netdev);
            List<Entry> out = new ArrayList<>(entries);
            out.add(e);
            added[0] = e;
            return out;
        });
        return added[0];
    }

    /**
     * Deletes device {@code name} from the configuration file.
     *
     * @throws IllegalArgumentException when no device of that name is configured (the file is left untouched)
     */
    public static Entry delete(Path file, String name) throws IOException {
        Entry[] removed = new Entry[1];
        edit(file, entries -> {
            List<Entry> out = new ArrayList<>();
            for (Entry e : entries) {
                if (e.name().equals(name)) {
                    removed[0] = e;
                } else {
                    out.add(e);
                }
            }
            if (removed[0] == null) {
                throw new IllegalArgumentException("no device named '" + name + "' in " + file);
            }
            return out;
        });
        return removed[0];
    }

    /** Reads, changes and atomically rewrites the file under an exclusive lock on {@code <file>.lock}. */
    private static void edit(Path file, UnaryOperator<List<Entry>> change) throws IOException {
        Path abs = file.toAbsolutePath();
        Files.createDirectories(abs.getParent());
        Path lockFile = abs.resolveSibling(abs.getFileName() + ".lock");
        try (FileChannel lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockChannel.lock()) {
            assert lock.isValid();
            List<Entry> current = read(abs);
            List<Entry> next = change.apply(current == null ? List.of(DEFAULT) : current);
            write(abs, next);
        }
    }

    private static void write(Path file, List<Entry> entries) throws IOException {
        StringBuilder sb = new StringBuilder(HEADER);
        for (Entry e : entries) {
            sb.append(e.line()).append('\n');
        }
        Path tmp = file.resolveSibling("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(StandardCharsets.UTF_8.encode(sb.toString()));
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static Entry validate(List<Entry> entries, String name, String address, String netdev) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad device name '" + name + "': use a letter, then up to 30 "
                    + "letters, digits, '_' or '-'");
        }
        if (address == null && netdev == null) {
            throw new IllegalArgumentException("device " + name + " needs an address or a netdev");
        }
        for (Entry e : entries) {
            if (e.name().equals(name)) {
                throw new IllegalArgumentException("a device named " + name + " already exists (on "
                        + e.address() + ")");
            }
        }
        NetworkInterface nif = null;
        if (netdev != null) {
            try {
                nif = NetworkInterface.getByName(netdev);
            } catch (SocketException e) {
                nif = null;
            }
            if (nif == null) {
                throw new IllegalArgumentException("no network interface named '" + netdev + "'");
            }
        }
        InetAddress addr = address != null ? parseIpv4(address) : firstIpv4(nif);
        NetworkInterface owner = localInterface(addr);
        if (owner == null) {
            throw new IllegalArgumentException("address " + addr.getHostAddress()
                    + " is not on any local interface (see ip -4 addr; 127.0.0.0/8 is on lo)");
        }
        if (nif != null && !nif.getName().equals(owner.getName())) {
            throw new IllegalArgumentException("address " + addr.getHostAddress() + " is on " + owner.getName()
                    + ", not on " + netdev);
        }
        String text = addr.getHostAddress();
        for (Entry e : entries) {
            if (sameAddress(e.address(), addr)) {
                throw new IllegalArgumentException("address " + text + " is already used by device " + e.name());
            }
        }
        return new Entry(name, text, owner.getName());
    }

    private static InetAddress parseIpv4(String text) {
        // only dotted quads, parsed here: a host name would need a lookup and could resolve differently later
        String[] parts = text.split("\\.", -1);
        byte[] b = new byte[4];
        boolean ok = parts.length == 4;
        for (int i = 0; ok && i < 4; i++) {
            ok = parts[i].matches("\\d{1,3}") && Integer.parseInt(parts[i]) <= 255;
            b[i] = ok ? (byte) Integer.parseInt(parts[i]) : 0;
        }
        if (!ok) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 address (a.b.c.d)");
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 address (a.b.c.d)", e);
        }
    }

    private static boolean sameAddress(String configured, InetAddress addr) {
        try {
            return InetAddress.getByName(configured).equals(addr);
        } catch (UnknownHostException e) {
            return configured.equals(addr.getHostAddress());
        }
    }

    private static InetAddress firstIpv4(NetworkInterface nif) {
        for (InterfaceAddress a : nif.getInterfaceAddresses()) {
            if (a.getAddress() instanceof Inet4Address) {
                return a.getAddress();
            }
        }
        throw new IllegalArgumentException("network interface " + nif.getName() + " has no IPv4 address");
    }

    /**
     * The up interface that has {@code addr}: one that lists it, or for 127.0.0.0/8 (all of which Linux routes
     * to the loopback interface) the up loopback interface whose prefix covers it. Null when none does.
     */
    static NetworkInterface localInterface(InetAddress addr) {
        try {
            NetworkInterface direct = NetworkInterface.getByInetAddress(addr);
            if (direct != null && direct.isUp()) {
                return direct;
            }
            if (addr.isLoopbackAddress()) {
                for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    if (nif.isUp() && nif.isLoopback() && covers(nif, addr)) {
                        return nif;
                    }
                }
            }
        } catch (SocketException e) {
            return null;
        }
        return null;
    }

    private static boolean covers(NetworkInterface nif, InetAddress addr) {
        int ip = DeviceTaps.ipv4(addr);
        for (InterfaceAddress a : nif.getInterfaceAddresses()) {
            if (a.getAddress() instanceof Inet4Address v4) {
                int prefix = a.getNetworkPrefixLength();
                int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
                if ((DeviceTaps.ipv4(v4) & mask) == (ip & mask)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The interface that has {@code address}, by name, or null (for {@code link show}). */
    public static String netdevOf(String address) {
        try {
            NetworkInterface nif = localInterface(InetAddress.getByName(address));
            return nif == null ? null : nif.getName();
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
