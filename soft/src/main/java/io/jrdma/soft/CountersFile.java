package io.jrdma.soft;

import io.jrdma.soft.link.Processes;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The counters file of an open soft device, through which other processes ({@code jrdma stat},
 * {@code jrdma monitor}) read its counters while it runs, like Aeron's CnC file.
 *
 * <p>Each open device maps a file {@code <device>.counters} in {@link #directory()} (or
 * {@code <device>.<pid>.<n>.counters} when a running process already has a file of that name) and its
 * {@link Counters} count in that mapping from then on. The file is created complete under a temporary name and
 * renamed into place, so a reader never sees a half-written header; it is marked closed and deleted when the
 * device is closed, and at JVM exit. A file left behind by a killed process is recognised as stale: its process
 * is gone (or is another process with the same pid, which started at another time).
 *
 * <p>Layout (little-endian; described in docs/ARCHITECTURE.md):
 * <pre>
 *   0  8  magic "JRDMACTR"            44  4  counter count N
 *   8  4  version (2)                 48  4  IPv4 address, network order
 *  12  4  header length H             52  4  name width W (32)
 *  16  8  pid                         56 64  device name, UTF-8, NUL padded
 *  24  8  process start stamp       120 N*W counter names (rxe names), UTF-8, NUL padded
 *  32  8  device open, ms epoch        H N*8 values, in name order, written with release stores
 *  40  4  state: 1 open, 2 closed
 * </pre>
 * Instances returned by {@link #list} and {@link #open} are read-only views for other processes.
 */
public final class CountersFile implements AutoCloseable {

    /** File name suffix. */
    public static final String SUFFIX = ".counters";
    /** The layout version written and understood. */
    public static final int VERSION = 2;

    static final byte[] MAGIC = "JRDMACTR".getBytes(StandardCharsets.US_ASCII);
    static final int OFF_VERSION = 8;
    static final int OFF_HEADER_LENGTH = 12;
    static final int OFF_PID = 16;
    static final int OFF_PROCESS_START = 24;
    static final int OFF_OPENED = 32;
    static final int OFF_STATE = 40;
    static final int OFF_COUNT = 44;
    static final int OFF_ADDRESS = 48;
    static final int OFF_NAME_WIDTH = 52;
    static final int OFF_DEVICE = 56;
    static final int DEVICE_WIDTH = 64;
    static final int OFF_NAMES = OFF_DEVICE + DEVICE_WIDTH;
    static final int NAME_WIDTH = 32;
    static final int STATE_OPEN = 1;
    static final int STATE_CLOSED = 2;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = Counters.SLOT_LAYOUT;
    private static final VarHandle STATE = INT.varHandle();
    private static final VarHandle VALUE = LONG.varHandle();
    private static final System.Logger LOG = System.getLogger(CountersFile.class.getName());
    private static final Set<CountersFile> OPEN = Collections.synchronizedSet(new LinkedHashSet<>());
    private static boolean hookInstalled;

    private final Path path;
    private final MemorySegment map;
    private final Arena arena;
    private final int headerLength;
    private final String device;
    private final InetAddress address;
    private final long pid;
    private final long processStart;
    private final long opened;
    private final List<String> names;

    private CountersFile(Path path, MemorySegment map, Arena arena) throws IOException {
        this.path = path;
        this.map = map;
        this.arena = arena;
        if (map.byteSize() < OFF_NAMES || MemorySegment.mismatch(map, 0, MAGIC.length,
                MemorySegment.ofArray(MAGIC), 0, MAGIC.length) >= 0) {
            throw new IOException(path + " is not a jrdma counters file");
        }
        int version = map.get(INT, OFF_VERSION);
        if (version != VERSION) {
            throw new IOException(path + " has counters file version " + version + "; this jrdma reads " + VERSION);
        }
        headerLength = map.get(INT, OFF_HEADER_LENGTH);
        int count = map.get(INT, OFF_COUNT);
        int width = map.get(INT, OFF_NAME_WIDTH);
        if (count < 0 || width <= 0 || headerLength % Long.BYTES != 0
                || headerLength < OFF_NAMES + (long) count * width
                || map.byteSize() < headerLength + (long) count * Long.BYTES) {
            throw new IOException(path + " is truncated or corrupt");
        }
        device = text(map, OFF_DEVICE, DEVICE_WIDTH);
        byte[] ip = new byte[4];
        MemorySegment.copy(map, ValueLayout.JAVA_BYTE, OFF_ADDRESS, ip, 0, 4);
        address = InetAddress.getByAddress(ip);
        pid = map.get(LONG, OFF_PID);
        processStart = map.get(LONG, OFF_PROCESS_START);
        opened = map.get(LONG, OFF_OPENED);
        List<String> n = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            n.add(text(map, OFF_NAMES + (long) i * width, width));
        }
        names = List.copyOf(n);
    }

    // ------------------------------------------------------------------------------------------------- writing

    /**
     * The directory of counters files: {@code jrdma.counters.dir} / {@code JRDMA_COUNTERS_DIR} when set, else
     * {@code /dev/shm/jrdma-<user>} (memory, never written to disk), else {@code <java.io.tmpdir>/jrdma-<user>}.
     */
    public static Path directory() {
        String configured = Settings.get("jrdma.counters.dir", "JRDMA_COUNTERS_DIR");
        if (configured != null) {
            return Path.of(configured);
        }
        return userDirectory();
    }

    /** {@code /dev/shm/jrdma-<user>} (memory), else {@code <java.io.tmpdir>/jrdma-<user>}. */
    static Path userDirectory() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
                : Path.of(System.getProperty("java.io.tmpdir"));
        return base.resolve("jrdma-" + user);
    }

    /** Whether open devices publish counters files ({@code jrdma.counters} / {@code JRDMA_COUNTERS}, default on). */
    static boolean enabled() {
        return Settings.enabled("jrdma.counters", "JRDMA_COUNTERS");
    }

    /**
     * Creates the counters file of a device that is opening and moves {@code counters} into it. Returns null, and
     * the counters stay in memory, when the file cannot be made (logged): counting must never stop a device.
     */
    static CountersFile publish(String device, InetAddress address, Counters counters) {
        Path dir = directory();
        try {
            Files.createDirectories(dir);
            CountersFile f = create(dir, device, address);
            counters.moveTo(f.map.asSlice(f.headerLength, Counters.byteSize()));
            synchronized (CountersFile.class) {
                if (!hookInstalled) {
                    hookInstalled = true;
                    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(CountersFile::retireAll));
                }
            }
            OPEN.add(f);
            return f;
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "jrdma: device " + device + " keeps its counters private: cannot "
                    + "create a counters file in " + dir + " (" + e + ")");
            return null;
        }
    }

    private static CountersFile create(Path dir, String device, InetAddress address) throws IOException {
        Counter[] all = Counter.values();
        int header = align(OFF_NAMES + all.length * NAME_WIDTH, 64);
        long size = header + Counters.byteSize();
        long pid = ProcessHandle.current().pid();
        Path tmp = dir.resolve("." + device + "." + pid + "." + System.nanoTime() + ".tmp");
        Arena arena = Arena.ofAuto(); // unmapped when unreachable: the Counters may still be read after close
        MemorySegment map;
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        }
        try {
            map.fill((byte) 0);
            MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, map, 0, MAGIC.length);
            map.set(INT, OFF_VERSION, VERSION);
            map.set(INT, OFF_HEADER_LENGTH, header);
            map.set(LONG, OFF_PID, pid);
            map.set(LONG, OFF_PROCESS_START, Processes.currentStart());
            map.set(LONG, OFF_OPENED, System.currentTimeMillis());
            map.set(INT, OFF_STATE, STATE_OPEN);
            map.set(INT, OFF_COUNT, all.length);
            MemorySegment.copy(address.getAddress(), 0, map, ValueLayout.JAVA_BYTE, OFF_ADDRESS, 4);
            map.set(INT, OFF_NAME_WIDTH, NAME_WIDTH);
            putText(map, OFF_DEVICE, DEVICE_WIDTH, device);
            for (Counter c : all) {
                putText(map, OFF_NAMES + (long) c.ordinal() * NAME_WIDTH, NAME_WIDTH, c.rxeName());
            }
            Path target = freeName(dir, device, pid);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return new CountersFile(target, map, null);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /** {@code <device>.counters} unless a running process owns it; else the first free {@code <device>.<pid>.<n>}. */
    private static Path freeName(Path dir, String device, long pid) {
        Path first = dir.resolve(device + SUFFIX);
        if (!ownedByLiveProcess(first)) {
            return first;
        }
        for (int n = 1; ; n++) {
            Path p = dir.resolve(device + "." + pid + "." + n + SUFFIX);
            if (!ownedByLiveProcess(p)) {
                return p;
            }
        }
    }

    private static boolean ownedByLiveProcess(Path p) {
        if (!Files.exists(p)) {
            return false;
        }
        try (CountersFile f = open(p)) {
            return !f.closed() && !f.stale();
        } catch (IOException e) {
            return false; // unreadable or corrupt: replace it
        }
    }

    /** Marks the file closed and deletes it (the device is closing); the mapping stays valid for late readers. */
    void retire() {
        if (OPEN.remove(this)) {
            STATE.setRelease(map, (long) OFF_STATE, STATE_CLOSED);
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "jrdma: cannot delete " + path + " (" + e + ")");
            }
        }
    }

    private static void retireAll() {
        List<CountersFile> all;
        synchronized (OPEN) {
            all = new ArrayList<>(OPEN);
        }
        for (CountersFile f : all) {
            f.retire();
        }
    }

    // ------------------------------------------------------------------------------------------------- reading

    /**
     * Opens a counters file read-only, for another process's view of a device.
     *
     * @throws IOException when the file is missing, not a counters file, of another version, or truncated
     */
    public static CountersFile open(Path file) throws IOException {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            return new CountersFile(file, map, arena);
        } catch (IOException | RuntimeException e) {
            arena.close();
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Every readable counters file in {@code dir}, ordered by device name then pid; unreadable files are skipped.
     * Includes stale files (check {@link #stale()}); the caller closes the views.
     */
    public static List<CountersFile> list(Path dir) {
        List<CountersFile> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : files) {
                try {
                    out.add(open(p));
                } catch (IOException e) {
                    // deleted meanwhile, or not ours: skip
                }
            }
        } catch (NoSuchFileException e) {
            return out;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "jrdma: cannot list " + dir + " (" + e + ")");
        }
        out.sort(Comparator.comparing(CountersFile::device).thenComparingLong(CountersFile::pid));
        return out;
    }

    /** The file. */
    public Path path() {
        return path;
    }

    /** The device's name. */
    public String device() {
        return device;
    }

    /** The device's IPv4 address. */
    public InetAddress address() {
        return address;
    }

    /** The process that has the device open. */
    public long pid() {
        return pid;
    }

    /** When the device was opened. */
    public Instant opened() {
        return Instant.ofEpochMilli(opened);
    }

    /** True once the device was closed (the file is about to disappear). */
    public boolean closed() {
        return (int) STATE.getAcquire(map, (long) OFF_STATE) == STATE_CLOSED;
    }

    /**
     * True when the process that wrote the file is gone: no process has its pid, or the one that has it started
     * at another time (the pid was reused). Such a file was left by a process that was killed.
     */
    public boolean stale() {
        return !Processes.alive(pid, processStart);
    }

    /** The counter names, in file order (rxe's names). */
    public List<String> names() {
        return names;
    }

    /** The value of counter {@code index} (an index into {@link #names()}). */
    public long value(int index) {
        if (index < 0 || index >= names.size()) {
            throw new IndexOutOfBoundsException("counter " + index + " of " + names.size());
        }
        return (long) VALUE.getAcquire(map, headerLength + (long) index * Long.BYTES);
    }

    /** The value of the counter named {@code name}, or -1 when the file has no such counter. */
    public long value(String name) {
        int i = names.indexOf(name);
        return i < 0 ? -1 : value(i);
    }

    /** Unmaps a read-only view (a no-op for the device's own file, which the device retires). */
    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return device + " (" + address.getHostAddress() + ", pid " + pid + ", " + path + ")";
    }

    // ------------------------------------------------------------------------------------------------- helpers

    private static int align(int n, int to) {
        return (n + to - 1) / to * to;
    }

    private static void putText(MemorySegment m, long at, int width, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length >= width) {
            throw new IllegalArgumentException("'" + s + "' is longer than " + (width - 1) + " bytes");
        }
        MemorySegment.copy(b, 0, m, ValueLayout.JAVA_BYTE, at, b.length);
    }

    private static String text(MemorySegment m, long at, int width) {
        byte[] b = new byte[width];
        MemorySegment.copy(m, ValueLayout.JAVA_BYTE, at, b, 0, width);
        int n = 0;
        while (n < width && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }
}
