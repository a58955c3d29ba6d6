package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The many-to-one ring of the shared-memory path: order, wrap-around, full, many senders, dead senders, doorbells. */
class ShmRingTest {

    private static final int CAPACITY = 1 << 18; // the smallest power of two that holds two largest records

    private final Arena arena = Arena.ofConfined();

    private ShmRing ring() {
        MemorySegment map = arena.allocate(ShmRing.mappingBytes(CAPACITY), 4096);
        ShmRing.format(map, CAPACITY, 1, 2);
        assertTrue(ShmRing.isOpenRing(map));
        return new ShmRing(map);
    }

    private static MemorySegment bytes(Arena arena, int length, int seed) {
        MemorySegment m = arena.allocate(Math.max(1, length));
        Random r = new Random(seed);
        for (int i = 0; i < length; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        return m;
    }

    @Test
    void recordsArriveInOrderAndWholeAcrossManyWrapArounds() {
        ShmRing ring = ring();
        MemorySegment dst = arena.allocate(ShmRing.MAX_DATA);
        Random sizes = new Random(7);
        long moved = 0;
        for (int i = 0; i < 400; i++) {
            int length = i % 50 == 0 ? ShmRing.MAX_DATA : 1 + sizes.nextInt(20_000);
            MemorySegment src = bytes(arena, length, i);
            assertTrue(ring.offer(0x7F000001 + i, 0xC000 + i, i % 3 == 0 ? 1024 : 0, src, 0, length));
            assertTrue(ring.ready());
            assertEquals(length, ring.poll(dst, () -> 0));
            assertEquals(0x7F000001 + i, ring.lastIp());
            assertEquals(0xC000 + i, ring.lastPort());
            assertEquals(i % 3 == 0 ? 1024 : 0, ring.lastSegment());
            assertEquals(-1, MemorySegment.mismatch(src, 0, length, dst, 0, length), "record " + i);
            assertEquals(-1, ring.poll(dst, () -> 0));
            assertFalse(ring.ready());
            moved += length;
        }
        assertTrue(moved > 8L * CAPACITY, "the test must wrap around the ring many times: " + moved);
    }

    @Test
    void saysWhetherItsOwnerTakesRecordsWithoutIcrc() {
        ShmRing ring = ring();
        assertFalse(ring.takesRecordsWithoutIcrc(), "only when its owner says so: older versions never do");
        ring.takeRecordsWithoutIcrc();
        assertTrue(ring.takesRecordsWithoutIcrc());
        MemorySegment src = bytes(arena, 10, 4);
        assertTrue(ring.offer(1, 2, 0, src, 0, 10));
        assertEquals(10, ring.poll(arena.allocate(ShmRing.MAX_DATA), () -> 0));
        assertEquals(0, ring.lastFlags(), "a record offered whole keeps its ICRCs");
    }

    @Test
    @SuppressWarnings("restricted")
    void gathersPiecesAtNativeAddresses() {
        ShmRing ring = ring();
        MemorySegment all = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
        MemorySegment a = bytes(arena, 12, 1);
        MemorySegment b = bytes(arena, 4096, 2);
        MemorySegment c = bytes(arena, 4, 3);
        assertTrue(ring.offer(1, 2, 0, all, new long[] {a.address(), b.address(), c.address()},
                new int[] {12, 4096, 4}, 3, 4112, ShmRing.FLAG_NO_ICRC));
        MemorySegment dst = arena.allocate(ShmRing.MAX_DATA);
        assertEquals(4112, ring.poll(dst, () -> 0));
        assertEquals(ShmRing.FLAG_NO_ICRC, ring.lastFlags(), "the sender's flag travels with the record");
        byte[] want = new byte[4112];
        MemorySegment.copy(a, ValueLayout.JAVA_BYTE, 0, want, 0, 12);
        MemorySegment.copy(b, ValueLayout.JAVA_BYTE, 0, want, 12, 4096);
        MemorySegment.copy(c, ValueLayout.JAVA_BYTE, 0, want, 4108, 4);
        assertArrayEquals(want, dst.asSlice(0, 4112).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void aFullRingRefusesAndTakesAgainOnceRead() {
        ShmRing ring = ring();
        MemorySegment src = bytes(arena, 60_000, 9);
        int taken = 0;
        while (ring.offer(1, 2, 0, src, 0, 60_000)) {
            taken++;
            assertTrue(taken < 100, "a ring of " + CAPACITY + " bytes never filled");
        }
        assertEquals(CAPACITY / 60_032, taken, "records of 60,032 bytes with their headers");
        MemorySegment dst = arena.allocate(ShmRing.MAX_DATA);
        assertEquals(60_000, ring.poll(dst, () -> 0));
        assertTrue(ring.offer(1, 2, 0, src, 0, 60_000), "room again after one was read");
        for (int i = 0; i < taken; i++) {
            assertEquals(60_000, ring.poll(dst, () -> 0));
        }
        assertEquals(-1, ring.poll(dst, () -> 0));
    }

    @Test
    void manySendersEachArriveInTheirOrderExactlyOnce() throws Exception {
        MemorySegment map = Arena.ofAuto().allocate(ShmRing.mappingBytes(CAPACITY), 4096);
        ShmRing.format(map, CAPACITY, 1, 2);
        ShmRing receiver = new ShmRing(map);
        int senders = 3;
        int each = 20_000;
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            int id = s;
            threads.add(Thread.ofPlatform().start(() -> {
                ShmRing ring = new ShmRing(map);
                MemorySegment buf = Arena.ofAuto().allocate(2048);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                for (int n = 0; n < each && System.nanoTime() < deadline; ) {
                    int length = 12 + (n * 31 + id) % 2000;
                    buf.set(ValueLayout.JAVA_INT, 0, n);
                    buf.set(ValueLayout.JAVA_INT, 4, length);
                    buf.set(ValueLayout.JAVA_BYTE, length - 1, (byte) (n ^ id));
                    if (ring.offer(id, n, 0, buf, 0, length)) {
                        n++;
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        int[] next = new int[senders];
        MemorySegment dst = Arena.ofAuto().allocate(ShmRing.MAX_DATA);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int got = 0;
        while (got < senders * each && System.nanoTime() < deadline) {
            int length = receiver.poll(dst, System::nanoTime);
            if (length < 0) {
                Thread.onSpinWait();
                continue;
            }
            int id = receiver.lastIp();
            int n = dst.get(ValueLayout.JAVA_INT, 0);
            assertEquals(next[id], n, "sender " + id + " out of order");
            assertEquals(n, receiver.lastPort());
            assertEquals(length, dst.get(ValueLayout.JAVA_INT, 4));
            assertEquals((byte) (n ^ id), dst.get(ValueLayout.JAVA_BYTE, length - 1));
            next[id]++;
            got++;
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertEquals(senders * each, got, "records received");
        assertEquals(-1, receiver.poll(dst, System::nanoTime));
    }

    @Test
    void aRecordADeadSenderLeftHalfWrittenIsSkippedAfterASecond() {
        MemorySegment map = arena.allocate(ShmRing.mappingBytes(CAPACITY), 4096);
        ShmRing.format(map, CAPACITY, 1, 2);
        // a sender claimed 64 bytes and marked them in progress, then died before its commit
        map.set(ValueLayout.JAVA_LONG, ShmRing.OFF_TAIL, 64);
        map.set(ValueLayout.JAVA_INT, ShmRing.DATA, -64);
        map.set(ValueLayout.JAVA_INT, ShmRing.DATA + 4, 30);
        ShmRing ring = new ShmRing(map);
        MemorySegment src = bytes(arena, 100, 4);
        assertTrue(ring.offer(5, 6, 0, src, 0, 100));
        MemorySegment dst = arena.allocate(ShmRing.MAX_DATA);
        long t0 = 1_000_000_000_000L;
        assertEquals(-1, ring.poll(dst, () -> t0), "in progress: wait");
        assertEquals(-1, ring.poll(dst, () -> t0 + ShmRing.STUCK_NS - 1), "not yet a second");
        assertEquals(100, ring.poll(dst, () -> t0 + ShmRing.STUCK_NS), "skipped, then the next record");
        assertEquals(5, ring.lastIp());
        assertEquals(-1, ring.poll(dst, () -> t0 + ShmRing.STUCK_NS));
    }

    @Test
    void aCorruptRecordIsAnErrorNotAWildCopy() {
        MemorySegment map = arena.allocate(ShmRing.mappingBytes(CAPACITY), 4096);
        ShmRing.format(map, CAPACITY, 1, 2);
        map.set(ValueLayout.JAVA_LONG, ShmRing.OFF_TAIL, 64);
        map.set(ValueLayout.JAVA_INT, ShmRing.DATA, 64);
        map.set(ValueLayout.JAVA_INT, ShmRing.DATA + 4, 1_000_000);
        ShmRing ring = new ShmRing(map);
        assertThrows(IllegalStateException.class, () -> ring.poll(arena.allocate(ShmRing.MAX_DATA), () -> 0));
    }

    @Test
    void aSenderRingsOncePerSleepUnlessTheDoorbellWasTakenByAnotherThread() {
        ShmRing ring = ring();
        MemorySegment src = bytes(arena, 10, 1);
        assertTrue(ring.offer(1, 2, 0, src, 0, 10));
        assertFalse(ring.claimDoorbell(), "nobody sleeps");
        MemorySegment dst = arena.allocate(ShmRing.MAX_DATA);
        assertEquals(10, ring.poll(dst, () -> 0));
        assertFalse(ring.sleeping(), "empty: the receiver may sleep");
        assertTrue(ring.offer(1, 2, 0, src, 0, 10));
        assertFalse(ring.doorbellOnItsWay(), "not rung yet");
        assertTrue(ring.claimDoorbell(), "asleep: ring it");
        assertTrue(ring.doorbellOnItsWay(), "pollers leave the socket to the waiter");
        assertTrue(ring.offer(1, 2, 0, src, 0, 10));
        assertFalse(ring.claimDoorbell(), "one doorbell is on its way");
        // a poller's receive took the doorbell off the socket: the sleeper must be woken, and later commits ring
        assertTrue(ring.doorbellTaken(), "a thread still sleeps: the taker wakes it");
        assertTrue(ring.offer(1, 2, 0, src, 0, 10));
        assertTrue(ring.claimDoorbell(), "the claim ended with the doorbell");
        ring.awake();
        assertFalse(ring.doorbellOnItsWay(), "the waiter is back");
        assertFalse(ring.claimDoorbell(), "awake again");
        assertFalse(ring.doorbellTaken(), "nobody sleeps: nothing to wake");
        assertTrue(ring.sleeping(), "records wait: the receiver must not sleep");
        ring.awake();
    }

    @Test
    void noDoorbellRingsWhileAPollerYieldsItsCoreAndItSeesWhatCameAsItReturns() {
        ShmRing ring = ring();
        MemorySegment src = bytes(arena, 10, 1);
        MemorySegment dst = arena.allocate(ShmRing.MAX_DATA);
        assertFalse(ring.sleeping(), "empty: the engine thread sleeps");
        ring.yieldStarted(); // a poller gives up its core for a moment
        assertTrue(ring.offer(1, 2, 0, src, 0, 10));
        assertFalse(ring.claimDoorbell(), "the yielding poller takes it: no doorbell for the sleeper");
        assertTrue(ring.yieldEnded(), "back from the yield: a record waits");
        assertEquals(10, ring.poll(dst, () -> 0));
        assertTrue(ring.offer(1, 2, 0, src, 0, 10));
        assertTrue(ring.claimDoorbell(), "no poller yields now: the sleeper is rung");
        assertEquals(10, ring.poll(dst, () -> 0));
        ring.yieldStarted();
        assertFalse(ring.yieldEnded(), "nothing came during this yield");
        ring.awake();
    }

    @Test
    void aClosedRingIsSeenClosed() {
        ShmRing ring = ring();
        assertFalse(ring.closed());
        ring.close();
        assertTrue(ring.closed());
    }
}
