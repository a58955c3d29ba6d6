package io.jrdma.soft.link;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The file behind a device's {@link ShmRing}: {@code <dir>/ring-<netns>-<ip>-<port>}, named by the address the
 * device's UDP socket is bound to and by the network namespace (two namespaces may each have a device at
 * {@code 10.77.0.1:4791}), so a sender finds the ring of the address it would send a datagram to. The device that
 * owns the address makes the file (all its pages written once, so a full tmpfs fails here and not later with a
 * fault) and deletes it when it closes; a sender maps it while its owner runs.
 */
final class ShmRingFile implements AutoCloseable {

    private static final String NETNS = netns();
    /** Rings this process owns, deleted at exit if their devices were not closed. */
    private static final Set<ShmRingFile> OWNED = ConcurrentHashMap.newKeySet();
    private static boolean hookInstalled;

    private final Path path;
    private final Arena arena;
    private final MemorySegment map;
    private final ShmRing ring;
    private final boolean owner;

    private ShmRingFile(Path path, Arena arena, MemorySegment map, boolean owner) {
        this.path = path;
        this.arena = arena;
        this.map = map;
        this.ring = new ShmRing(map);
        this.owner = owner;
    }

    /** The ring file of the device bound to {@code ip:port} in this network namespace. */
    static Path path(Path dir, int ip, int port) {
        return dir.resolve("ring-" + NETNS + "-" + (ip >>> 24) + "." + (ip >>> 16 & 0xFF) + "." + (ip >>> 8 & 0xFF)
                + "." + (ip & 0xFF) + "-" + port);
    }

    /**
     * Makes the ring of the device bound to {@code ip:port}, replacing a file a process that ended left there.
     *
     * @throws IOException when the file cannot be made, or a running process owns it
     */
    static ShmRingFile create(Path dir, int ip, int port, int capacity) throws IOException {
        return create(dir, ip, port, capacity, -1);
    }

    /** {@link #create} for a device whose waits end when the eventfd {@code bellFd} (-1: none) is written. */
    static ShmRingFile create(Path dir, int ip, int port, int capacity, int bellFd) throws IOException {
        Files.createDirectories(dir);
        sweep(dir);
        Path target = path(dir, ip, port);
        try (ShmRingFile old = open(target, true)) { // one left by an ended process went in the sweep
            if (old != null) {
                throw new IOException(target + " belongs to the running process " + old.ring.ownerPid());
            }
        }
        long bytes = ShmRing.mappingBytes(capacity);
        Path tmp = dir.resolve("." + target.getFileName() + "." + Processes.currentPid() + "." + System.nanoTime());
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: the directory's permissions hold
            }
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long at = 0; at < bytes; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                at += ch.write(zeros, at);
            }
            MemorySegment map = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            map.load(); // map every page now, not one fault per page in the first pass of traffic
            ShmRing.format(map, capacity, Processes.currentPid(), Processes.currentStart(), bellFd);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            ShmRingFile f = new ShmRingFile(target, arena, map, true);
            OWNED.add(f);
            installHook();
            return f;
        } catch (IOException | RuntimeException e) {
            arena.close();
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /**
     * Maps the ring of the device bound to {@code ip:port}, for sending to it.
     *
     * @return null when there is none, it is closed, or its owner is gone
     */
    static ShmRingFile open(Path dir, int ip, int port) {
        try {
            ShmRingFile f = open(path(dir, ip, port), true);
            if (f != null) {
                f.map.load(); // as the owner does: no page faults in the first pass of traffic
            }
            return f;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Maps {@code path}; null when missing or not an open ring, or (when {@code live}) its owner is gone. */
    private static ShmRingFile open(Path path, boolean live) throws IOException {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            if (size < ShmRing.DATA) {
                arena.close();
                return null;
            }
            MemorySegment map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            if (!ShmRing.isOpenRing(map)) {
                arena.close();
                return null;
            }
            ShmRingFile f = new ShmRingFile(path, arena, map, false);
            if (live && !Processes.alive(f.ring.ownerPid(), f.ring.ownerStart())) {
                arena.close();
                return null;
            }
            return f;
        } catch (NoSuchFileException e) {
            arena.close();
            return null;
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    ShmRing ring() {
        return ring;
    }

    Path path() {
        return path;
    }

    /**
     * Deletes the ring files in {@code dir} whose owners are gone (a process that ended without closing its
     * devices), so that they do not fill the shared memory of the host.
     */
    static void sweep(Path dir) {
        try (DirectoryStream<Path> rings = Files.newDirectoryStream(dir, "ring-*")) {
            for (Path p : rings) {
                try (ShmRingFile f = open(p, false)) {
                    if (f != null && !Processes.alive(f.ring.ownerPid(), f.ring.ownerStart())) {
                        f.ring.close();
                        Files.deleteIfExists(p);
                    }
                } catch (IOException | RuntimeException e) {
                    // another process's business, or already gone
                }
            }
        } catch (IOException | RuntimeException e) {
            // nothing to sweep
        }
    }

    private static synchronized void installHook() {
        if (!hookInstalled) {
            hookInstalled = true;
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
                for (ShmRingFile f : OWNED) {
                    f.retire();
                }
            }));
        }
    }

    /** Marks an owned ring closed and deletes its file (at close, or when the process exits without closing). */
    private void retire() {
        if (OWNED.remove(this)) {
            ring.close();
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                // left behind: the next device at this address, or the next sweep, removes it
            }
        }
    }

    /** An owner closes its ring and deletes the file; a sender unmaps it. */
    @Override
    public void close() {
        if (owner) {
            retire();
        }
        arena.close();
    }

    /** This process's network namespace, as {@code /proc/self/ns/net} names it ({@code net:[4026531840]}). */
    private static String netns() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
            return link.replaceAll("[^0-9]", "");
        } catch (IOException | RuntimeException e) {
            return "0";
        }
    }
}
