package io.jrdma.soft.link;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link UdpLink} that damages what it sends, as a lossy network would: drops (at random, or by PSN, opcode, or
 * ACKs only), duplicates, reorders, delays and corrupts packets as its {@link FaultConfig} says. Receiving is
 * untouched, so a fault configured on one device affects the packets that device sends (requests and responses
 * alike).
 *
 * <p>Decisions come from a {@link SplittableRandom} seeded from the configuration and are drawn in a fixed order
 * per packet, so the same traffic under the same seed meets the same faults. Held packets (reorder, delay) are
 * copied into buffers preallocated at construction ({@link FaultConfig#hold()} of them); when all are in use a
 * packet that would be held is sent at once instead. Nothing is allocated per packet.
 *
 * <p>A reordered packet goes out after 1..window later packets, or after as many engine passes (each pass ends
 * with a receive that finds the socket empty), or when the engine goes idle ({@link #await}), whichever comes
 * first; a delayed packet goes out once the device clock has passed its release time, checked on every send and
 * every empty receive, and the engine's idle wait is cut short for it. A corrupted packet has one bit flipped
 * after the ICRC was computed, anywhere except BTH byte 4 (FECN/BECN and reserved bits, which the ICRC masks and
 * no receiver reads), so every corruption is detectable.
 *
 * <p>Not thread-safe, like {@link UdpLink}: the engine uses it from one thread at a time.
 */
public final class FaultyLink extends UdpLink {

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

    private static final int ACKNOWLEDGE = 0x11;
    private static final int ATOMIC_ACKNOWLEDGE = 0x12;
    private static final int BTH_LENGTH = 12;
    private static final int BTH_FECN_BYTE = 4;
    private static final Listener NO_LISTENER = f -> { };

    private final FaultConfig config;
    private final SplittableRandom random;
    private final LongSupplier clock;
    private final long[] counts = new long[Fault.values().length];
    private Listener listener = NO_LISTENER;

    // drop_psn and drop_opcode: how often each entry has matched
    private final int[] dropPsns;
    private final int[] psnHits;
    private final int[] dropOpcodes;
    private final int[] opcodeHits;

    // held packets: slot buffers and what each needs to go out again
    private final ByteBuffer[] slots;
    private final int[] slotSourcePort;
    private final InetSocketAddress[] slotTo;
    private final boolean[] slotTimed;
    private final long[] slotDueNs;
    private final long[] slotDueSeq;
    private final long[] slotDueTick;
    private final int[] free;
    private int freeCount;
    private final int[] held;
    private int heldCount;
    private int timedCount;

    private long sent;  // packets the engine has handed to send()
    private long ticks; // receives that found the socket empty (about one per engine pass)

    /**
     * Binds {@code address:port} as {@link UdpLink} does.
     *
     * @param config    the faults (normally {@link FaultConfig#enabled()})
     * @param clock     the device clock in nanoseconds (for delays)
     * @param maxPacket the largest packet the engine sends, the size of each hold buffer
     */
    public FaultyLink(InetAddress address, int port, FaultConfig config, LongSupplier clock, int maxPacket) {
        super(address, port, false); // NIO: it inspects, holds and damages one packet per send
        this.config = Objects.requireNonNull(config);
        this.clock = Objects.requireNonNull(clock);
        this.random = new SplittableRandom(config.seed());
        this.dropPsns = config.dropPsns();
        this.psnHits = new int[dropPsns.length];
        this.dropOpcodes = config.dropOpcodes();
        this.opcodeHits = new int[dropOpcodes.length];
        int n = config.reorder() > 0 || config.delay() > 0 ? config.hold() : 0;
        ByteBuffer area = ByteBuffer.allocateDirect(Math.max(1, n * maxPacket));
        slots = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            slots[i] = area.slice(i * maxPacket, maxPacket);
        }
        slotSourcePort = new int[n];
        slotTo = new InetSocketAddress[n];
        slotTimed = new boolean[n];
        slotDueNs = new long[n];
        slotDueSeq = new long[n];
        slotDueTick = new long[n];
        free = new int[n];
        held = new int[n];
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

    /** How many times {@code fault} was injected (read on the engine thread, or after it stopped). */
    public long count(Fault fault) {
        return counts[fault.ordinal()];
    }

    /** Packets held back right now. */
    public int held() {
        return heldCount;
    }

    @Override
    public boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to) {
        sent++;
        int start = buf.position();
        int len = buf.remaining();
        boolean ok = true;
        if (dropped(buf, start, len)) {
            fault(Fault.DROPPED);
        } else {
            int flipAt = -1;
            byte original = 0;
            if (config.corrupt() > 0 && random.nextDouble() < config.corrupt() && len > 0) {
                flipAt = start + corruptOffset(len);
                original = buf.get(flipAt);
                buf.put(flipAt, (byte) (original ^ (1 << random.nextInt(8))));
                fault(Fault.CORRUPTED);
            }
            boolean twice = config.duplicate() > 0 && random.nextDouble() < config.duplicate();
            if (!hold(sourcePort, buf, start, len, to)) {
                ok = super.send(sourcePort, buf, to);
            }
            if (twice) {
                buf.position(start);
                super.send(sourcePort, buf, to);
                fault(Fault.DUPLICATED);
            }
            if (flipAt >= 0) {
                buf.put(flipAt, original); // the engine's buffer is its own again
            }
        }
        release(false);
        return ok;
    }

    /** A byte offset in {@code [0, len)} other than the BTH's FECN/BECN byte, which the ICRC does not cover. */
    private int corruptOffset(int len) {
        if (len <= BTH_FECN_BYTE + 1) {
            return random.nextInt(len);
        }
        int at = random.nextInt(len - 1);
        return at >= BTH_FECN_BYTE ? at + 1 : at;
    }

    private boolean dropped(ByteBuffer buf, int start, int len) {
        if (len >= BTH_LENGTH) {
            int opcode = buf.get(start) & 0xFF;
            int psn = (buf.get(start + 9) & 0xFF) << 16 | (buf.get(start + 10) & 0xFF) << 8
                    | (buf.get(start + 11) & 0xFF);
            if (match(dropPsns, psnHits, psn) || match(dropOpcodes, opcodeHits, opcode)) {
                return true;
            }
            if (config.dropAcks() > 0 && (opcode == ACKNOWLEDGE || opcode == ATOMIC_ACKNOWLEDGE)
                    && random.nextDouble() < config.dropAcks()) {
                return true;
            }
        }
        return config.drop() > 0 && random.nextDouble() < config.drop();
    }

    private boolean match(int[] values, int[] hits, int v) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == v && hits[i] < config.times()) {
                hits[i]++;
                return true;
            }
        }
        return false;
    }

    /** Copies the packet into a free slot if reorder or delay picks it; false to send it now. */
    private boolean hold(int sourcePort, ByteBuffer buf, int start, int len, InetSocketAddress to) {
        boolean timed;
        int behind = 0;
        if (config.reorder() > 0 && random.nextDouble() < config.reorder()) {
            timed = false;
            behind = 1 + random.nextInt(config.reorderWindow());
        } else if (config.delay() > 0 && random.nextDouble() < config.delay()) {
            timed = true;
        } else {
            return false;
        }
        if (freeCount == 0) {
            return false; // every hold buffer is in use: this one goes out on time
        }
        int s = free[--freeCount];
        ByteBuffer slot = slots[s];
        slot.clear();
        slot.put(0, buf, start, len);
        slot.limit(len);
        slotSourcePort[s] = sourcePort;
        slotTo[s] = to;
        slotTimed[s] = timed;
        if (timed) {
            slotDueNs[s] = clock.getAsLong() + config.delayNs();
            timedCount++;
            fault(Fault.DELAYED);
        } else {
            slotDueSeq[s] = sent + behind;
            slotDueTick[s] = ticks + behind;
            fault(Fault.REORDERED);
        }
        held[heldCount++] = s;
        return true;
    }

    /** Sends the held packets that are due; {@code idle}: every reordered one is (nothing will overtake it). */
    private void release(boolean idle) {
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
            ByteBuffer slot = slots[s];
            slot.position(0);
            super.send(slotSourcePort[s], slot, slotTo[s]);
            slotTo[s] = null;
            if (slotTimed[s]) {
                timedCount--;
            }
            held[i] = held[--heldCount];
            free[freeCount++] = s;
        }
    }

    @Override
    public int receive(ByteBuffer buf) {
        int n = super.receive(buf);
        if (n < 0) {
            ticks++;
            release(false);
        }
        return n;
    }

    /** Sends what is due, then waits, but not past the release time of a delayed packet. */
    @Override
    public void await(long timeoutMs) {
        release(true);
        long wait = timeoutMs;
        if (timedCount > 0) {
            long now = clock.getAsLong();
            long soonest = Long.MAX_VALUE;
            for (int i = 0; i < heldCount; i++) {
                int s = held[i];
                if (slotTimed[s]) {
                    soonest = Math.min(soonest, slotDueNs[s] - now);
                }
            }
            wait = Math.min(wait, TimeUnit.NANOSECONDS.toMillis(Math.max(0, soonest))); // < 1 ms: do not sleep
        }
        super.await(wait);
    }

    private void fault(Fault f) {
        counts[f.ordinal()]++;
        listener.onFault(f);
    }
}
