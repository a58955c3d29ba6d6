package io.jrdma.soft.link;

import io.jrdma.wire.Icrc;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link Link} decorator that damages what the engine sends through it, as a lossy network would: drops (at
 * random, or by PSN, opcode, or ACKs only), duplicates, reorders, delays and corrupts packets as its
 * {@link FaultConfig} says, over any link ({@link NioLink} or {@link NativeLink}). Receiving is untouched, so a
 * fault configured on one device affects the packets that device sends (requests and responses alike).
 *
 * <p>Decisions come from a {@link SplittableRandom} seeded from the configuration and are drawn in a fixed order
 * per packet, so the same traffic under the same seed meets the same faults. Held packets (reorder, delay) are
 * copied into buffers preallocated at construction ({@link FaultConfig#hold()} of them); when all are in use a
 * packet that would be held is sent at once instead. Nothing is allocated per packet.
 *
 * <p>Over a native link the engine sends GSO batches ({@link #sendSegments}): the batch is copied into a
 * preallocated buffer and each of its packets meets its faults as if sent alone. A batch no fault hits goes to the
 * inner link untouched, as one GSO send. Otherwise its packets go out one per send: each packet's ICRC was written
 * for the IPv4 ID Linux would give it in the batch (its index), so it is checked under that ID (a mismatch is an
 * engine bug, counted in {@link #icrcMismatches()}) and written again for ID 0, the ID of a single send, before
 * any corruption.
 *
 * <p>A reordered packet goes out after 1..window later packets, or after as many engine passes (each pass ends
 * with a receive that finds the socket empty), or when the engine goes idle ({@link #await}, or a waiting receive),
 * whichever comes first; a delayed packet goes out once the device clock has passed its release time, checked on
 * every send and every empty receive, and the engine's idle wait is cut short for it. A corrupted packet has one
 * bit flipped after the ICRC was computed, anywhere except BTH byte 4 (FECN/BECN and reserved bits, which the ICRC
 * masks and no receiver reads), so every corruption is detectable.
 *
 * <p>With a rate ({@link FaultConfig#rate()}) the link is a bottleneck: every packet not held for reordering or delay
 * joins a queue in the hold buffers and leaves, in order, once the bytes before it and its own have had their time
 * at that rate (by the device clock, released as delayed packets are); one that finds every buffer in use is dropped,
 * as a full router queue drops it. A peer that takes packets slower than they are sent (an emulated guest) looks
 * like this: what is in flight waits in a queue, and a long queue outlasts the requester's ACK timeout.
 *
 * <p>Not thread-safe, like every {@link Link}: the engine uses it from one thread at a time.
 */
public final class FaultyLink extends ForwardingLink {

    /** The faults a {@link FaultyLink} injects, each counted once per packet it hits. */
    public enum Fault {
        /** A packet was not sent (random drop, drop_acks, drop_psn or drop_opcode). */
        DROPPED,
        /** A packet was sent twice. */
        DUPLICATED,
        /** A packet was held back behind later ones. */
        REORDERED,
        /** A packet was held for the configured delay. */
        DELAYED,
        /** A packet had one bit flipped. */
        CORRUPTED
    }

    /** Told about every fault injected, on the engine thread. */
    @FunctionalInterface
    public interface Listener {
        /** One fault on one packet. */
        void onFault(Fault fault);
    }

    private static final Listener NO_LISTENER = f -> { };

    private final boolean gso; // the inner link takes sendSegments: held packets go out through it too
    private final FaultConfig config;
    private final LongSupplier clock;
    private final long[] counts = new long[Fault.values().length];
    private Listener listener = NO_LISTENER;

    private final FaultDraws draws;

    // a GSO batch gathered from its pieces; single sends from native memory
    private final ByteBuffer gather;
    private final MemorySegment gatherSegment;
    private final MemorySegment everything; // all native memory, to copy pieces from their addresses
    private final long gatherAddress;
    private final long[] oneAddress = new long[1];
    private final int[] oneLength = new int[1];
    private final Icrc icrc = new Icrc();
    private InetSocketAddress lastTo;
    private int lastToIp;

    // held packets: slot buffers and what each needs to go out again
    private final ByteBuffer[] slots;
    private final long[] slotAddress;
    private final int[] slotSourcePort;
    private final InetSocketAddress[] slotTo;
    private final int[] slotDestIp;
    private final int[] slotDestPort;
    private final boolean[] slotTimed;
    private final long[] slotDueNs;
    private final long[] slotDueSeq;
    private final long[] slotDueTick;
    private final int[] free;
    private int freeCount;
    private final int[] held;
    private int heldCount;
    private int timedCount;
    // the bottleneck (rate > 0): a ring of slots in the order they leave, each at its slotDueNs
    private final long rate;
    private final int[] queue;
    private int queueHead;
    private int queued;
    private long lastDueNs;

    private long sent;  // packets the engine has handed to send() or sendSegments()
    private long ticks; // receives that found the socket empty (about one per engine pass)
    private long wholeBatches;
    private long splitBatches;
    private long icrcMismatches;

    /**
     * Injects faults into what is sent through {@code inner}, which this link then owns (closes).
     *
     * @param inner     the link the packets go out on ({@link Link#open})
     * @param config    the faults (normally {@link FaultConfig#enabled()})
     * @param clock     the device clock in nanoseconds (for delays)
     * @param maxPacket the largest packet the engine sends, the size of each hold buffer
     */
    public FaultyLink(Link inner, FaultConfig config, LongSupplier clock, int maxPacket) {
        super(inner);
        this.config = Objects.requireNonNull(config);
        this.clock = Objects.requireNonNull(clock);
        int segments = inner.maxSegments();
        gso = segments > 1;
        draws = new FaultDraws(config, segments);
        gather = ByteBuffer.allocateDirect(gso ? Link.maxSegmentsBytes() : 1);
        gatherSegment = MemorySegment.ofBuffer(gather);
        gatherAddress = gatherSegment.address();
        everything = gso ? NativeUdp.allNativeMemory() : MemorySegment.NULL;

        rate = config.rate();
        int n = config.reorder() > 0 || config.delay() > 0 || rate > 0 ? config.hold() : 0;
        ByteBuffer area = ByteBuffer.allocateDirect(Math.max(1, n * maxPacket));
        long areaAddress = MemorySegment.ofBuffer(area).address();
        slots = new ByteBuffer[n];
        slotAddress = new long[n];
        for (int i = 0; i < n; i++) {
            slots[i] = area.slice(i * maxPacket, maxPacket);
            slotAddress[i] = areaAddress + (long) i * maxPacket;
        }
        slotSourcePort = new int[n];
        slotTo = new InetSocketAddress[n];
        slotDestIp = new int[n];
        slotDestPort = new int[n];
        slotTimed = new boolean[n];
        slotDueNs = new long[n];
        slotDueSeq = new long[n];
        slotDueTick = new long[n];
        free = new int[n];
        held = new int[n];
        queue = new int[rate > 0 ? n : 0];
        for (int i = 0; i < n; i++) {
            free[i] = n - 1 - i;
        }
        freeCount = n;
    }

    /** Sets who is told about each fault (the device's counters). */
    public void listener(Listener l) {
        this.listener = l == null ? NO_LISTENER : l;
    }

    /** The configuration. */
    public FaultConfig config() {
        return config;
    }

    /** The link the packets go out on. */
    public Link inner() {
        return inner;
    }

    /** How many times {@code fault} was injected (read on the engine thread, or after it stopped). */
    public long count(Fault fault) {
        return counts[fault.ordinal()];
    }

    /** Packets held back right now (for reordering, delay or the bottleneck). */
    public int held() {
        return heldCount + queued;
    }

    /** GSO batches of more than one packet that no fault hit, passed to the inner link as one send. */
    public long wholeBatches() {
        return wholeBatches;
    }

    /** GSO batches of more than one packet that a fault hit, whose packets went out one per send. */
    public long splitBatches() {
        return splitBatches;
    }

    /**
     * Packets of GSO batches whose ICRC did not verify under the IPv4 ID of their place in the batch, when they
     * were checked before going out alone: always 0 unless the engine wrote a wrong ICRC. Such a packet is sent
     * as it came, so the receiver drops it as it would have.
     */
    public long icrcMismatches() {
        return icrcMismatches;
    }

    // -------------------------------------------------------------------------------------------------- sends

    @Override
    public boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to) {
        sent++;
        int start = buf.position();
        int len = buf.remaining();
        boolean ok = true;
        FaultDraws d = draws;
        d.draw(0, buf, start, len);
        if (d.drop(0)) {
            fault(Fault.DROPPED);
        } else {
            int at = d.flipAt(0) >= 0 ? start + d.flipAt(0) : -1;
            byte original = 0;
            if (at >= 0) {
                original = buf.get(at);
                buf.put(at, (byte) (original ^ d.flipMask(0)));
                fault(Fault.CORRUPTED);
            }
            if (!hold(0, sourcePort, buf, start, len, to, gso ? ipv4Of(to) : 0, to.getPort())) {
                ok = inner.send(sourcePort, buf, to);
            }
            if (d.twice(0)) {
                buf.position(start);
                inner.send(sourcePort, buf, to);
                fault(Fault.DUPLICATED);
            }
            if (at >= 0) {
                buf.put(at, original); // the engine's buffer is its own again
            }
        }
        release(false);
        return ok;
    }

    /**
     * Over a GSO link: the batch as one send when no fault hits any of its packets, else each packet on its own
     * (see the class comment). Over NIO the engine never calls this.
     */
    @Override
    public boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths,
                                int count, int segment) {
        if (!gso) {
            return inner.sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment);
        }
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += lengths[i];
        }
        int size = segment > 0 ? segment : Math.max(1, total);
        int n = (total + size - 1) / size;
        FaultDraws d = draws;
        if (total > gather.capacity() || n > d.capacity()) {
            throw new IllegalArgumentException(total + " bytes in segments of " + segment + ": too many");
        }
        for (int i = 0, at = 0; i < count; at += lengths[i++]) {
            MemorySegment.copy(everything, addresses[i], gatherSegment, at, lengths[i]);
        }
        boolean any = false;
        for (int k = 0; k < n; k++) {
            any |= d.draw(k, gather, k * size, Math.min(size, total - k * size));
        }
        if (!any && rate == 0) {
            sent += n;
            wholeBatches += n > 1 ? 1 : 0;
            boolean ok = inner.sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment);
            release(false);
            return ok;
        }
        splitBatches += n > 1 ? 1 : 0;
        boolean ok = true;
        for (int k = 0; k < n; k++) {
            sent++;
            int off = k * size;
            int len = Math.min(size, total - off);
            if (d.drop(k)) {
                fault(Fault.DROPPED);
            } else {
                reseal(sourcePort, destIp, destPort, k, off, len);
                if (d.flipAt(k) >= 0) {
                    int at = off + d.flipAt(k);
                    gather.put(at, (byte) (gather.get(at) ^ d.flipMask(k)));
                    fault(Fault.CORRUPTED);
                }
                if (!hold(k, sourcePort, gather, off, len, null, destIp, destPort)) {
                    ok &= sendOne(sourcePort, destIp, destPort, gatherAddress + off, len);
                }
                if (d.twice(k)) {
                    sendOne(sourcePort, destIp, destPort, gatherAddress + off, len);
                    fault(Fault.DUPLICATED);
                }
            }
            release(false);
        }
        return ok;
    }

    /**
     * Checks the ICRC of packet {@code k} of a batch (at {@code off} of the gathered copy) under IPv4 ID {@code k},
     * the one Linux gives it in a GSO send, and writes it again for ID 0, the one it gets sent alone.
     */
    private void reseal(int sourcePort, int destIp, int destPort, int k, int off, int len) {
        if (len < Icrc.MIN_IB_LENGTH) {
            return;
        }
        int local = inner.localIp();
        if (!icrc.verifyIpv4(local, destIp, sourcePort, destPort, k, gather, off, len)) {
            icrcMismatches++;
        } else if (k != 0) {
            icrc.writeIpv4(local, destIp, sourcePort, destPort, 0, gather, off, len);
        }
    }

    /** Sends the {@code len} bytes at native address {@code address} as one datagram (IPv4 ID 0). */
    private boolean sendOne(int sourcePort, int destIp, int destPort, long address, int len) {
        oneAddress[0] = address;
        oneLength[0] = len;
        return inner.sendSegments(sourcePort, destIp, destPort, oneAddress, oneLength, 1, 0);
    }

    /** The IPv4 address of {@code to} as an int, remembered for the last destination (no allocation per send). */
    private int ipv4Of(InetSocketAddress to) {
        if (to != lastTo) {
            lastToIp = Link.ipv4(to.getAddress());
            lastTo = to;
        }
        return lastToIp;
    }

    /**
     * Copies the packet into a free slot if the draws for packet {@code k} say reorder or delay; false to send it
     * now. A slot goes out again to {@code to} through {@link Link#send}, or (over a GSO link) to
     * {@code destIp:destPort}.
     */
    private boolean hold(int k, int sourcePort, ByteBuffer buf, int start, int len, InetSocketAddress to, int destIp,
                         int destPort) {
        int kind = draws.hold(k);
        if (kind == FaultDraws.KEEP || freeCount == 0) {
            // not picked, or every hold buffer is in use: this one goes out on time, through the bottleneck if any
            return rate > 0 && enqueue(sourcePort, buf, start, len, to, destIp, destPort);
        }
        boolean timed = kind == FaultDraws.DELAY;
        int s = take(sourcePort, buf, start, len, to, destIp, destPort);
        slotTimed[s] = timed;
        if (timed) {
            slotDueNs[s] = clock.getAsLong() + config.delayNs();
            timedCount++;
            fault(Fault.DELAYED);
        } else {
            slotDueSeq[s] = sent + draws.behind(k);
            slotDueTick[s] = ticks + draws.behind(k);
            fault(Fault.REORDERED);
        }
        held[heldCount++] = s;
        return true;
    }

    /** Queues the packet at the bottleneck, or drops it when every buffer is in use; true either way. */
    private boolean enqueue(int sourcePort, ByteBuffer buf, int start, int len, InetSocketAddress to, int destIp,
                            int destPort) {
        if (freeCount == 0) {
            fault(Fault.DROPPED);
            return true;
        }
        int s = take(sourcePort, buf, start, len, to, destIp, destPort);
        lastDueNs = Math.max(clock.getAsLong(), lastDueNs) + len * 1_000_000_000L / rate;
        slotDueNs[s] = lastDueNs;
        queue[(queueHead + queued++) % queue.length] = s;
        return true;
    }

    /** A free hold buffer with a copy of the packet and where it goes. */
    private int take(int sourcePort, ByteBuffer buf, int start, int len, InetSocketAddress to, int destIp,
                     int destPort) {
        int s = free[--freeCount];
        ByteBuffer slot = slots[s];
        slot.clear();
        slot.put(0, buf, start, len);
        slot.limit(len);
        slotSourcePort[s] = sourcePort;
        slotTo[s] = to;
        slotDestIp[s] = destIp;
        slotDestPort[s] = destPort;
        return s;
    }

    /** Sends the held packets that are due; {@code idle}: every reordered one is (nothing will overtake it). */
    private void release(boolean idle) {
        if (queued > 0) {
            long now = clock.getAsLong();
            while (queued > 0 && now - slotDueNs[queue[queueHead]] >= 0) {
                int s = queue[queueHead];
                queueHead = (queueHead + 1) % queue.length;
                queued--;
                sendHeld(s);
                free[freeCount++] = s;
            }
        }
        if (heldCount == 0) {
            return;
        }
        long now = timedCount > 0 ? clock.getAsLong() : 0;
        for (int i = 0; i < heldCount; ) {
            int s = held[i];
            boolean due = slotTimed[s] ? now - slotDueNs[s] >= 0
                    : idle || sent >= slotDueSeq[s] || ticks >= slotDueTick[s];
            if (!due) {
                i++;
                continue;
            }
            sendHeld(s);
            if (slotTimed[s]) {
                timedCount--;
            }
            held[i] = held[--heldCount];
            free[freeCount++] = s;
        }
    }

    /** Sends the packet in hold buffer {@code s} to where it was going. */
    private void sendHeld(int s) {
        ByteBuffer slot = slots[s];
        if (gso) {
            sendOne(slotSourcePort[s], slotDestIp[s], slotDestPort[s], slotAddress[s], slot.limit());
        } else {
            slot.position(0);
            inner.send(slotSourcePort[s], slot, slotTo[s]);
        }
        slotTo[s] = null;
    }

    private void fault(Fault f) {
        counts[f.ordinal()]++;
        listener.onFault(f);
    }

    // ----------------------------------------------------------------------------------------------- receives

    @Override
    public int receiveBatch(ByteBuffer[] bufs, int max) {
        int got = inner.receiveBatch(bufs, max);
        if (got < Link.batchCount(bufs, max)) {
            passed();
        }
        return got;
    }

    /**
     * 0 while a delayed or queued packet is held: the engine then waits in {@link #await}, which wakes for its
     * release.
     */
    @Override
    public long receiveWaitNs() {
        return timed() ? 0 : inner.receiveWaitNs();
    }

    /** Whether a packet is held for a release by the clock (delayed, or queued at the bottleneck). */
    private boolean timed() {
        return timedCount > 0 || queued > 0;
    }

    /** Sends what is held for reordering first (the engine goes idle), then receives as {@link Link} says. */
    @Override
    public int receiveBatchWaiting(ByteBuffer[] bufs, int max) {
        release(true);
        int got = timed() ? inner.receiveBatch(bufs, max) : inner.receiveBatchWaiting(bufs, max);
        if (got < Link.batchCount(bufs, max)) {
            passed();
        }
        return got;
    }

    /** A receive found the socket empty: an engine pass. */
    private void passed() {
        ticks++;
        release(false);
    }

    /** Sends what is due, then waits, but not past the release time of a delayed packet. */
    @Override
    public void await(long timeoutMs) {
        release(true);
        long wait = timeoutMs;
        if (timed()) {
            long now = clock.getAsLong();
            long soonest = queued > 0 ? slotDueNs[queue[queueHead]] - now : Long.MAX_VALUE;
            for (int i = 0; i < heldCount; i++) {
                int s = held[i];
                if (slotTimed[s]) {
                    soonest = Math.min(soonest, slotDueNs[s] - now);
                }
            }
            wait = Math.min(wait, TimeUnit.NANOSECONDS.toMillis(Math.max(0, soonest))); // < 1 ms: do not sleep
        }
        inner.await(wait);
    }

    /**
     * Waits on the inner link, unless a packet is held for a timed release: the next pass releases it, so the caller
     * returns at once (this runs beside the engine's passes and touches none of their state).
     */
    @Override
    public void awaitReadable(long timeoutNs) {
        if (!timed()) {
            inner.awaitReadable(timeoutNs);
        }
    }

    @Override
    public String toString() {
        return "FaultyLink[" + config + " over " + inner + "]";
    }
}
