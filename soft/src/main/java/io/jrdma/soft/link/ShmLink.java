package io.jrdma.soft.link;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The shared-memory path between devices of one host: a {@link Link} over a native UDP link that hands a datagram
 * for a device of this host (of this network namespace) to that device's {@link ShmRing} instead of the kernel's
 * UDP stack, and takes in the datagrams other devices of the host put in its own ring beside those its socket
 * receives. The packets are byte for byte the ones the socket would carry (same headers, same ICRC, the same runs of
 * packets a GSO send makes); only the kernel's per-datagram work and one copy are gone. Peers elsewhere, kernel rxe
 * and RoCE NICs, are reached over UDP as before.
 *
 * <p>A device makes its ring when its link opens ({@link #over}); a sender looks for the ring of an address the
 * first time it sends there and again every second while there is none, and drops it when its owner closes it. A
 * receiver thread about to sleep on the socket says so in the ring; a sender that commits a record then rings it so
 * the sleeper wakes: it writes to the receiver's doorbell eventfd, which every wait of the receiver watches
 * ({@link PeerDoorbell}), or where it could not copy that, sends the socket one empty datagram from its own port
 * (see {@link #isWakeUp}). A full
 * ring loses the datagram as a full socket buffer would (the sender's {@code send_err}; retransmission recovers).
 * Turned off with {@code jrdma.shm=off} ({@code JRDMA_SHM=off}).
 *
 * <p>Where both devices allow it, the engine's batches (a packet or a GSO run) go without ICRCs
 * ({@link #icrcOptional}, {@link ShmRing#FLAG_NO_ICRC}): the sender leaves them zero and the receiver does not check
 * them. A device made with {@code omitIcrc} false (the setting {@code jrdma.shm.icrc=on}) computes and checks them on
 * this path too, and says so in its ring.
 *
 * <p>Not thread-safe, as {@link Link}: one engine thread sends and receives; {@link #awaitReadable},
 * {@link #wakeup} and {@link #wakeReceive} may come from other threads. Nothing is allocated per datagram.
 */
public final class ShmLink extends ForwardingLink {

    /** What the device counts of this path. */
    public enum Event {
        /** A datagram put into a peer's ring. */
        SENT,
        /** A datagram taken from this device's ring. */
        RECEIVED,
        /** A doorbell sent to a peer asleep on its socket. */
        DOORBELL,
        /** A datagram a peer's full ring refused (lost, as a full socket buffer loses one). */
        RING_FULL
    }

    /** Told of each {@link Event}. */
    @FunctionalInterface
    public interface Listener {
        void on(Event event);
    }

    /** Data bytes of a device's ring: as much as its UDP receive buffer. */
    static final int CAPACITY = NioLink.SOCKET_BUFFER_BYTES;
    /** Peers whose rings a link keeps mapped. */
    static final int PEERS = 16;
    /** How long a sender trusts that an address has no ring before it looks again. */
    static final long RECHECK_NS = 1_000_000_000L;
    /**
     * While the ring is active, a receive looks at the socket only once in this many calls (a batch from a ready ring
     * takes the socket's datagrams first then, so a busy ring does not starve them)...
     */
    private static final int SOCKET_TURN = 8;
    /**
     * ... and each look that finds the socket empty doubles that, up to this many; a look that finds a datagram goes
     * back to {@link #SOCKET_TURN}. A look is a system call: with the peers on this host, every eighth call of a busy
     * poll was one, a quarter of a 2-byte ping-pong's CPU on a virtual machine whose system calls trap to the
     * hypervisor (2026-12-01). A datagram from a peer on another host, while one on this host keeps the ring busy,
     * waits at most this many calls (a few microseconds each), and once it has come the looks are frequent again.
     */
    private static final int SOCKET_TURN_MAX = 64;
    /** The ring counts as active for this many receive calls after it last gave a record. */
    private static final int RING_ACTIVE_CALLS = 1024;
    /**
     * A wait on the socket ended: the next receive that finds the ring empty reads the socket, where the doorbell that
     * ended the wait is; left there, it would end every following wait at once (a woken engine thread went round
     * about eight times, a system call each, before it could sleep). A hint other threads write without
     * synchronisation: a lost one costs those turns, nothing else.
     */
    private boolean socketAfterWait;

    private static final System.Logger LOG = System.getLogger(ShmLink.class.getName());
    private static final Listener NO_LISTENER = e -> { };
    /** The ring's clock, read only for a record being written (an empty ring's poll reads none). */
    private static final LongSupplier CLOCK = System::nanoTime;

    private final Path dir;
    private final int localIp;
    private final MemorySegment all = NativeUdp.allNativeMemory();
    private ShmRingFile own;
    private ShmRing ring;
    private volatile Listener listener = NO_LISTENER;

    // the rings of peers: linear search, the last one used first
    private final int[] peerIp = new int[PEERS];
    private final int[] peerPort = new int[PEERS];
    private final ShmRingFile[] peerFile = new ShmRingFile[PEERS];
    private final long[] peerNextCheckNs = new long[PEERS];
    private final int[] peerBell = new int[PEERS]; // the peer's doorbell (PeerDoorbell), or -1: over UDP
    private int peerCount;
    private int lastPeer = -1;
    private int nextEvicted;
    private InetSocketAddress lastTo;
    private int lastToIp;
    private ByteBuffer lastSent;
    private MemorySegment lastSentSegment;
    private static final long[] NO_ADDRESSES = {};
    private static final int[] NO_LENGTHS = {};

    // the last batch: from the ring, or the socket's (inner's)
    private boolean fromRing;
    /** Calls until the next look at the socket while the ring is active, and the current spacing of the looks. */
    private int socketIn = SOCKET_TURN;
    private int socketTurn = SOCKET_TURN;
    private int ringIdleCalls = RING_ACTIVE_CALLS;
    private final int[] ringLength = new int[RX_BATCH];
    private final int[] ringSegment = new int[RX_BATCH];
    private final int[] ringIp = new int[RX_BATCH];
    private final int[] ringPort = new int[RX_BATCH];
    private final int[] ringFlags = new int[RX_BATCH];
    private final boolean omitIcrc;
    private ByteBuffer[] segmentsOf;
    private final MemorySegment[] segments = new MemorySegment[RX_BATCH];

    private ShmLink(Link inner, Path dir, ShmRingFile own, boolean omitIcrc) {
        super(inner);
        this.dir = dir;
        this.localIp = inner.localIp();
        this.omitIcrc = omitIcrc;
        use(own);
        Arrays.fill(peerBell, -1);
    }

    /** Makes {@code f} this device's ring, which says whether it takes records without ICRCs. */
    private void use(ShmRingFile f) {
        own = f;
        ring = f.ring();
        if (omitIcrc) {
            ring.takeRecordsWithoutIcrc();
        }
    }

    /**
     * {@code inner} with the shared-memory path, its ring in {@code dir}; {@code inner} itself when it is not a
     * native link or the ring cannot be made (logged): the device then uses UDP alone. With {@code omitIcrc}, batches
     * to devices that take them without ICRCs go without, and this device's ring takes them so.
     */
    public static Link over(Link inner, Path dir, boolean omitIcrc) {
        if (!inner.isNative()) {
            return inner;
        }
        try {
            return new ShmLink(inner, dir, ShmRingFile.create(dir, inner.localIp(), inner.port(), CAPACITY,
                    inner.doorbellFd()), omitIcrc);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "jrdma: " + inner + " has no shared-memory path to devices of this"
                    + " host, only UDP: cannot make its ring in " + dir + " (" + e + ")");
            return inner;
        }
    }

    /** Sets who is told of each {@link Event} (the device's counters). */
    public void listener(Listener l) {
        this.listener = l == null ? NO_LISTENER : l;
    }

    /** This device's ring file. */
    public Path ringPath() {
        return own.path();
    }

    // ------------------------------------------------------------------------------------------------ sending

    @Override
    public void prepare(int destIp, int destPort) {
        peer(destIp, destPort);
    }

    @Override
    public boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to) {
        if (to != lastTo) {
            lastToIp = Link.ipv4(to.getAddress());
            lastTo = to;
        }
        int p = peer(lastToIp, to.getPort());
        if (p < 0) {
            return inner.send(sourcePort, buf, to);
        }
        if (buf != lastSent) {
            lastSentSegment = ShmRing.wholeBuffer(buf);
            lastSent = buf;
        }
        return sent(p, peerFile[p].ring().offer(localIp, sourcePort, 0, lastSentSegment, buf.position(),
                buf.remaining()));
    }

    @Override
    public boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths, int count,
                                int segment) {
        return sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment, 0);
    }

    @Override
    public boolean icrcOptional(int destIp, int destPort) {
        int p = omitIcrc ? peer(destIp, destPort) : -1;
        return p >= 0 && peerFile[p].ring().takesRecordsWithoutIcrc();
    }

    @Override
    public boolean sendSegmentsWithoutIcrc(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths,
                                           int count, int segment) {
        return sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment, ShmRing.FLAG_NO_ICRC);
    }

    private boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths, int count,
                                 int segment, int flags) {
        int p = peer(destIp, destPort);
        if (p < 0) { // a ring that closed since icrcOptional: what has no ICRC is dropped there, as a corrupt packet
            return inner.sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment);
        }
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += lengths[i];
        }
        return sent(p, peerFile[p].ring().offer(localIp, sourcePort, segment, all, addresses, lengths, count, total,
                flags));
    }

    /** After an offer to peer {@code p}: counts it and rings a peer asleep on its socket. */
    private boolean sent(int p, boolean taken) {
        Listener l = listener;
        if (!taken) {
            l.on(Event.RING_FULL);
            return false;
        }
        l.on(Event.SENT);
        if (peerFile[p].ring().claimDoorbell()) {
            if (peerBell[p] < 0 || !PeerDoorbell.ring(peerBell[p])) { // an empty datagram: no pieces
                inner.sendSegments(inner.port(), peerIp[p], peerPort[p], NO_ADDRESSES, NO_LENGTHS, 0, 0);
            }
            l.on(Event.DOORBELL);
        }
        return true;
    }

    /** The peer entry of {@code ip:port} with a ring to use, or -1 when datagrams for it go over UDP. */
    private int peer(int ip, int port) {
        int p = lastPeer;
        if (p < 0 || peerIp[p] != ip || peerPort[p] != port) {
            p = find(ip, port);
            lastPeer = p;
        }
        ShmRingFile f = peerFile[p];
        if (f != null) {
            if (!f.ring().closed()) {
                return p;
            }
            forget(p); // its device closed: maybe another one has the address now
            peerNextCheckNs[p] = System.nanoTime();
        }
        long now = System.nanoTime();
        if (now - peerNextCheckNs[p] < 0) {
            return -1;
        }
        peerNextCheckNs[p] = now + RECHECK_NS;
        peerFile[p] = ShmRingFile.open(dir, ip, port);
        if (peerFile[p] == null) {
            return -1;
        }
        peerBell[p] = PeerDoorbell.open(peerFile[p].ring());
        return p;
    }

    /** Unmaps the ring of peer entry {@code p} and closes its doorbell. */
    private void forget(int p) {
        if (peerFile[p] != null) {
            peerFile[p].close();
            peerFile[p] = null;
        }
        PeerDoorbell.close(peerBell[p]);
        peerBell[p] = -1;
    }

    /** The entry of {@code ip:port}, made (in place of the next one in turn when all are taken) if missing. */
    private int find(int ip, int port) {
        for (int i = 0; i < peerCount; i++) {
            if (peerIp[i] == ip && peerPort[i] == port) {
                return i;
            }
        }
        int p;
        if (peerCount < PEERS) {
            p = peerCount++;
        } else {
            p = nextEvicted;
            nextEvicted = (nextEvicted + 1) % PEERS;
            forget(p);
        }
        peerIp[p] = ip;
        peerPort[p] = port;
        peerNextCheckNs[p] = System.nanoTime();
        return p;
    }

    // ------------------------------------------------------------------------------------------------ receiving

    @Override
    public int receiveBatch(ByteBuffer[] bufs, int max) {
        boolean ready = ring.ready();
        if (ready && --socketIn > 0) {
            int r = takeRing(bufs, max);
            if (r > 0) {
                return r;
            }
        }
        fromRing = false;
        if (!ready && !socketAfterWait && ringIdleCalls < RING_ACTIVE_CALLS) {
            ringIdleCalls++;
            if (--socketIn > 0) {
                return 0; // the peers are on this host: an empty receive call each time would cost more than the pass
            }
        }
        if (ring.doorbellOnItsWay()) {
            return ready ? takeRing(bufs, max) : 0; // the socket's datagrams are the woken thread's to take
        }
        socketAfterWait = false;
        int s = inner.receiveBatch(bufs, max);
        socketTurn = s > 0 ? SOCKET_TURN : Math.min(SOCKET_TURN_MAX, 2 * socketTurn);
        socketIn = socketTurn;
        if (s > 0) {
            tookDoorbells(s);
            return s;
        }
        return ring.ready() ? takeRing(bufs, max) : 0;
    }

    /**
     * After a receive that did not wait took {@code s} datagrams off the socket: a doorbell among them (a peer's, or
     * this device's own when it sends to itself) may have been meant for a thread of this device asleep on the
     * socket, which then sleeps on while the senders ring no more ({@link ShmRing#doorbellTaken}); this wakes it.
     * Rare: a receive leaves the socket alone while a doorbell is on its way ({@link ShmRing#doorbellOnItsWay}), so
     * only one that looked just before the doorbell was claimed takes it.
     */
    private void tookDoorbells(int s) {
        for (int i = 0; i < s; i++) {
            if (inner.batchLength(i) == 0 && inner.batchSenderPort(i) == inner.port()) {
                if (ring.doorbellTaken()) {
                    inner.wakeReceive();
                }
                return;
            }
        }
    }

    @Override
    public int receiveBatchWaiting(ByteBuffer[] bufs, int max) {
        if (ring.ready()) {
            return receiveBatch(bufs, max);
        }
        if (ring.sleeping()) { // a record came after all: no wait
            ring.awake();
            return receiveBatch(bufs, max);
        }
        int s;
        try {
            fromRing = false;
            s = inner.receiveBatchWaiting(bufs, max);
        } finally {
            ring.awake();
        }
        return s == 0 && ring.ready() ? takeRing(bufs, max) : s;
    }

    /** Takes up to a batch of records from this device's ring; 0 when none is ready. */
    private int takeRing(ByteBuffer[] bufs, int max) {
        fromRing = true;
        if (bufs != segmentsOf) {
            for (int i = 0; i < Math.min(bufs.length, RX_BATCH); i++) {
                segments[i] = ShmRing.wholeBuffer(bufs[i]);
            }
            segmentsOf = bufs;
        }
        int want = Link.batchCount(bufs, max);
        Listener l = listener;
        int r = 0;
        try {
            while (r < want) {
                int length = ring.poll(segments[r], CLOCK);
                if (length < 0) {
                    break;
                }
                ringLength[r] = length;
                ringSegment[r] = ring.lastSegment();
                ringIp[r] = ring.lastIp();
                ringPort[r] = ring.lastPort();
                ringFlags[r] = ring.lastFlags();
                l.on(Event.RECEIVED);
                r++;
            }
        } catch (IllegalStateException e) {
            renew(e); // a corrupt ring: what it held is lost, as on a wire; retransmission recovers
        }
        if (r > 0) {
            ringIdleCalls = 0;
        }
        return r;
    }

    /** Replaces this device's ring with a new one (senders find the old one closed and look again). */
    private void renew(RuntimeException why) {
        LOG.log(System.Logger.Level.WARNING, "jrdma: " + this + " replaces its ring (" + why.getMessage() + ")");
        ShmRingFile old = own;
        old.close();
        try {
            use(ShmRingFile.create(dir, localIp, inner.port(), CAPACITY, inner.doorbellFd()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot replace the ring of " + this + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isWakeUp(int i) {
        // this device's own wake-up, or a doorbell: an empty datagram from a device's socket (its port is ours;
        // RoCE packets come from per-QP source ports), so an empty datagram from elsewhere still counts as dropped
        return !fromRing && inner.batchLength(i) == 0
                && (inner.isWakeUp(i) || inner.batchSenderPort(i) == inner.port());
    }

    @Override
    public int batchLength(int i) {
        return fromRing ? ringLength[i] : inner.batchLength(i);
    }

    @Override
    public int batchSenderIp(int i) {
        return fromRing ? ringIp[i] : inner.batchSenderIp(i);
    }

    @Override
    public int batchSenderPort(int i) {
        return fromRing ? ringPort[i] : inner.batchSenderPort(i);
    }

    @Override
    public int batchSegmentSize(int i) {
        return fromRing ? ringSegment[i] : inner.batchSegmentSize(i);
    }

    @Override
    public boolean batchIcrcOmitted(int i) {
        return fromRing && (ringFlags[i] & ShmRing.FLAG_NO_ICRC) != 0;
    }

    @Override
    public void await(long timeoutMs) {
        if (ring.ready()) {
            return;
        }
        try {
            if (!ring.sleeping()) {
                inner.await(timeoutMs);
                socketAfterWait = true;
            }
        } finally {
            ring.awake();
        }
    }

    @Override
    public void awaitReadable(long timeoutNs) {
        ShmRing r = ring;
        if (r.ready()) {
            return;
        }
        try {
            if (!r.sleeping()) {
                inner.awaitReadable(timeoutNs);
                socketAfterWait = true;
            }
        } finally {
            r.awake();
        }
    }

    @Override
    public void yieldStarted() {
        ring.yieldStarted();
    }

    @Override
    public boolean yieldEnded() {
        return ring.yieldEnded();
    }

    // ------------------------------------------------------------------------------------------------ the rest

    @Override
    public void close() {
        own.close();
        for (int i = 0; i < peerCount; i++) {
            forget(i);
        }
        inner.close();
    }

    @Override
    public String toString() {
        return "ShmLink[" + inner + "]";
    }
}
