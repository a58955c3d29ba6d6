package io.jrdma.soft.link;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.function.LongSupplier;

/**
 * A many-to-one ring of RoCEv2 datagrams in memory that several processes map: the receive queue of a device's
 * shared-memory path ({@link ShmLink}). Any number of senders, in any process of the host, claim space by moving the
 * tail with a compare-and-set, write a record and commit it by storing its length last; one receiver (the device's
 * engine) reads the records in order, zeroes the bytes it read and moves the head. The algorithm is the one of
 * Aeron's many-to-one ring buffer.
 *
 * <p>A record is what one UDP datagram would carry: one packet (BTH to ICRC) or a GSO run of packets of
 * {@code segment} bytes each but the last, with the sender's IPv4 address and UDP source port, so the receiver
 * checks ICRCs and addresses as for a datagram. Layout of the mapping (native byte order):
 * <pre>
 *   offset  field
 *        0  long  magic "JRDMARNG" (written last when the ring is made)
 *        8  int   version, 12 int data capacity (a power of two)
 *       16  long  owner pid, 24 long owner start (Processes' stamp), 32 int state (1 open, 2 closed)
 *       36  int   the owner's doorbell eventfd + 1 (0: none; senders ring over UDP)
 *       40  int   features: 1 = the owner takes records whose ICRCs the sender left out (see below)
 *      128  long  tail (senders)          256 long head (receiver)
 *      384  int   sleepers (receiver threads waiting on the socket)   448 int rung (a doorbell is on its way)
 *      512  int   yielders (receiver threads that poll, yielding their core for a moment)
 *     4096  data: records of 32-byte header + bytes, each 32-byte aligned
 *            header: int record length (negative while written), int data length (-1: padding to the end),
 *                    int segment, int sender IPv4, int sender UDP port, int flags (1: ICRCs left out, zero)
 * </pre>
 * Memory between two processes of one host corrupts nothing, so a sender may leave a record's ICRCs out (zero) and
 * flag it, where the owner says it takes such records ({@link #takesRecordsWithoutIcrc}): the ICRC is a CRC over
 * every byte of every packet, computed by the sender and again by the receiver, and on this path it was a fifth
 * of the engines' work per byte. Processes of a version without these fields read zero: a ring that does not say
 * it takes them gets ICRCs, and a record without the flag is checked as a datagram is.
 * A sender that finds a receiver thread waiting ({@code sleepers}) after its commit rings it once per wait
 * ({@link #claimDoorbell}): the caller writes to the receiver's doorbell eventfd ({@link #doorbellFd}, a copy taken
 * through a pidfd, {@link PeerDoorbell}) or, where it has none, sends an empty datagram to the receiver's socket;
 * either ends the wait.
 * Senders check {@code sleepers} after their commit and waiters check the ring after raising {@code sleepers}, both
 * with volatile accesses, so no commit goes unseen by a thread that goes to sleep. No doorbell is rung while a
 * receiver thread that polls yields its core ({@code yielders}, {@link #yieldStarted}): it looks at the ring as it
 * comes back, after lowering {@code yielders}, so a commit is seen either by it or by the sender's check (a
 * doorbell rung then would wake a sleeping thread for a record the poller takes anyway, and where the sender was
 * woken onto the poller's core, which a wake-up by a datagram does, the poller waited for that doorbell's system
 * call before it could run again). Processes of a version without the field read it as zero and ring as before.
 *
 * <p>Nothing here allocates per record.
 */
public final class ShmRing {

    static final long MAGIC = 0x474E524D4452524AL; // "JRDMARNG" little-endian
    static final int VERSION = 2; // 2: the owner's start is Processes' stamp, not epoch ms
    static final int STATE_OPEN = 1;
    static final int STATE_CLOSED = 2;

    static final long OFF_MAGIC = 0;
    static final long OFF_VERSION = 8;
    static final long OFF_CAPACITY = 12;
    static final long OFF_PID = 16;
    static final long OFF_START = 24;
    static final long OFF_STATE = 32;
    private static final long OFF_BELL = 36;
    private static final long OFF_FEATURES = 40;
    /** The {@code features} bit of a ring whose owner takes records without ICRCs. */
    static final int FEATURE_NO_ICRC = 1;
    static final long OFF_TAIL = 128;
    private static final long OFF_HEAD = 256;
    private static final long OFF_SLEEPERS = 384;
    private static final long OFF_RUNG = 448;
    private static final long OFF_YIELDERS = 512;
    static final long DATA = 4096;

    /** Bytes of a record's header; records are aligned to it, so a padding record's header always fits. */
    static final int HEADER = 32;
    private static final int H_DATA = 4;
    private static final int H_SEGMENT = 8;
    private static final int H_IP = 12;
    private static final int H_PORT = 16;
    private static final int H_FLAGS = 20;
    /** The flag of a record whose packets' ICRCs the sender left out (zero). */
    public static final int FLAG_NO_ICRC = 1;
    private static final int PADDING = -1;

    /** The most bytes one record carries (a UDP datagram's payload). */
    public static final int MAX_DATA = NativeDatagrams.MAX_DATAGRAM;

    /** A record in progress at the head for this long is a sender that died while writing it: it is skipped. */
    static final long STUCK_NS = 1_000_000_000L;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final MemorySegment ZEROS = Arena.global().allocate(HEADER + MAX_DATA + HEADER, HEADER);

    private final MemorySegment map;
    private final int capacity;
    private final int mask;

    // the receiver's own state (one receiving thread at a time)
    private long head;
    private long stuckHead = -1;
    private long stuckSinceNs;
    private int lastSegment;
    private int lastIp;
    private int lastPort;
    private int lastFlags;

    /** A ring over {@code map}, whose header already says its capacity (see {@link #format}). */
    ShmRing(MemorySegment map) {
        this.map = map;
        this.capacity = map.get(ValueLayout.JAVA_INT, OFF_CAPACITY);
        if (Integer.bitCount(capacity) != 1 || DATA + capacity > map.byteSize()) {
            throw new IllegalArgumentException("not a ring: capacity " + capacity + " in " + map.byteSize() + " bytes");
        }
        this.mask = capacity - 1;
        this.head = (long) LONG.getVolatile(map, OFF_HEAD);
    }

    /** Bytes a mapping of a ring of {@code capacity} data bytes takes. */
    static long mappingBytes(int capacity) {
        return DATA + capacity;
    }

    /**
     * Writes the header of a new, zeroed ring of {@code capacity} data bytes (a power of two) owned by the process
     * {@code pid} whose start stamp is {@code start} ({@link Processes#start}); the magic goes last.
     */
    static void format(MemorySegment map, int capacity, long pid, long start) {
        format(map, capacity, pid, start, -1);
    }

    /** {@link #format} of a ring whose owner's waits end when the eventfd {@code bellFd} (-1: none) is written. */
    static void format(MemorySegment map, int capacity, long pid, long start, int bellFd) {
        if (Integer.bitCount(capacity) != 1 || capacity < 2 * (HEADER + MAX_DATA)) {
            throw new IllegalArgumentException("ring capacity " + capacity + " must be a power of two of at least "
                    + 2 * (HEADER + MAX_DATA));
        }
        map.set(ValueLayout.JAVA_INT, OFF_VERSION, VERSION);
        map.set(ValueLayout.JAVA_INT, OFF_CAPACITY, capacity);
        map.set(ValueLayout.JAVA_LONG, OFF_PID, pid);
        map.set(ValueLayout.JAVA_LONG, OFF_START, start);
        map.set(ValueLayout.JAVA_INT, OFF_BELL, bellFd + 1);
        INT.setVolatile(map, OFF_STATE, STATE_OPEN);
        LONG.setVolatile(map, OFF_MAGIC, MAGIC);
    }

    /** Whether {@code map} holds a ring of this version whose receiver has not closed it. */
    static boolean isOpenRing(MemorySegment map) {
        return map.byteSize() >= DATA && (long) LONG.getVolatile(map, OFF_MAGIC) == MAGIC
                && map.get(ValueLayout.JAVA_INT, OFF_VERSION) == VERSION
                && (int) INT.getVolatile(map, OFF_STATE) == STATE_OPEN;
    }

    /** Whether the receiver has closed this ring (a sender then stops using it). */
    public boolean closed() {
        return (int) INT.getVolatile(map, OFF_STATE) != STATE_OPEN;
    }

    /** Marks the ring closed: senders that look stop writing to it. */
    void close() {
        INT.setVolatile(map, OFF_STATE, STATE_CLOSED);
    }

    /** The owner's pid, as the header says. */
    long ownerPid() {
        return map.get(ValueLayout.JAVA_LONG, OFF_PID);
    }

    /** The number of the owner's doorbell eventfd in the owner's process, or -1 when it has none. */
    int doorbellFd() {
        return map.get(ValueLayout.JAVA_INT, OFF_BELL) - 1;
    }

    /** The stamp of the owner's start ({@link Processes#start}), as the header says. */
    long ownerStart() {
        return map.get(ValueLayout.JAVA_LONG, OFF_START);
    }

    /** Data bytes of the ring. */
    public int capacity() {
        return capacity;
    }

    // ------------------------------------------------------------------------------------------------ senders

    /**
     * Claims room for a record of {@code dataLength} bytes and writes its header, in progress.
     *
     * @return the offset of the record's data in the mapping, or -1 when the ring has no room (the receiver is
     *         behind, or gone): the datagram is lost, as a full socket buffer would lose it
     */
    private long claim(int dataLength, int segment, int srcIp, int srcPort, int flags) {
        int required = align(HEADER + dataLength);
        long tail;
        int padding;
        while (true) {
            tail = (long) LONG.getVolatile(map, OFF_TAIL);
            long head = (long) LONG.getVolatile(map, OFF_HEAD);
            int toEnd = capacity - (int) (tail & mask);
            padding = required > toEnd ? toEnd : 0;
            if (tail + padding + required - head > capacity) {
                return -1;
            }
            if (LONG.compareAndSet(map, OFF_TAIL, tail, tail + padding + required)) {
                break;
            }
        }
        long at = DATA + (tail & mask);
        if (padding > 0) {
            map.set(ValueLayout.JAVA_INT, at + H_DATA, PADDING);
            INT.setRelease(map, at, padding);
            at = DATA;
        }
        map.set(ValueLayout.JAVA_INT, at, -required);
        map.set(ValueLayout.JAVA_INT, at + H_DATA, dataLength);
        map.set(ValueLayout.JAVA_INT, at + H_SEGMENT, segment);
        map.set(ValueLayout.JAVA_INT, at + H_IP, srcIp);
        map.set(ValueLayout.JAVA_INT, at + H_PORT, srcPort);
        map.set(ValueLayout.JAVA_INT, at + H_FLAGS, flags);
        return at + HEADER;
    }

    /** Commits the record whose data starts at {@code data}: the receiver may read it from now on. */
    private void commit(long data) {
        long at = data - HEADER;
        int required = -map.get(ValueLayout.JAVA_INT, at);
        INT.setVolatile(map, at, required); // volatile: ordered before the sleepers check that follows
    }

    /**
     * Writes one record gathered from {@code count} pieces at native addresses of {@code all} (a segment over all
     * native memory), {@code total} bytes in all, with {@code flags} ({@link #FLAG_NO_ICRC}), and commits it.
     *
     * @return false when the ring has no room
     */
    boolean offer(int srcIp, int srcPort, int segment, MemorySegment all, long[] addresses, int[] lengths, int count,
                  int total, int flags) {
        if (total > MAX_DATA) {
            throw new IllegalArgumentException("a record of " + total + " bytes is over " + MAX_DATA);
        }
        long at = claim(total, segment, srcIp, srcPort, flags);
        if (at < 0) {
            return false;
        }
        long to = at;
        for (int i = 0; i < count; i++) {
            MemorySegment.copy(all, addresses[i], map, to, lengths[i]);
            to += lengths[i];
        }
        commit(at);
        return true;
    }

    /**
     * Writes one record of {@code length} bytes from {@code from} (a segment over a whole buffer) at
     * {@code offset}, a run of packets of {@code segment} bytes (0: one packet), and commits it.
     *
     * @return false when the ring has no room
     */
    boolean offer(int srcIp, int srcPort, int segment, MemorySegment from, long offset, int length) {
        if (length > MAX_DATA) {
            throw new IllegalArgumentException("a record of " + length + " bytes is over " + MAX_DATA);
        }
        long at = claim(length, segment, srcIp, srcPort, 0);
        if (at < 0) {
            return false;
        }
        MemorySegment.copy(from, offset, map, at, length);
        commit(at);
        return true;
    }

    /**
     * After a commit: whether a receiver thread waits on its socket and no doorbell is on its way; true claims the
     * doorbell, and the caller sends it (an empty datagram to the receiver's port). The claim ends when a waiter
     * comes back ({@link #awake}) or another thread of the receiver takes the doorbell off the socket
     * ({@link #doorbellTaken}).
     */
    boolean claimDoorbell() {
        return (int) INT.getVolatile(map, OFF_SLEEPERS) > 0 && (int) INT.getVolatile(map, OFF_YIELDERS) == 0
                && (int) INT.getVolatile(map, OFF_RUNG) == 0 && INT.compareAndSet(map, OFF_RUNG, 0, 1);
    }

    /** A receiver thread that polls yields its core for a moment: senders ring no sleeper meanwhile. */
    void yieldStarted() {
        INT.getAndAdd(map, OFF_YIELDERS, 1);
    }

    /**
     * The yield of {@link #yieldStarted} ended: returns whether a record waits (the returning thread takes it in; a
     * record committed after this look finds no yielder, and its sender rings as usual).
     */
    boolean yieldEnded() {
        INT.getAndAdd(map, OFF_YIELDERS, -1); // a full fence: the look below follows it
        return ready();
    }

    /**
     * A receive that was not waiting took a doorbell off the socket (a poller's pass beside a waiting thread): the
     * doorbell may not have ended the wait it was for. Ends the claim and says whether a thread still waits, which
     * the caller then wakes itself: a sender, seeing the claim, would not ring again, and the records committed
     * since would wait out the sleeper's whole wait (up to 64 ms: the default ib_write_bw lost two thirds of its
     * throughput to ACK timeouts that way).
     */
    boolean doorbellTaken() {
        INT.setVolatile(map, OFF_RUNG, 0);
        return (int) INT.getVolatile(map, OFF_SLEEPERS) > 0;
    }

    /**
     * Whether a doorbell is on its way to a thread waiting on the receiver's socket. A receive that does not wait
     * then leaves the socket alone until the waiter is back, so the doorbell ends the wait it was rung for: taken by
     * the poller, it had to be replaced ({@link #doorbellTaken}), and while the woken thread waited for a core each
     * later commit rang again, a doorbell and a system call each side per packet (ib_send_lat's 2-byte iterations took
     * 13 - 15 us instead of 3 for stretches of a run).
     */
    boolean doorbellOnItsWay() {
        return (int) INT.getVolatile(map, OFF_RUNG) != 0 && (int) INT.getVolatile(map, OFF_SLEEPERS) > 0;
    }

    // ------------------------------------------------------------------------------------------------ receiver

    /** Whether a committed record (or padding) waits at the head. Safe from any thread. */
    public boolean ready() {
        long h = (long) LONG.getVolatile(map, OFF_HEAD);
        return (int) INT.getVolatile(map, DATA + (h & mask)) > 0;
    }

    /**
     * A receiver thread is about to wait on its socket: senders ring from now on. Returns whether a record is
     * already waiting, in which case the caller must not wait (and calls {@link #awake} all the same).
     */
    boolean sleeping() {
        INT.getAndAdd(map, OFF_SLEEPERS, 1);
        return ready();
    }

    /** How many receiver threads wait on the socket now ({@link #sleeping}). */
    int sleepers() {
        return (int) INT.getVolatile(map, OFF_SLEEPERS);
    }

    /** The waiting receiver thread is back ({@link #sleeping}): the next commit rings again. */
    void awake() {
        INT.getAndAdd(map, OFF_SLEEPERS, -1);
        INT.setVolatile(map, OFF_RUNG, 0);
    }

    /**
     * Takes the record at the head into {@code dst} from its start (room for {@link #MAX_DATA} bytes), zeroes its
     * bytes in the ring and moves the head past it; padding is skipped on the way. {@code clock} is read only for a
     * record still being written (one left half-written for {@link #STUCK_NS} is skipped).
     *
     * @return the record's length, or -1 when none is ready; see {@link #lastSegment}, {@link #lastIp},
     *         {@link #lastPort}
     */
    int poll(MemorySegment dst, LongSupplier clock) {
        while (true) {
            long at = DATA + (head & mask);
            int length = (int) INT.getVolatile(map, at);
            if (length == 0) {
                return -1;
            }
            if (length < 0) { // being written; a sender that died while writing it would block the ring for good
                long nowNs = clock.getAsLong(); // read only here: an empty ring's poll reads no clock
                if (stuckHead != head) {
                    stuckHead = head;
                    stuckSinceNs = nowNs;
                    return -1;
                }
                if (nowNs - stuckSinceNs < STUCK_NS) {
                    return -1;
                }
                if (-length > align(HEADER + MAX_DATA) || (-length & (HEADER - 1)) != 0) {
                    throw new IllegalStateException("corrupt ring record at " + head + ": length " + length);
                }
                MemorySegment.copy(ZEROS, 0, map, at, -length);
                advance(-length);
                continue;
            }
            int data = map.get(ValueLayout.JAVA_INT, at + H_DATA);
            if (data == PADDING) {
                if (length > capacity - (int) (head & mask) || (length & (HEADER - 1)) != 0) {
                    throw new IllegalStateException("corrupt ring padding at " + head + ": length " + length);
                }
                MemorySegment.copy(ZEROS, 0, map, at, HEADER); // the rest of a padding was never written
                advance(length);
                continue;
            }
            if (data < 0 || data > MAX_DATA || align(HEADER + data) != length) {
                throw new IllegalStateException("corrupt ring record at " + head + ": length " + length + ", data "
                        + data);
            }
            lastSegment = map.get(ValueLayout.JAVA_INT, at + H_SEGMENT);
            lastIp = map.get(ValueLayout.JAVA_INT, at + H_IP);
            lastPort = map.get(ValueLayout.JAVA_INT, at + H_PORT);
            lastFlags = map.get(ValueLayout.JAVA_INT, at + H_FLAGS);
            MemorySegment.copy(map, at + HEADER, dst, 0, data);
            MemorySegment.copy(ZEROS, 0, map, at, length);
            advance(length);
            return data;
        }
    }

    private void advance(int length) {
        head += length;
        LONG.setRelease(map, OFF_HEAD, head);
    }

    /** The GSO segment size of the record {@link #poll} took last (0: one packet). */
    int lastSegment() {
        return lastSegment;
    }

    /** The sender's IPv4 address of the record {@link #poll} took last. */
    int lastIp() {
        return lastIp;
    }

    /** The sender's UDP source port of the record {@link #poll} took last. */
    int lastPort() {
        return lastPort;
    }

    /** The flags of the record {@link #poll} took last ({@link #FLAG_NO_ICRC}). */
    int lastFlags() {
        return lastFlags;
    }

    /** The owner says it takes records whose ICRCs were left out (once, after {@link #format}). */
    void takeRecordsWithoutIcrc() {
        INT.getAndBitwiseOrRelease(map, OFF_FEATURES, FEATURE_NO_ICRC);
    }

    /** Whether the owner takes records whose ICRCs were left out. */
    boolean takesRecordsWithoutIcrc() {
        return ((int) INT.getAcquire(map, OFF_FEATURES) & FEATURE_NO_ICRC) != 0;
    }

    private static int align(int n) {
        return (n + HEADER - 1) & -HEADER;
    }

    /** A segment over a whole direct buffer, from index 0 to its capacity. */
    static MemorySegment wholeBuffer(ByteBuffer direct) {
        return MemorySegment.ofBuffer(direct.duplicate().clear());
    }
}
