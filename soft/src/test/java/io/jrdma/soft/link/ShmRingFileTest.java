package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files behind the rings: found by address, owned while their process runs, replaced when it is gone. */
class ShmRingFileTest {

    private static final int IP = 0x7F000A01; // 127.0.10.1
    private static final int CAPACITY = 1 << 18;

    @TempDir
    Path dir;

    @Test
    void aSenderFindsTheRingOfAnAddressUntilItsOwnerClosesIt() throws IOException {
        assertNull(ShmRingFile.open(dir, IP, 4791), "no device there yet");
        ShmRingFile own = ShmRingFile.create(dir, IP, 4791, CAPACITY);
        assertTrue(Files.exists(ShmRingFile.path(dir, IP, 4791)));
        assertNull(ShmRingFile.open(dir, IP, 4792), "another port is another device");
        assertNull(ShmRingFile.open(dir, IP + 1, 4791), "another address is another device");
        ShmRingFile sender = ShmRingFile.open(dir, IP, 4791);
        assertNotNull(sender);
        MemorySegment bytes = Arena.ofAuto().allocate(100);
        assertTrue(sender.ring().offer(7, 8, 0, bytes, 0, 100));
        assertEquals(100, own.ring().poll(Arena.ofAuto().allocate(ShmRing.MAX_DATA), () -> 0),
                "one ring, two mappings");
        own.close();
        assertTrue(sender.ring().closed(), "the sender sees its peer gone");
        assertFalse(Files.exists(ShmRingFile.path(dir, IP, 4791)));
        assertNull(ShmRingFile.open(dir, IP, 4791));
        sender.close();
    }

    @Test
    void aRunningOwnerKeepsItsRing() throws IOException {
        try (ShmRingFile own = ShmRingFile.create(dir, IP, 4791, CAPACITY)) {
            IOException e = assertThrows(IOException.class, () -> ShmRingFile.create(dir, IP, 4791, CAPACITY));
            assertTrue(e.getMessage().contains("running process"), e.getMessage());
            assertFalse(own.ring().closed());
        }
    }

    @Test
    void ringsLeftByEndedProcessesAtOtherAddressesAreSweptAway() throws Exception {
        Path left = ShmRingFile.path(dir, IP + 5, 4791);
        leaveRing(left, deadPid());
        try (ShmRingFile live = ShmRingFile.create(dir, IP + 6, 4791, CAPACITY)) {
            assertTrue(Files.exists(live.path()));
            try (ShmRingFile own = ShmRingFile.create(dir, IP, 4791, CAPACITY)) {
                assertFalse(Files.exists(left), "the ring of an ended process is deleted");
                assertTrue(Files.exists(live.path()), "a running owner's ring stays");
                assertFalse(own.ring().closed());
            }
        }
    }

    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return p.pid();
    }

    private static void leaveRing(Path path, long pid) throws IOException {
        long bytes = ShmRing.mappingBytes(CAPACITY);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE); Arena arena = Arena.ofConfined()) {
            ch.write(ByteBuffer.allocate(1), bytes - 1);
            ShmRing.format(ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena), CAPACITY, pid, 0);
        }
    }

    @Test
    void aRingWhoseProcessEndedIsNotUsedAndIsReplaced() throws Exception {
        long deadPid = deadPid();
        Path path = ShmRingFile.path(dir, IP, 4791);
        long bytes = ShmRing.mappingBytes(CAPACITY);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE); Arena arena = Arena.ofConfined()) {
            ch.write(ByteBuffer.allocate(1), bytes - 1);
            MemorySegment left = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            ShmRing.format(left, CAPACITY, deadPid, 0);
            assertNull(ShmRingFile.open(dir, IP, 4791), "its owner is gone: nobody reads it");
            try (ShmRingFile own = ShmRingFile.create(dir, IP, 4791, CAPACITY)) {
                assertTrue(new ShmRing(left).closed(), "the left-behind ring is marked closed for its mappers");
                assertNotNull(ShmRingFile.open(dir, IP, 4791), "the new ring is found");
                assertEquals(Processes.currentPid(), own.ring().ownerPid());
            }
        }
    }
}
