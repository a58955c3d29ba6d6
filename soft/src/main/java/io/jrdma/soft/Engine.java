package io.jrdma.soft;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Psn;
import io.jrdma.wire.Transport;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * The soft device's engine: one pass of {@link #doWork} receives a batch of datagrams and dispatches each to its
 * QP's responder or completer, lets every QP's requester and responder transmit, and runs the timers. It runs
 * either on the callers' threads ({@link Threading#INVOKER}) or on its own thread ({@link Threading#DEDICATED}).
 *
 * <p>The lock serialises engine passes with control-path changes (modify, create, destroy, deregister); posting
 * and polling never take it.
 */
final class Engine implements AutoCloseable {

    /** Most datagrams one receive takes in (a batch per system call while the socket has more). */
    private static final int RX_BATCH = 1024;
    /** A pass over many QPs receives again after every this many, so a long pass cannot let the socket overflow. */
    private static final int RX_EVERY_QPS = 64 - 1;
    private static final int SPINS = 200;
    private static final int YIELDS = 100;
    private static final long MAX_SLEEP_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The longest an invoker-mode wait polls the socket before the waiting thread runs a pass again. */
    private static final long MAX_POLL_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A pass's receive: none, one that does not wait, one whose first call waits for a datagram. */
    private static final int RX_NONE = 0;
    private static final int RX_POLL = 1;
    private static final int RX_WAIT = 2;

    final ReentrantLock lock = new ReentrantLock();
    final Link link;
    final Counters counters = new Counters();
    /** Where the requester and responder build the next packet: a slot of {@link #slots}. */
    MemorySegment tx;
    private ByteBuffer txBuffer;
    // one receive buffer per datagram of a batch (Link.receiveBatch), with views at the packets of a GRO run
    private final ByteBuffer[] rxBuffers;
    private final MemorySegment[] rxSegments;
    private final RxViews[] rxViews;
    /**
     * Whether the last receive call found nothing. An invoker-mode pass then asks for one datagram: in a ping-pong
     * the next one comes alone, and a receive asked for more would try for a second, and fail, before it returns
     * (about 0.2 us a call here). When that datagram completed a work request, the pass stops receiving, so the
     * caller's poll returns with the completion at once; otherwise it goes on with whole batches, so a burst (a
     * message's packets, duplicates, a run of atomics) is still taken in by one pass.
     */
    private boolean rxWasEmpty = true;
    /** Work completions pushed to any CQ of this device (engine thread; only compared, see {@link #rxWasEmpty}). */
    long completionsPushed;
    private ByteBuffer rxBuffer; // the buffer of the datagram being taken in
    private int rxSrcIp;         // and its sender
    private int rxSrcPort;

    // GSO batching (native links): packets built in turn in slots, sent together when they share source port,
    // destination and size (the last may be shorter); flushed when one does not fit, and at the end of every pass
    private final int maxSegments;
    private final MemorySegment[] slotSegments;
    private final ByteBuffer[] slotBuffers;
    private final long[] slotAddresses;
    private int slot;
    private final int[] batchLengths;  // per packet
    private final long[] iovAddresses; // per piece: a packet is its slot, or header, payload pieces and trailer
    private final int[] iovLengths;
    private int iovCount;
    private int batchCount;
    private int batchBytes;
    private int batchSourcePort;
    private int batchDestIp;
    private int batchDestPort;
    private final Icrc icrc = new Icrc();
    private final IpIdPolicy ipIds = new IpIdPolicy();
    private final NanoClock clock;
    private final Threading threading;
    private final int localIp;
    private int rxIpId; // the IPv4 ID under which the last received packet's ICRC verified
    volatile PacketTap tap;
    /** Test hook: a packet about to be sent for which this answers true is lost instead (tests of UC loss). */
    volatile Predicate<MemorySegment> dropTx;
    volatile boolean portDown; // the port is DOWN: nothing is sent or received (SoftContext.setPortState)

    private final SoftQp[] qpBySlot = new SoftQp[SoftLimits.MAX_QP];
    private SoftQp[] live = new SoftQp[8];
    private int liveCount;
    private int senders = 1; // RC QPs with requests to send or unacknowledged in this pass (shareFor)
    private int inFlight;    // unacknowledged packets of all RC QPs: counted at the start of a pass, then as sent
    private long passes;     // passes run: where the next one starts visiting QPs

    volatile RuntimeException lastFailure;
    private Thread thread;
    private volatile boolean running;
    private volatile boolean sleeping;
    private volatile boolean doorbellRung;
    /** An invoker-mode thread is in, or about to enter, a receive that waits (see {@link #progressOrWait}). */
    private volatile boolean waitingInReceive;

    Engine(Link link, NanoClock clock, Threading threading, PacketTap tap) {
        this.link = link;
        this.clock = clock;
        this.threading = threading;
        this.tap = tap;
        this.localIp = link.localIp();
        maxSegments = link.maxSegments();
        int slots = maxSegments + 1; // a full batch plus the slot being built
        ByteBuffer area = ByteBuffer.allocateDirect(slots * SLOT_BYTES);
        slotSegments = new MemorySegment[slots];
        slotBuffers = new ByteBuffer[slots];
        slotAddresses = new long[slots];
        for (int i = 0; i < slots; i++) {
            slotBuffers[i] = area.slice(i * SLOT_BYTES, SoftLimits.MAX_PACKET);
            slotSegments[i] = MemorySegment.ofBuffer(slotBuffers[i]);
            slotAddresses[i] = slotSegments[i].address();
        }
        batchLengths = new int[maxSegments];
        int iov = maxSegments > 1 ? Link.maxPieces() : 1;
        iovAddresses = new long[iov];
        iovLengths = new int[iov];
        txBuffer = slotBuffers[0];
        tx = slotSegments[0];
        ByteBuffer rxArea = ByteBuffer.allocateDirect(Link.RX_BATCH * RX_BYTES);
        rxBuffers = new ByteBuffer[Link.RX_BATCH];
        rxSegments = new MemorySegment[Link.RX_BATCH];
        rxViews = new RxViews[Link.RX_BATCH];
        for (int i = 0; i < Link.RX_BATCH; i++) {
            rxBuffers[i] = rxArea.slice(i * RX_BYTES, RX_BYTES);
            rxSegments[i] = MemorySegment.ofBuffer(rxBuffers[i]);
            rxViews[i] = new RxViews(rxSegments[i]);
        }
        rxBuffer = rxBuffers[0];
    }

    /** Bytes of a receive buffer: any UDP datagram (a GRO run of packets is at most 65,507 bytes). */
    private static final int RX_BYTES = 65536;

    /** Bytes between packet slots: the largest packet, rounded to a cache line. */
    private static final int SLOT_BYTES = (SoftLimits.MAX_PACKET + 63) & ~63;

    boolean invoker() {
        return threading == Threading.INVOKER;
    }

    void start(String name) {
        if (threading == Threading.DEDICATED) {
            running = true;
            thread = Thread.ofPlatform().daemon().name("jrdma-engine-" + name).start(this::run);
        }
    }

    // ------------------------------------------------------------------------------------------------- QP table

    /** Registers a new QP (control path, lock held). */
    void add(SoftQp qp) {
        qpBySlot[qp.qpn - SoftLimits.QPN_BASE] = qp;
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, live.length * 2);
        }
        live[liveCount++] = qp;
    }

    /** Removes a QP (control path, lock held). */
    void remove(SoftQp qp) {
        qpBySlot[qp.qpn - SoftLimits.QPN_BASE] = null;
        for (int i = 0; i < liveCount; i++) {
            if (live[i] == qp) {
                live[i] = live[--liveCount];
                live[liveCount] = null;
                return;
            }
        }
    }

    boolean slotFree(int slot) {
        return qpBySlot[slot] == null;
    }

    /**
     * The receive-buffer bytes Linux charges for one datagram of a packet of this path MTU: its memory (the packet
     * with its headers and the kernel's overhead, rounded up to a power of two, as the allocator rounds it) plus
     * the socket buffer's own bookkeeping. Measured on loopback: a 4,200-byte datagram costs about 8,450 bytes of
     * SO_RCVBUF, a 1,100-byte one about 2,300.
     */
    static int datagramCost(int mtuBytes) {
        int bytes = mtuBytes + 512;
        int rounded = Integer.highestOneBit(bytes);
        return (rounded < bytes ? rounded << 1 : rounded) + 256;
    }

    /**
     * The requester's window of unacknowledged PSNs for a path MTU: what half the receive socket buffer holds
     * ({@link #datagramCost} per packet), between 8 and 256 packets.
     */
    int windowFor(int mtuBytes) {
        return Math.clamp(link.receiveBufferBytes() / (2L * datagramCost(mtuBytes)), 8, 256);
    }

    /**
     * The unacknowledged packets a QP may have now: its {@code window}, or, when several QPs are sending in this
     * pass, its share of half a receive socket buffer (at least one packet). Each window is sized as if its QP
     * were alone; a thousand of them at once would overflow the peer's socket, and every loss costs an ACK timeout.
     */
    int shareFor(int mtuBytes, int window) {
        int n = senders;
        if (n <= 1) {
            return window;
        }
        long share = link.receiveBufferBytes() / (2L * n * datagramCost(mtuBytes));
        return Math.clamp(share, 1, window);
    }

    /**
     * Whether a QP may start a new message: the device's RC QPs together keep no more packets in flight than a
     * third of a receive socket buffer holds (leaving room for the peer's own ACKs and the kernel's deferred
     * accounting), however their shares were sized (a QP posted to before the others sized its share when it was
     * alone). Checked only between messages, whose last packets ask for an ACK: every QP held back here is
     * waiting for ACKs that were asked for. The pass visits QPs from a rotating start, so none is always last.
     */
    boolean mayAdmit(int mtuBytes) {
        return inFlight < Math.max(1, link.receiveBufferBytes() / (3L * datagramCost(mtuBytes)));
    }

    /** Counts packets a requester sent for the first time (see {@link #mayAdmit}). */
    void admitted(int packets) {
        inFlight += packets;
    }

    // ------------------------------------------------------------------------------------------------- progress

    /** Rings the doorbell after a post: runs the engine now (invoker) or wakes its thread (dedicated). */
    void doorbell() {
        if (threading == Threading.INVOKER) {
            if (lock.tryLock()) {
                try {
                    doWork(RX_NONE); // sends what was posted; the next poll receives
                } finally {
                    lock.unlock();
                }
            } else {
                // another thread runs the engine, and may be asleep in a receive: it sends this post once it
                // wakes, so it is woken (it reads doorbellRung after announcing the wait: one of us sees the other)
                doorbellRung = true;
                if (waitingInReceive) {
                    link.wakeReceive();
                }
            }
        } else {
            doorbellRung = true;
            if (sleeping) {
                link.wakeup();
            }
        }
    }

    /**
     * After a receive is posted: a dedicated engine is woken (a QP in ERR flushes it at once); an invoker engine
     * waits for the next call, since only a poll can observe what the pass would do, and it runs a pass first.
     */
    void recvDoorbell() {
        if (threading != Threading.INVOKER) {
            doorbell();
        }
    }

    /** One engine pass on the calling thread, unless another thread is in one (invoker mode only). */
    int progress() {
        if (threading != Threading.INVOKER || !lock.tryLock()) {
            return 0;
        }
        try {
            return doWork();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Invoker mode, for a thread that waits for an event up to {@code leftNs}: a pass, and when it finds nothing to
     * do, a wait on the socket. When nothing can need the engine within two kernel ticks (no timer is due, the
     * caller waits that long), the wait is a receive that sleeps until the first datagram and takes it in the same
     * call ({@link Link#receiveWaitNs}); a post from another thread meanwhile wakes it ({@link #doorbell}).
     * Otherwise a poll of at most a millisecond, and the caller's next pass receives. Another thread in the
     * engine: parks briefly instead.
     *
     * @return the work done (0 after a wait that ended without work)
     */
    int progressOrWait(long leftNs) {
        if (!lock.tryLock()) {
            LockSupport.parkNanos(Math.min(leftNs, 50_000));
            return 0;
        }
        try {
            long tick = link.receiveWaitNs();
            // such a wait ends at the second tick boundary at the latest: it may take up to two ticks
            if (tick > 0 && leftNs >= 2 * tick && sleepBudgetNs() >= 2 * tick) {
                if (doorbellRung) {
                    doorbellRung = false; // read first: the poster's WQE happened before its ring
                }
                int work = doWork(RX_NONE); // what a pass must send, before the engine sleeps
                if (work > 0) {
                    return work;
                }
                waitingInReceive = true;
                try {
                    return doWork(doorbellRung ? RX_POLL : RX_WAIT);
                } finally {
                    waitingInReceive = false;
                }
            }
            int work = doWork(RX_POLL);
            if (work == 0) {
                link.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(leftNs, MAX_POLL_WAIT_NS))));
            }
            return work;
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        int idle = 0;
        while (running) {
            int work;
            lock.lock();
            try {
                doorbellRung = false;
                work = doWork();
            } catch (Throwable t) {
                counters.increment(Counter.RCVD_DROPPED);
                work = 0;
            } finally {
                lock.unlock();
            }
            if (work > 0) {
                idle = 0;
            } else if (++idle < SPINS) {
                Thread.onSpinWait();
            } else if (idle < SPINS + YIELDS) {
                Thread.yield();
            } else {
                sleeping = true;
                if (!doorbellRung && running) {
                    link.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(sleepBudgetNs())));
                }
                sleeping = false;
            }
        }
    }

    /** How long an idle engine may sleep: until the nearest timer, at most {@link #MAX_SLEEP_NS}. */
    private long sleepBudgetNs() {
        long now = clock.nanoTime();
        long budget = MAX_SLEEP_NS;
        lock.lock();
        try {
            for (int i = 0; i < liveCount; i++) {
                Requester r = live[i].requester;
                if (r.ackDeadlineNs != 0) {
                    budget = Math.min(budget, r.ackDeadlineNs - now);
                }
                if (r.rnrWaitUntilNs != 0) {
                    budget = Math.min(budget, r.rnrWaitUntilNs - now);
                }
            }
        } finally {
            lock.unlock();
        }
        return Math.max(0, budget);
    }

    /** One pass: receive, transmit, timers. Returns the amount of work done. Lock held. */
    int doWork() {
        return doWork(RX_POLL);
    }

    /**
     * One pass. {@link #RX_NONE} skips the socket (a post's doorbell in invoker mode: what it posted goes out at
     * once, and the poll that follows receives, one system call sooner on a request's way out); {@link #RX_WAIT}
     * lets its first receive wait for a datagram (see {@link #progressOrWait}).
     */
    private int doWork(int rx) {
        long now = clock.nanoTime();
        boolean receive = rx != RX_NONE;
        int work = receive ? receive(now, rx == RX_WAIT) : 0;
        int sending = 0; // counted before any QP transmits, so a burst of posts to many QPs shares from the start
        int unacked = 0;
        for (int i = 0; i < liveCount; i++) {
            SoftQp qp = live[i];
            if (qp.sqConsumer != qp.sqProducer) {
                sending++;
                if (qp.type == QpType.RC) {
                    unacked += Math.max(0, Psn.diff(qp.requester.sentPsn, qp.requester.unackedPsn));
                }
            }
        }
        senders = Math.max(1, sending);
        inFlight = unacked;
        int count = liveCount;
        int first = count == 0 ? 0 : (int) (passes++ % count);
        for (int k = 0; k < count; k++) {
            int i = first + k < count ? first + k : first + k - count;
            SoftQp qp = live[i];
            if (receive && (k & RX_EVERY_QPS) == RX_EVERY_QPS) {
                work += receive(now, false); // a long pass over many QPs keeps the socket drained and takes ACKs in
            }
            if (qp.state == QpState.ERR) {
                if (qp.hasUnflushed()) {
                    work += qp.flush();
                }
                continue;
            }
            if (qp.state == QpState.SQE && qp.sqConsumer != qp.sqProducer) {
                work += qp.flushSend(); // IBA 10.3.1: sends posted in SQE complete in error; receives go on
            }
            try {
                work += qp.completer.checkTimer(now);
                int requests = qp.requester.transmit(now); // first: an answer may precede a held ACK
                work += requests;
                work += qp.responder.transmit(now, requests > 0);
                qp.checkSqDrained();
            } catch (RuntimeException e) {
                // an engine bug must not stop the device: this QP fails (its WRs flush), the others go on
                counters.increment(Counter.QP_FATAL);
                lastFailure = e;
                boolean wasError = qp.state == QpState.ERR;
                qp.enterError();
                if (!wasError) {
                    qp.raise(AsyncEventType.QP_FATAL); // once: a QP already in ERR had its event
                }
            }
        }
        flush();
        return work;
    }

    /**
     * Takes in up to {@link #RX_BATCH} datagrams, a batch per system call; a batch smaller than asked for means the
     * socket is drained, so a pass that finds work makes no empty receive call. An invoker-mode receive after an
     * empty one, and a waiting one, asks for a single datagram first (see {@link #rxWasEmpty}).
     */
    private int receive(long now, boolean wait) {
        int n = 0;
        while (n < RX_BATCH) {
            boolean single = invoker() && (wait || rxWasEmpty);
            int ask = single ? 1 : rxBuffers.length;
            int got = wait && n == 0 ? link.receiveBatchWaiting(rxBuffers, ask) : link.receiveBatch(rxBuffers, ask);
            rxWasEmpty = got == 0;
            long pushed = completionsPushed;
            for (int i = 0; i < got; i++) {
                int total = link.batchLength(i);
                if (total == 0 && link.isWakeUp(i)) {
                    continue; // a post's wake-up for a thread asleep in a receive (see doorbell)
                }
                int segment = link.batchSegmentSize(i);
                rxBuffer = rxBuffers[i];
                rxSrcIp = link.batchSenderIp(i);
                rxSrcPort = link.batchSenderPort(i);
                if (segment <= 0 || segment >= total) {
                    onPacket(rxSegments[i], 0, total, 0, now);
                    continue;
                }
                // a GRO run: the packets of one GSO send, each `segment` bytes but the last, IPv4 IDs 0, 1, 2...
                RxViews views = rxViews[i];
                int k = 0;
                for (int off = 0; off < total; off += segment, k++) {
                    onPacket(views.view(segment, k), off, Math.min(segment, total - off), k, now);
                }
            }
            n += got;
            if (got < ask || (single && completionsPushed != pushed)) {
                break; // drained, or a single datagram completed a work request (see rxWasEmpty)
            }
        }
        return n;
    }

    private void onPacket(MemorySegment pkt, int off, int len, int ipIdHint, long now) {
        try {
            onDatagram(pkt, off, len, ipIdHint, now);
        } catch (RuntimeException e) {
            counters.increment(Counter.RCVD_DROPPED); // a bad packet must never stop the engine
            lastFailure = e;
        }
    }

    /**
     * Receive checks in a fixed order (length, opcode, header, QP, transport, state, P_Key, source, ICRC). The
     * packet is {@code pkt} from its start, which is {@code off} bytes into the receive buffer; {@code ipIdHint} is
     * the IPv4 ID its sender most likely used (its index in a GRO run).
     */
    private void onDatagram(MemorySegment rx, int off, int len, int ipIdHint, long now) {
        if (portDown) {
            counters.increment(Counter.RCVD_DROPPED); // the link is down: the datagram never arrived
            return;
        }
        int srcIp = rxSrcIp;
        int srcPort = rxSrcPort;
        PacketTap t = tap;
        if (t != null) {
            t.onPacket(false, rx, 0, len, srcIp, srcPort, localIp, link.port());
        }
        counters.add(Counter.PORT_RCV_DATA, len);
        counters.increment(Counter.PORT_RCV_PACKETS);
        if (len < Bth.LENGTH + 4) {
            drop();
            return;
        }
        Opcode op = Opcode.of(Bth.opcode(rx, 0));
        if (op == null || Bth.tver(rx, 0) != 0) {
            drop();
            return;
        }
        int hdr = op.headerLength();
        int payload = len - hdr - 4 - Bth.padCount(rx, 0);
        if (payload < 0) {
            drop();
            return;
        }
        int slot = Bth.destQp(rx, 0) - SoftLimits.QPN_BASE;
        SoftQp qp = slot >= 0 && slot < qpBySlot.length ? qpBySlot[slot] : null;
        if (qp == null || op.transport() != transportOf(qp.type)) {
            drop(); // includes a UD packet for a UC or RC QP and the other way round
            return;
        }
        QpState s = qp.state;
        boolean accepting = op.isRequest()
                ? s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE
                : s == QpState.RTS || s == QpState.SQD;
        // a UD QP takes datagrams from anyone; a connected QP only from its peer
        if (!accepting || (Bth.pkey(rx, 0) & 0x7FFF) != 0x7FFF || (qp.type != QpType.UD && srcIp != qp.destIp)) {
            drop();
            return;
        }
        if (op.hasDeth() && Deth.qkey(rx, op.dethOffset()) != qp.qkey) {
            counters.increment(Counter.QKEY_VIOLATIONS); // rxe check_keys: silently dropped, qkey_viol_cntr
            return;
        }
        if (!icrcOk(slot, srcIp, srcPort, off, len, ipIdHint)) {
            counters.increment(Counter.ICRC_ERR);
            return;
        }
        counters.increment(Counter.RCVD_PKTS);
        if (op.isRequest() && qp.type != QpType.UD) {
            qp.requestArrived(); // COMM_EST on the first request reaching an RC or UC QP in RTR
        }
        if (qp.type != QpType.RC) {
            qp.unreliableResponder.onRequest(op, rx, hdr, payload, srcIp, rxIpId, len);
        } else if (op.isRequest()) {
            qp.responder.onRequest(op, rx, hdr, payload);
        } else {
            qp.completer.onResponse(op, rx, hdr, payload, now);
        }
    }

    /**
     * The ICRC covers the IPv4 ID, which the socket API hides. jrdma sends ID 0 (DF, unconnected socket), so that
     * is tried first; kernel rxe picks other IDs, so the unique ID that would make the CRC match is solved for.
     * A corrupted packet verifies under no ID except with probability 2^-16, and not at all from a source known to
     * send ID 0 ({@link IpIdPolicy}).
     */
    private boolean icrcOk(int slot, int srcIp, int srcPort, int off, int len, int ipIdHint) {
        if (icrc.verifyIpv4(srcIp, localIp, srcPort, link.port(), ipIdHint, rxBuffer, off, len)) {
            ipIds.verifiedWithZero(slot, IpIdPolicy.key(srcIp, srcPort)); // the ID a jrdma sender uses
            rxIpId = ipIdHint;
            return true;
        }
        int id = icrc.solveIpv4Id(srcIp, localIp, srcPort, link.port(), rxBuffer, off, len);
        if (id >= 0 && ipIds.acceptSolved(slot, IpIdPolicy.key(srcIp, srcPort), id)) {
            counters.increment(Counter.ICRC_ID_SOLVED);
            rxIpId = id;
            return true;
        }
        return false;
    }

    private static Transport transportOf(QpType type) {
        return switch (type) {
            case RC -> Transport.RC;
            case UC -> Transport.UC;
            case UD -> Transport.UD;
        };
    }

    private void drop() {
        counters.increment(Counter.RCVD_DROPPED);
    }

    /** Sends the packet built at {@link #tx} ({@code length} bytes before the ICRC) on behalf of {@code qp}. */
    void transmit(SoftQp qp, int length) {
        transmitTo(qp.srcPort, qp.destIp, qp.destAddress, length);
    }

    /**
     * Sends the packet built at {@link #tx} ({@code length} bytes before the ICRC) from UDP port {@code srcPort}
     * to {@code destAddress} (whose IPv4 address is {@code destIp}): a UD datagram goes where its WQE's address
     * handle says, resolved when the handle was created, so nothing is allocated per packet.
     */
    void transmitTo(int srcPort, int destIp, InetSocketAddress destAddress, int length) {
        int total = length + 4;
        if (portDown) {
            counters.increment(Counter.PORT_XMIT_DISCARDS); // lost on a down link; the retry timer recovers
            return;
        }
        if (maxSegments > 1) {
            stage(srcPort, destIp, destAddress.getPort(), total);
            return;
        }
        icrc.writeIpv4(localIp, destIp, srcPort, Link.ROCE_PORT, txBuffer, 0, total);
        PacketTap t = tap;
        if (t != null) {
            t.onPacket(true, tx, 0, total, localIp, srcPort, destIp, Link.ROCE_PORT);
        }
        Predicate<MemorySegment> lose = dropTx;
        if (lose != null && lose.test(tx)) {
            txBuffer.clear(); // a test's wire loss: built, tapped, never sent
            return;
        }
        txBuffer.limit(total).position(0);
        if (link.send(srcPort, txBuffer, destAddress)) {
            counters.increment(Counter.SENT_PKTS);
            counters.add(Counter.PORT_XMIT_DATA, total);
            counters.increment(Counter.PORT_XMIT_PACKETS);
        } else {
            counters.increment(Counter.SEND_ERR); // lost like a wire drop; retransmission recovers
        }
        txBuffer.clear();
    }

    /**
     * Adds the packet just built in the current slot to the GSO batch (sending the batch first when the packet
     * cannot join it), with the ICRC for the IPv4 ID Linux will give it: its index in the batch.
     */
    private void stage(int srcPort, int destIp, int destPort, int total) {
        int k = admit(srcPort, destIp, destPort, total, 1);
        icrc.writeIpv4(localIp, destIp, srcPort, Link.ROCE_PORT, k, txBuffer, 0, total);
        PacketTap t = tap;
        if (t != null) {
            t.onPacket(true, tx, 0, total, localIp, srcPort, destIp, Link.ROCE_PORT);
        }
        Predicate<MemorySegment> lose = dropTx;
        if (lose != null && lose.test(tx)) {
            return; // a test's wire loss: built, tapped, never sent (the slot is built over next)
        }
        iovAddresses[iovCount] = slotAddresses[slot];
        iovLengths[iovCount++] = total;
        appended(total);
    }

    /**
     * Makes room in the batch for a packet of {@code total} bytes in {@code pieces} I/O-vector entries (sending the
     * batch first when the packet cannot join it) and returns the packet's index in the batch: the IPv4 ID Linux
     * will give it.
     */
    private int admit(int srcPort, int destIp, int destPort, int total, int pieces) {
        if (batchCount > 0 && !joins(srcPort, destIp, destPort, total, pieces)) {
            flush();
        }
        if (batchCount == 0) {
            batchSourcePort = srcPort;
            batchDestIp = destIp;
            batchDestPort = destPort;
        }
        return batchCount;
    }

    /** Counts the packet whose I/O-vector entries were just added, moves to the next slot, sends a full batch. */
    private void appended(int total) {
        batchLengths[batchCount++] = total;
        batchBytes += total;
        slot = slot + 1 == slotSegments.length ? 0 : slot + 1;
        tx = slotSegments[slot];
        txBuffer = slotBuffers[slot];
        if (batchCount == maxSegments) {
            flush();
        }
    }

    /** Whether a packet can follow the batch in one GSO send: same flow, and the batch's last packet full-size. */
    private boolean joins(int srcPort, int destIp, int destPort, int total, int pieces) {
        int segment = batchLengths[0];
        return srcPort == batchSourcePort && destIp == batchDestIp && destPort == batchDestPort
                && batchLengths[batchCount - 1] == segment && total <= segment
                && batchBytes + total <= Link.maxSegmentsBytes() && iovCount + pieces <= iovAddresses.length;
    }

    // ----------------------------------------------------------------------- payload by reference (native links)

    private static final int MAX_PIECES = SoftLimits.MAX_SGE + 1;
    private static final ValueLayout.OfInt ICRC_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer[] pieceBuffers = new ByteBuffer[MAX_PIECES];
    private final int[] pieceOffsets = new int[MAX_PIECES];
    private final int[] pieceLengths = new int[MAX_PIECES];
    private final long[] pieceAddresses = new long[MAX_PIECES];
    private int pieces;

    /**
     * Whether the packet being built may name its payload in registered memory instead of copying it
     * ({@link #addPiece}, {@link #transmitByReference}): on a native link, with no tap or test hook that must see
     * whole packets.
     */
    boolean byReference() {
        return maxSegments > 1 && BY_REFERENCE && tap == null && dropTx == null;
    }

    /** {@code -Djrdma.copyPayload=true} copies every payload into the packet (for A/B measurements). */
    private static final boolean BY_REFERENCE = !Boolean.getBoolean("jrdma.copyPayload");

    /** Starts the payload pieces of a packet over. */
    void clearPieces() {
        pieces = 0;
    }

    /**
     * Adds {@code length} bytes of {@code mr} at {@code offset} to the payload of the packet being built; false
     * when they cannot be sent by reference (too many pieces, memory that is not native or too large for a buffer
     * view), and the caller copies the payload instead.
     */
    boolean addPiece(SoftMr mr, long offset, int length) {
        ByteBuffer b = mr.buffer();
        if (pieces == MAX_PIECES || b == null) {
            return false;
        }
        pieceBuffers[pieces] = b;
        pieceOffsets[pieces] = (int) offset;
        pieceLengths[pieces] = length;
        pieceAddresses[pieces] = mr.address + offset;
        pieces++;
        return true;
    }

    /**
     * Sends the packet whose headers ({@code hdr} bytes) are built at {@link #tx} and whose {@code payload} bytes
     * are the pieces added since {@link #clearPieces}: the kernel gathers them from registered memory, so the
     * payload is read twice (ICRC, kernel copy) and never copied by the engine.
     */
    void transmitByReference(SoftQp qp, int hdr, int payload, int pad) {
        int total = hdr + payload + pad + 4;
        if (portDown) {
            counters.increment(Counter.PORT_XMIT_DISCARDS);
            return;
        }
        int srcPort = qp.srcPort;
        int destIp = qp.destIp;
        int destPort = qp.destAddress.getPort();
        int n = pieces;
        int k = admit(srcPort, destIp, destPort, total, n + 2);
        int crc = icrc.computeIpv4(localIp, destIp, srcPort, Link.ROCE_PORT, k, txBuffer, hdr, total,
                pieceBuffers, pieceOffsets, pieceLengths, n, pad);
        MemorySegment t = tx;
        for (int i = 0; i < pad; i++) {
            t.set(ValueLayout.JAVA_BYTE, hdr + i, (byte) 0);
        }
        t.set(ICRC_LE, hdr + pad, crc);
        long base = slotAddresses[slot];
        iovAddresses[iovCount] = base;
        iovLengths[iovCount++] = hdr;
        for (int i = 0; i < n; i++) {
            iovAddresses[iovCount] = pieceAddresses[i];
            iovLengths[iovCount++] = pieceLengths[i];
        }
        iovAddresses[iovCount] = base + hdr;
        iovLengths[iovCount++] = pad + 4;
        pieces = 0;
        appended(total);
    }

    /** Sends the GSO batch, if any. */
    void flush() {
        int n = batchCount;
        if (n == 0) {
            return;
        }
        batchCount = 0;
        int bytes = batchBytes;
        batchBytes = 0;
        int iov = iovCount;
        iovCount = 0;
        if (link.sendSegments(batchSourcePort, batchDestIp, batchDestPort, iovAddresses, iovLengths, iov,
                n > 1 ? batchLengths[0] : 0)) {
            counters.add(Counter.SENT_PKTS, n);
            counters.add(Counter.PORT_XMIT_DATA, bytes);
            counters.add(Counter.PORT_XMIT_PACKETS, n);
        } else {
            counters.add(Counter.SEND_ERR, n); // lost like wire drops; retransmission recovers
        }
    }

    @Override
    public void close() {
        running = false;
        if (waitingInReceive) {
            link.wakeReceive(); // an invoker-mode waiter asleep in a receive returns now, not after a tick
        }
        if (thread != null) {
            link.wakeup();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        link.close();
    }
}
