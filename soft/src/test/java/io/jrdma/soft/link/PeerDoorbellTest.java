package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.soft.ChildClassPath;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device's doorbell rung from another process: the sender copies the owner's eventfd through a pidfd, and the
 * owner's sleep ends with nothing in its socket; a number that is not the owner's eventfd is never written to
 * (127.0.22.x).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerDoorbellTest {

    private static final String A = "127.0.22.6";
    private static final String B = "127.0.22.7";

    @TempDir
    Path dir;

    @BeforeEach
    void needsNativeSockets() {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
    }

    @Test
    void aDeviceOfAnotherProcessIsRungThroughItsEventfd() throws Exception {
        assumeTrue(ptraceScope() < 2, "Yama lets no process copy another's descriptors (ptrace_scope 2 or 3)");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx64m", "--enable-native-access=ALL-UNNAMED",
                "-cp", ChildClassPath.get(), RingOwnerMain.class.getName(), dir.toString(), B)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        InetAddress b = InetAddress.getByName(B);
        try (Link la = ShmLink.over(Link.open(InetAddress.getByName(A), Link.ROCE_PORT, true), dir, true)) {
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            assertEquals("ready", from.readLine());
            try (ShmRingFile theirs = ShmRingFile.open(dir, Link.ipv4(b), Link.ROCE_PORT)) {
                assertNotNull(theirs, "the child's ring");
                assertEquals(child.pid(), theirs.ring().ownerPid());
                int copy = PeerDoorbell.open(theirs.ring());
                assertTrue(copy >= 0, "a copy of the child's eventfd");
                PeerDoorbell.close(copy);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (theirs.ring().sleepers() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertEquals(1, theirs.ring().sleepers(), "the child sleeps on its link");
            }
            AtomicInteger doorbells = new AtomicInteger();
            assertInstanceOf(ShmLink.class, la).listener(e -> {
                if (e == ShmLink.Event.DOORBELL) {
                    doorbells.incrementAndGet();
                }
            });
            ByteBuffer packet = ByteBuffer.allocateDirect(64);
            assertTrue(la.send(la.port(), packet, new InetSocketAddress(b, Link.ROCE_PORT)));
            assertEquals(1, doorbells.get(), "the child slept: a doorbell rang");
            String[] woke = from.readLine().split(" ");
            assertEquals("woke", woke[0], String.join(" ", woke));
            assertTrue(Long.parseLong(woke[1]) < TimeUnit.SECONDS.toNanos(9), "the doorbell ended the sleep: " + woke[1]);
            assertEquals("1", woke[3], "the record, from the ring");
            assertEquals("0", woke[5], "no doorbell datagram in the child's socket: it rang the eventfd");
            assertTrue(child.waitFor(20, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void aNumberThatIsNotTheOwnersEventfdIsNeverWritten() throws Exception {
        int socket = NativeUdp.open(Link.ipv4(InetAddress.getByName(A)), 0, 1 << 16, false, false);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment map = arena.allocate(ShmRing.mappingBytes(1 << 18), 4096);
            // this process's ring, naming a socket where the eventfd should be: no copy, nothing written
            ShmRing.format(map, 1 << 18, Processes.currentPid(), Processes.currentStart(), socket);
            assertEquals(-1, PeerDoorbell.open(new ShmRing(map)));
            // an owner that ended: no copy
            Process gone = new ProcessBuilder("true").start();
            assertTrue(gone.waitFor(30, TimeUnit.SECONDS));
            ShmRing.format(map, 1 << 18, gone.pid(), 0, socket);
            assertEquals(-1, PeerDoorbell.open(new ShmRing(map)));
            // a ring that names no eventfd
            ShmRing.format(map, 1 << 18, Processes.currentPid(), Processes.currentStart());
            assertEquals(-1, PeerDoorbell.open(new ShmRing(map)));
        } finally {
            NativeUdp.close(socket);
        }
    }

    /** Yama's ptrace_scope, 0 where there is no Yama. */
    private static int ptraceScope() {
        try {
            return Integer.parseInt(Files.readString(Path.of("/proc/sys/kernel/yama/ptrace_scope")).trim());
        } catch (Exception e) {
            return 0;
        }
    }
}
