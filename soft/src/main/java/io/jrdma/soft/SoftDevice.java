package io.jrdma.soft;

import io.jrdma.soft.link.FaultConfig;
import io.jrdma.soft.link.FaultyLink;
import io.jrdma.soft.link.Link;
import io.jrdma.soft.link.ShmLink;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.VerbsException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A software RoCEv2 device bound to one IPv4 address (UDP port 4791), like a kernel rxe device on a netdev.
 *
 * <p>GID table as rxe: index 0 is the link-local GID from the interface MAC's EUI-64, index 1 the IPv4-mapped
 * address. The active MTU is the interface MTU less 80 bytes of headers, rounded down to an IB MTU.
 */
public final class SoftDevice implements Device {

    private final String name;
    private final InetAddress address;
    private final int port;
    private final Threading threading;
    private final NanoClock clock;
    private final byte[] mac;
    private final Mtu activeMtu;
    private final Path capture;
    private final PrintStream trace;
    private final FaultConfig faults;
    private final Supplier<IdleStrategy> idle;
    private final boolean allowNative;
    private final boolean sharedMemory;
    private final boolean icrcOnSharedMemory;
    private SoftContext open;
    private CountersFile countersFile;
    private DeviceTaps taps;

    private SoftDevice(Builder b) {
        this.name = b.name;
        this.address = b.address;
        this.port = b.port;
        this.threading = b.threading;
        this.clock = b.clock;
        this.capture = b.capture;
        this.trace = b.trace;
        this.faults = b.faults != null ? b.faults : FaultConfig.fromEnvironment();
        // an adaptive engine thread only covers for callers that stopped: it sleeps as soon as it is idle, where a
        // spinning, yielding one competes for the cores with the callers it covers for (docs/benchmarks/contention.md)
        this.idle = b.idle != null ? b.idle : IdleStrategy.named(Settings.get("jrdma.idle", "JRDMA_IDLE",
                threading == Threading.ADAPTIVE ? "sleep" : "backoff"));
        this.allowNative = b.allowNative;
        this.sharedMemory = b.sharedMemory != null ? b.sharedMemory : Settings.enabled("jrdma.shm", "JRDMA_SHM");
        this.icrcOnSharedMemory = b.icrcOnSharedMemory != null ? b.icrcOnSharedMemory
                : Settings.enabled("jrdma.shm.icrc", "JRDMA_SHM_ICRC", false);
        NetworkInterface nif = null;
        try {
            nif = NetworkInterface.getByInetAddress(address);
            if (nif == null && address.isLoopbackAddress()) {
                nif = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress()); // all of 127/8 is on lo
            }
        } catch (SocketException e) {
            // unknown interface: use defaults below
        }
        byte[] hw = null;
        int linkMtu = 1500;
        try {
            if (nif != null) {
                hw = nif.getHardwareAddress();
                linkMtu = nif.getMTU();
            }
        } catch (SocketException e) {
            // keep defaults
        }
        if (hw == null || hw.length != 6 || isZero(hw)) {
            // loopback has no MAC: a locally administered one from the IPv4 address keeps GUIDs distinct
            byte[] ip = address.getAddress();
            hw = new byte[] {0x02, 0x00, ip[0], ip[1], ip[2], ip[3]};
        }
        this.mac = hw;
        Mtu m = Mtu.largestAtMost(Math.min(b.linkMtu > 0 ? b.linkMtu : linkMtu, 65536) - 80);
        this.activeMtu = m == null ? Mtu.MTU_256 : m;
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** A builder for a device on {@code address}. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        // EUI-64 from the MAC, U/L bit flipped, as rxe's node GUID
        return ((long) (mac[0] ^ 0x02) & 0xFF) << 56 | ((long) mac[1] & 0xFF) << 48 | ((long) mac[2] & 0xFF) << 40
                | 0xFFL << 32 | 0xFEL << 24 | ((long) mac[3] & 0xFF) << 16 | ((long) mac[4] & 0xFF) << 8
                | ((long) mac[5] & 0xFF);
    }

    @Override
    public String provider() {
        return SoftProvider.NAME;
    }

    /** The IPv4 address the device binds. */
    public InetAddress address() {
        return address;
    }

    /** Who drives the engine. */
    public Threading threading() {
        return threading;
    }

    /** Whether the device reaches devices of this host through shared memory ({@code jrdma.shm}). */
    public boolean sharedMemory() {
        return sharedMemory;
    }

    /** Whether packets on the shared-memory path keep their ICRCs ({@code jrdma.shm.icrc}; off by default). */
    public boolean icrcOnSharedMemory() {
        return icrcOnSharedMemory;
    }

    /** The faults injected into what this device sends ({@link FaultConfig#NONE} normally). */
    public FaultConfig faults() {
        return faults;
    }

    Mtu activeMtu() {
        return activeMtu;
    }

    Gid linkLocalGid() {
        return Gid.linkLocalFromMac(mac);
    }

    Gid ipv4Gid() {
        return Gid.fromInet(address);
    }

    @Override
    public synchronized SoftContext open() {
        if (open != null) {
            throw new VerbsException(Errno.EBUSY, "device " + name + " is already open in this process");
        }
        Link link;
        ShmLink shm;
        try {
            Link wire = Link.open(address, port, allowNative);
            if (sharedMemory) {
                wire = ShmLink.over(wire, shmDirectory(), !icrcOnSharedMemory);
            }
            shm = wire instanceof ShmLink s ? s : null;
            link = faults.enabled() ? new FaultyLink(wire, faults, clock::nanoTime, SoftLimits.MAX_PACKET) : wire;
        } catch (UncheckedIOException e) {
            throw new VerbsException(Errno.EBUSY, "device " + name + ": " + e.getMessage()
                    + " — is another process using this address? Give each process its own 127.x address.");
        }
        DeviceTaps t;
        try {
            t = DeviceTaps.open(name, address, capture, trace);
        } catch (IOException | RuntimeException e) {
            link.close();
            throw new VerbsException(Errno.EINVAL, "device " + name + ": cannot start capture or trace: "
                    + e.getMessage());
        }
        SoftContext ctx = new SoftContext(this, link, clock, threading, t.with(null), idle.get());
        if (link instanceof FaultyLink f) {
            Counters counters = ctx.counters;
            f.listener(fault -> counters.increment(faultCounter(fault)));
        }
        if (shm != null) {
            Counters counters = ctx.counters;
            shm.listener(e -> counters.increment(shmCounter(e)));
        }
        open = ctx;
        taps = t;
        countersFile = CountersFile.enabled() ? CountersFile.publish(name, address, ctx.counters) : null;
        ctx.start(name);
        return open;
    }

    /**
     * The context {@link #open()} returned while it is open, else null: for a component of this process that must
     * share the device with the application that opened it (the connection manager opens it itself otherwise).
     */
    public synchronized SoftContext openedContext() {
        return open;
    }

    /**
     * Opens a context for queries only ({@code queryDevice}, {@code queryPort}, {@code queryGid}), as
     * {@code jrdma devinfo} needs: it binds an ephemeral UDP port instead of 4791, so it works while another
     * process has the device open, and it publishes no counters and installs no capture or trace. Its QPs could
     * not talk to RoCE peers; use {@link #open()} for traffic.
     */
    public SoftContext openForQuery() {
        Link link;
        try {
            link = Link.open(address, 0, allowNative);
        } catch (UncheckedIOException e) {
            throw new VerbsException(Errno.ENODEV, "device " + name + ": " + e.getMessage());
        }
        return new SoftContext(this, link, clock, Threading.INVOKER, null, idle.get());
    }

    /** The engine tap for a tap the program sets: its own plus the capture and trace taps of the options. */
    synchronized PacketTap withOptionTaps(PacketTap tap) {
        return taps == null ? tap : taps.with(tap);
    }

    private static Counter shmCounter(ShmLink.Event e) {
        return switch (e) {
            case SENT -> Counter.SHM_SENT;
            case RECEIVED -> Counter.SHM_RCVD;
            case DOORBELL -> Counter.SHM_DOORBELLS;
            case RING_FULL -> Counter.SHM_RING_FULL;
        };
    }

    /**
     * Where devices make their rings (the shared-memory path between devices of a host): {@code jrdma.shm.dir} /
     * {@code JRDMA_SHM_DIR}, else the user's directory of counters files' default place.
     */
    static Path shmDirectory() {
        String configured = Settings.get("jrdma.shm.dir", "JRDMA_SHM_DIR");
        return configured != null ? Path.of(configured) : CountersFile.userDirectory();
    }

    private static Counter faultCounter(FaultyLink.Fault fault) {
        return switch (fault) {
            case DROPPED -> Counter.FAULT_DROPPED;
            case DUPLICATED -> Counter.FAULT_DUPLICATED;
            case REORDERED -> Counter.FAULT_REORDERED;
            case DELAYED -> Counter.FAULT_DELAYED;
            case CORRUPTED -> Counter.FAULT_CORRUPTED;
        };
    }

    synchronized void closed(SoftContext c) {
        if (open == c) {
            open = null;
            if (countersFile != null) {
                countersFile.retire();
                countersFile = null;
            }
            if (taps != null) {
                taps.close();
                taps = null;
            }
        }
    }

    @Override
    public String toString() {
        return name + " (soft RoCEv2 on " + address.getHostAddress() + ", " + threading
                + (faults.enabled() ? ", faults " + faults : "") + ")";
    }

    /** Builds a {@link SoftDevice}. */
    public static final class Builder {
        private String name = "rxe0";
        private InetAddress address;
        private int port = Link.ROCE_PORT;
        private Threading threading = Threading.ADAPTIVE;
        private NanoClock clock = NanoClock.SYSTEM;
        private int linkMtu;
        private Path capture;
        private PrintStream trace;
        private FaultConfig faults;
        private Supplier<IdleStrategy> idle;
        private boolean allowNative = true;
        private Boolean sharedMemory;
        private Boolean icrcOnSharedMemory;

        private Builder() {
        }

        /**
         * Captures every packet the device sends and receives into the pcap file {@code file} (see
         * {@link PcapCapture}); default: the {@code jrdma.capture} / {@code JRDMA_CAPTURE} setting, else none.
         */
        public Builder capture(Path file) {
            this.capture = Objects.requireNonNull(file);
            return this;
        }

        /**
         * Traces every packet the device sends and receives to {@code out}, one line each (see
         * {@link PacketTrace}); default: the {@code jrdma.trace} / {@code JRDMA_TRACE} setting, else none.
         */
        public Builder trace(PrintStream out) {
            this.trace = Objects.requireNonNull(out);
            return this;
        }

        /** The device name (default {@code rxe0}). */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name);
            return this;
        }

        /** The IPv4 address to bind (required). */
        public Builder address(InetAddress address) {
            this.address = Objects.requireNonNull(address);
            return this;
        }

        /** The IPv4 address to bind, as text. */
        public Builder address(String address) {
            try {
                return address(InetAddress.getByName(address));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("unknown address " + address, e);
            }
        }

        /** The UDP port to receive on; 4791 (the default) for anything that must talk to other RoCE peers. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Who drives the engine (default {@link Threading#ADAPTIVE}). */
        public Builder threading(Threading threading) {
            this.threading = Objects.requireNonNull(threading);
            return this;
        }

        /**
         * What the engine thread does when a pass finds nothing to do: one strategy per open of the device, from
         * {@code idle}. Default: the {@code jrdma.idle} / {@code JRDMA_IDLE} setting ({@link IdleStrategy#named}),
         * else {@link IdleStrategy#sleeping()} for {@link Threading#ADAPTIVE} and
         * {@link IdleStrategy#defaultStrategy()} for {@link Threading#DEDICATED}.
         */
        public Builder idle(Supplier<IdleStrategy> idle) {
            this.idle = Objects.requireNonNull(idle);
            return this;
        }

        /** The engine's clock (tests step an injected one). */
        public Builder clock(NanoClock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** Overrides the link MTU the active MTU is derived from (default: the interface's). */
        public Builder linkMtu(int bytes) {
            this.linkMtu = bytes;
            return this;
        }

        /**
         * Faults to inject into what the device sends (tests, soak runs). Without this call the device takes them
         * from {@link FaultConfig#fromEnvironment()} (system property {@value FaultConfig#PROPERTY}, environment
         * variable {@value FaultConfig#ENVIRONMENT}); {@link FaultConfig#NONE} turns them off whatever the
         * environment says.
         */
        public Builder faults(FaultConfig faults) {
            this.faults = Objects.requireNonNull(faults);
            return this;
        }

        /**
         * Whether the device may use native sockets where the process has them (default true; see
         * {@link Link#open}); false gives it NIO channels, as {@code -Djrdma.nio=true} does for every device of a
         * process. Tests run a device on each link this way.
         */
        Builder allowNative(boolean allow) {
            this.allowNative = allow;
            return this;
        }

        /**
         * Whether the device's packets for devices of this host go through their shared-memory rings instead of the
         * kernel's UDP stack ({@link ShmLink}; packets for other hosts always go over UDP). Default: the
         * {@code jrdma.shm} / {@code JRDMA_SHM} setting, on unless it says off. Only on native links.
         */
        public Builder sharedMemory(boolean on) {
            this.sharedMemory = on;
            return this;
        }

        /**
         * Whether packets on the shared-memory path keep their ICRCs. Memory does not corrupt what it carries, so by
         * default what the engine sends to a device of this host that takes it so goes with its ICRCs left out, and
         * is not checked ({@link ShmLink}). Default: the {@code jrdma.shm.icrc} / {@code JRDMA_SHM_ICRC} setting,
         * off unless it says on.
         */
        public Builder icrcOnSharedMemory(boolean on) {
            this.icrcOnSharedMemory = on;
            return this;
        }

        /**
         * The device.
         *
         * @throws IllegalArgumentException without an address, or when the fault setting in the environment does
         *                                  not parse
         */
        public SoftDevice build() {
            if (address == null) {
                throw new IllegalArgumentException("a soft device needs an address");
            }
            return new SoftDevice(this);
        }
    }
}
