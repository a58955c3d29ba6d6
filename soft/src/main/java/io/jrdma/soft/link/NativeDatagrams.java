package io.jrdma.soft.link;

import static io.jrdma.soft.link.NativeUdp.CMSG_HEADER;
import static io.jrdma.soft.link.NativeUdp.INT;
import static io.jrdma.soft.link.NativeUdp.IOVEC;
import static io.jrdma.soft.link.NativeUdp.LONG;
import static io.jrdma.soft.link.NativeUdp.MSGHDR;
import static io.jrdma.soft.link.NativeUdp.MSG_CONTROL;
import static io.jrdma.soft.link.NativeUdp.MSG_CONTROLLEN;
import static io.jrdma.soft.link.NativeUdp.MSG_FLAGS;
import static io.jrdma.soft.link.NativeUdp.MSG_IOV;
import static io.jrdma.soft.link.NativeUdp.MSG_IOVLEN;
import static io.jrdma.soft.link.NativeUdp.MSG_NAME;
import static io.jrdma.soft.link.NativeUdp.MMSGHDR;
import static io.jrdma.soft.link.NativeUdp.MMSG_LEN;
import static io.jrdma.soft.link.NativeUdp.MSG_NAMELEN;
import static io.jrdma.soft.link.NativeUdp.NET_INT;
import static io.jrdma.soft.link.NativeUdp.NET_SHORT;
import static io.jrdma.soft.link.NativeUdp.SHORT;
import static io.jrdma.soft.link.NativeUdp.SOCKADDR_IN;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The native sockets of a {@link NativeLink}: the receive socket on {@code <ip>:4791} with UDP GRO, per-source-port
 * send sockets, and an eventfd that wakes a waiting engine. A send hands the kernel up to {@link #MAX_SEGMENTS}
 * packets at once as one GSO datagram whose segments are the packets; a receive gets a run of packets that
 * arrived as one GSO datagram in one call, with the segment size the kernel reports in a UDP_GRO control message.
 *
 * <p>All native memory (message headers, I/O vectors, control buffers) is allocated once from an automatic arena,
 * so no call allocates and nothing can be used after it is freed. One engine thread sends and receives at a time;
 * only {@link #wakeup} and {@link #wakeReceive} are called from other threads (a post's doorbell, a close).
 */
final class NativeDatagrams {

    /** Most segments Linux takes in one UDP GSO send (UDP_MAX_SEGMENTS). */
    static final int MAX_SEGMENTS = 64;
    /** Most payload bytes in one IPv4 UDP datagram, which bounds a GSO send. */
    static final int MAX_DATAGRAM = 65_507;
    /** Most pieces one send gathers (Linux UIO_MAXIOV). */
    static final int MAX_IOV = 1024;
    /** Most datagrams one {@link #receiveBatch} takes (one recvmmsg). */
    static final int RX_BATCH = 8;

    private static final int CONTROL_BYTES = 64;
    private static final int SOURCE_PORT_BASE = 0xC000;

    private final Arena arena = Arena.ofAuto();
    private final int mainFd;
    private final int port;
    private final int receiveBufferBytes;
    private final long receiveWaitNs;
    /** The long class of {@link #receiveWaitLimit}, in ticks (64 ms at 250 Hz). */
    private static final long LONG_WAIT_TICKS = 16;
    /** The receive timeout set now: {@link #receiveWaitNs} or a whole number of ticks more. */
    private long waitLimitNs;
    private final MemorySegment waitTimeval;
    private final MemorySegment waitCallState;
    private final int[] bySourcePort = new int[0x4000]; // fd + 1; 0 = not opened
    private final int[] sourcePortUsers = new int[0x4000]; // the QPs sending from each port
    private final int localIp;
    private final int bufferBytes;


    // batch receive: one mmsghdr, sender address, I/O vector and control buffer per datagram
    private final MemorySegment rxVec;
    private final MemorySegment rxNames;
    private final MemorySegment rxIovs;
    private final MemorySegment rxControls;
    private ByteBuffer[] rxBatchBuffers;
    /** Headers the last batch receive filled: the next resets only these (the rest are as the constructor set). */
    private int rxFilled;
    private final int[] batchLength = new int[RX_BATCH];
    private final int[] batchIp = new int[RX_BATCH];
    private final int[] batchPort = new int[RX_BATCH];
    private final int[] batchSegment = new int[RX_BATCH];

    private final MemorySegment txMsg;
    private final MemorySegment txName;
    private final MemorySegment txIov;
    private final MemorySegment txControl;
    private final long[] oneAddress = new long[1];
    private final int[] oneLength = new int[1];
    private ByteBuffer txBuffer;
    private long txAddress;

    private final MemorySegment wakeMsg;   // an empty datagram to the receive socket itself
    private final Object wakeLock = new Object();
    private final int eventFd;
    /**
     * The doorbell of this device's shared-memory ring ({@link #doorbellFd}): an eventfd that senders in other
     * processes write to, which every wait here watches once it is in use.
     */
    private final int bellFd;
    private volatile boolean bellsInUse;
    private final MemorySegment pollFds;
    /** A {@link #receiveBatchWaiting}'s poll when doorbells are in use: the socket and the doorbell. */
    private final MemorySegment waitPollFds;
    private final MemorySegment waitTimeout;
    private final MemorySegment waitBellRead;
    private final MemorySegment readableBellRead;
    private long bellWaitNs;
    /** A caller's {@link #awaitReadable}: the receive socket alone, and the timeout (one caller at a time). */
    private final MemorySegment readablePollFd;
    private final MemorySegment readableTimeout;
    private final MemorySegment eventRead;
    private final MemorySegment eventWrite;
    private boolean closed;

    NativeDatagrams(int localIp, int port, int bufferBytes) throws IOException {
        this.localIp = localIp;
        this.bufferBytes = bufferBytes;
        this.mainFd = NativeUdp.open(localIp, port, bufferBytes, true, true);
        this.port = port == 0 ? NativeUdp.boundPort(mainFd) : port;
        this.receiveWaitNs = NativeUdp.shortestReceiveTimeoutNs(mainFd);
        this.waitLimitNs = receiveWaitNs;
        this.receiveBufferBytes = NativeUdp.getInt(mainFd, NativeUdp.SOL_SOCKET, NativeUdp.SO_RCVBUF);
        this.eventFd = NativeUdp.eventfd();
        this.bellFd = NativeUdp.eventfd();
        if (eventFd < 0 || bellFd < 0) {
            NativeUdp.close(mainFd);
            if (eventFd >= 0) {
                NativeUdp.close(eventFd);
            }
            if (bellFd >= 0) {
                NativeUdp.close(bellFd);
            }
            throw new IOException("eventfd failed");
        }
        this.bellWaitNs = receiveWaitNs;
        waitTimeval = arena.allocate(NativeUdp.TIMEVAL, 8);
        waitCallState = arena.allocate(NativeUdp.callStateBytes(), 8);
        rxVec = arena.allocate((long) MMSGHDR * RX_BATCH, 8);
        rxNames = arena.allocate((long) SOCKADDR_IN * RX_BATCH, 8);
        rxIovs = arena.allocate((long) IOVEC * RX_BATCH, 8);
        rxControls = arena.allocate((long) CONTROL_BYTES * RX_BATCH, 8);
        for (int i = 0; i < RX_BATCH; i++) {
            long m = (long) i * MMSGHDR;
            rxVec.set(LONG, m + MSG_NAME, rxNames.address() + (long) i * SOCKADDR_IN);
            rxVec.set(LONG, m + MSG_IOV, rxIovs.address() + (long) i * IOVEC);
            rxVec.set(LONG, m + MSG_IOVLEN, 1L);
            rxVec.set(LONG, m + MSG_CONTROL, rxControls.address() + (long) i * CONTROL_BYTES);
            resetReceiveHeader(rxVec, m);
        }

        txMsg = arena.allocate(MSGHDR, 8);
        txName = arena.allocate(SOCKADDR_IN, 8);
        txIov = arena.allocate((long) IOVEC * MAX_IOV, 8);
        txControl = arena.allocate(CMSG_HEADER + 8, 8);
        txMsg.set(LONG, MSG_NAME, txName.address());
        txMsg.set(INT, MSG_NAMELEN, SOCKADDR_IN);
        txMsg.set(LONG, MSG_IOV, txIov.address());
        txMsg.set(LONG, MSG_CONTROL, txControl.address());
        txControl.set(LONG, 0, CMSG_HEADER + 2L);                 // CMSG_LEN(sizeof(uint16_t))
        txControl.set(INT, 8, NativeUdp.SOL_UDP);
        txControl.set(INT, 12, NativeUdp.UDP_SEGMENT);

        wakeMsg = arena.allocate(MSGHDR, 8);
        MemorySegment wakeName = arena.allocate(SOCKADDR_IN, 8);
        NativeUdp.sockaddr(wakeName, localIp, this.port);
        wakeMsg.set(LONG, MSG_NAME, wakeName.address());
        wakeMsg.set(INT, MSG_NAMELEN, SOCKADDR_IN);

        pollFds = pollSet(mainFd, eventFd, bellFd);
        readablePollFd = pollSet(mainFd, bellFd);
        waitPollFds = pollSet(mainFd, bellFd);
        readableTimeout = arena.allocate(16, 8);
        waitTimeout = arena.allocate(16, 8);
        waitBellRead = arena.allocate(8, 8);
        readableBellRead = arena.allocate(8, 8);
        eventRead = arena.allocate(8, 8);
        eventWrite = arena.allocate(8, 8);
        eventWrite.set(LONG, 0, 1L);
    }

    int port() {
        return port;
    }

    int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    /**
     * Opens the send socket for {@code sourcePort}, or counts one more user of the open one; false when that port
     * cannot be bound.
     */
    boolean openSourcePort(int sourcePort) {
        int i = sourcePort - SOURCE_PORT_BASE;
        if (bySourcePort[i] != 0) {
            sourcePortUsers[i]++;
            return true;
        }
        try {
            bySourcePort[i] = NativeUdp.open(localIp, sourcePort, bufferBytes, false, false) + 1;
            sourcePortUsers[i] = 1;
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** One user fewer of {@code sourcePort}'s send socket; the last closes it (a late send then uses 4791's). */
    void releaseSourcePort(int sourcePort) {
        int i = sourcePort - SOURCE_PORT_BASE;
        if (i < 0 || i >= bySourcePort.length || bySourcePort[i] == 0 || --sourcePortUsers[i] > 0) {
            return;
        }
        int fd = bySourcePort[i] - 1;
        bySourcePort[i] = 0;
        NativeUdp.close(fd);
    }


    /**
     * Gives the receive message header at {@code offset} of {@code msgs} back the name and control buffer lengths
     * and the flags a receive call then overwrites with what it filled.
     */
    private static void resetReceiveHeader(MemorySegment msgs, long offset) {
        msgs.set(INT, offset + MSG_NAMELEN, SOCKADDR_IN);
        msgs.set(LONG, offset + MSG_CONTROLLEN, CONTROL_BYTES);
        msgs.set(INT, offset + MSG_FLAGS, 0);
    }

    /**
     * Receives up to {@code max} (at most {@code bufs.length} and {@link #RX_BATCH}) datagrams in one system call,
     * datagram {@code i} into {@code bufs[i]} from its start (the buffers' positions and limits are not used or
     * changed; a caller passes the same array of the same buffers every time). Fewer than asked means the socket was
     * drained. Asking for one saves the kernel's attempt at a second datagram, which fails when the first came alone.
     *
     * @return the number received (0 when none was waiting); their lengths, senders and GRO segment sizes are
     *         {@link #batchLength}, {@link #batchSenderIp}, {@link #batchSenderPort} and {@link #batchSegmentSize}
     */
    int receiveBatch(ByteBuffer[] bufs, int max) {
        return receiveBatch(bufs, max, false);
    }

    /**
     * The receive timeout of a {@link #receiveBatchWaiting}: one kernel clock tick, so a wait with no datagram ends
     * at the next tick boundary but one at the latest (up to two ticks). 0 when this socket cannot wait in a receive.
     */
    long receiveWaitNs() {
        return receiveWaitNs;
    }

    /**
     * Lets the next {@link #receiveBatchWaiting} calls wait up to {@code ns}: {@link #LONG_WAIT_TICKS} ticks when it
     * allows that many, else one (a wait that no datagram ends may take one tick more); a system call only when the
     * class changes.
     */
    void receiveWaitLimit(long ns) {
        if (receiveWaitNs <= 0) {
            return;
        }
        // two classes, a tick or LONG_WAIT_TICKS, so that waits whose budgets shrink tick by tick do not each
        // cost a setsockopt
        long limit = (ns / receiveWaitNs >= LONG_WAIT_TICKS ? LONG_WAIT_TICKS : 1) * receiveWaitNs;
        bellWaitNs = limit; // with doorbells in use, the poll's timeout (the socket's is then not used)
        if (bellsInUse) {
            return;
        }
        if (limit != waitLimitNs && NativeUdp.setReceiveTimeout(mainFd, limit, waitTimeval, waitCallState)) {
            waitLimitNs = limit;
        }
    }

    /**
     * {@link #receiveBatch} in one system call that first waits for a datagram, for the {@link #receiveWaitNs}
     * timeout (only a datagram ends it early, such as {@link #wakeReceive}'s; not {@link #wakeup}): the wait and the
     * receive that a wake-up from {@link #await} needs, in one call. With the {@link #doorbellFd} in use, a ppoll of
     * the socket and the doorbell instead (either ends it, {@link #wakeReceive} rings the doorbell), then a receive
     * if the socket is readable. Returns 0 when none came.
     */
    int receiveBatchWaiting(ByteBuffer[] bufs, int max) {
        if (!bellsInUse || receiveWaitNs <= 0) {
            return receiveBatch(bufs, max, receiveWaitNs > 0);
        }
        // a receive cannot also wait for the doorbell: the poll waits for both, and a receive follows if a datagram came
        timespec(waitTimeout, bellWaitNs);
        if (NativeUdp.ppoll(waitPollFds, 2, waitTimeout) <= 0) {
            return 0;
        }
        if (readable(waitPollFds, 1)) {
            NativeUdp.read(bellFd, waitBellRead, 8);
        }
        return readable(waitPollFds, 0) ? receiveBatch(bufs, max, false) : 0;
    }

    private int receiveBatch(ByteBuffer[] bufs, int max, boolean wait) {
        if (bufs != rxBatchBuffers) {
            for (int i = 0; i < Math.min(bufs.length, RX_BATCH); i++) {
                rxIovs.set(LONG, (long) i * IOVEC, MemorySegment.ofBuffer(bufs[i].duplicate().clear()).address());
                rxIovs.set(LONG, (long) i * IOVEC + 8, bufs[i].capacity());
            }
            rxBatchBuffers = bufs;
        }
        int count = Link.batchCount(bufs, max);
        // the kernel writes back the name and control lengths and the flags of the headers it filled, only those
        for (int i = 0; i < rxFilled; i++) {
            resetReceiveHeader(rxVec, (long) i * MMSGHDR);
        }
        int n = wait ? NativeUdp.recvmmsgWait(mainFd, rxVec, count) : NativeUdp.recvmmsg(mainFd, rxVec, count);
        n = Math.max(n, 0);
        rxFilled = n;
        for (int i = 0; i < n; i++) {
            long m = (long) i * MMSGHDR;
            long name = (long) i * SOCKADDR_IN;
            batchLength[i] = rxVec.get(INT, m + MMSG_LEN);
            batchIp[i] = rxNames.get(NET_INT, name + 4);
            batchPort[i] = Short.toUnsignedInt(rxNames.get(NET_SHORT, name + 2));
            batchSegment[i] = groSegment(rxControls, (long) i * CONTROL_BYTES, rxVec.get(LONG, m + MSG_CONTROLLEN));
        }
        return n;
    }

    int batchLength(int i) {
        return batchLength[i];
    }

    int batchSenderIp(int i) {
        return batchIp[i];
    }

    int batchSenderPort(int i) {
        return batchPort[i];
    }

    int batchSegmentSize(int i) {
        return batchSegment[i];
    }

    /** struct pollfd entries that wait for {@code fds} to be readable. */
    private MemorySegment pollSet(int... fds) {
        MemorySegment set = arena.allocate((long) fds.length * NativeUdp.POLLFD, 8);
        for (int i = 0; i < fds.length; i++) {
            set.set(INT, (long) i * NativeUdp.POLLFD, fds[i]);
            set.set(SHORT, (long) i * NativeUdp.POLLFD + 4, NativeUdp.POLLIN);
        }
        return set;
    }

    /** Whether entry {@code i} of the poll set {@code set} came back readable. */
    private static boolean readable(MemorySegment set, int i) {
        return (set.get(SHORT, (long) i * NativeUdp.POLLFD + 6) & NativeUdp.POLLIN) != 0;
    }

    /** Sets the {@code struct timespec} {@code ts} to {@code ns}. */
    private static void timespec(MemorySegment ts, long ns) {
        long n = Math.max(0, ns);
        ts.set(LONG, 0, n / 1_000_000_000L);
        ts.set(LONG, 8, n % 1_000_000_000L);
    }

    /**
     * The eventfd that rings this device from another process: a sender that put a record in this device's
     * shared-memory ring while a thread here waited writes to it (the ring tells senders its number; they take their
     * own copy of it through a pidfd, {@link PeerDoorbell}). An eventfd's wake-up, unlike a datagram's, is not
     * synchronous: the kernel wakes the sleeper on an idle core rather than on the sender's. From the first call on,
     * every wait here also ends when it is rung, and takes the ring's count back to zero.
     */
    int doorbellFd() {
        bellsInUse = true;
        return bellFd;
    }

    /**
     * The segment size of a UDP_GRO control message among the {@code controlLength} bytes at {@code base} of
     * {@code control}, or 0 when the datagram is one packet.
     */
    private static int groSegment(MemorySegment control, long base, long controlLength) {
        long at = 0;
        while (at + CMSG_HEADER <= controlLength) {
            long len = control.get(LONG, base + at);
            if (len < CMSG_HEADER) {
                return 0;
            }
            if (control.get(INT, base + at + 8) == NativeUdp.SOL_UDP
                    && control.get(INT, base + at + 12) == NativeUdp.UDP_GRO && len >= CMSG_HEADER + 4) {
                return control.get(INT, base + at + CMSG_HEADER);
            }
            at += (len + 7) & ~7L;
        }
        return 0;
    }

    /** Sends one datagram from a direct buffer (position to limit). */
    boolean send(int sourcePort, ByteBuffer buf, int destIp, int destPort) {
        if (buf != txBuffer) {
            txAddress = MemorySegment.ofBuffer(buf).address() - buf.position();
            txBuffer = buf;
        }
        oneAddress[0] = txAddress + buf.position();
        oneLength[0] = buf.remaining();
        if (sendSegments(sourcePort, destIp, destPort, oneAddress, oneLength, 1, 0)) {
            buf.position(buf.limit());
            return true;
        }
        return false;
    }

    /**
     * Sends one datagram gathered from {@code count} pieces of native memory (an I/O vector, at most
     * {@link #MAX_IOV}). With {@code segment} above 0 it is a GSO run: packets of {@code segment} bytes each, the
     * last no longer, at most {@link #MAX_SEGMENTS} of them and {@link #MAX_DATAGRAM} bytes in all, which Linux
     * puts on the wire as one UDP datagram each.
     */
    boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths, int count,
                         int segment) {
        // The send sockets stay unconnected: Linux gives a connected socket's packets IPv4 IDs from a random
        // per-socket counter even with DF set, where an unconnected one sends ID 0 (0, 1, 2... in a GSO run), the
        // ID each packet's ICRC is written for. (Connecting saved the route lookup per send, and kernel rxe then
        // dropped every packet.)
        int fd = mainFd;
        if (sourcePort != port && sourcePort >= SOURCE_PORT_BASE && sourcePort <= 0xFFFF) {
            int s = bySourcePort[sourcePort - SOURCE_PORT_BASE];
            if (s != 0) {
                fd = s - 1;
            }
        }
        NativeUdp.sockaddr(txName, destIp, destPort);
        for (int i = 0; i < count; i++) {
            txIov.set(LONG, (long) i * IOVEC, addresses[i]);
            txIov.set(LONG, (long) i * IOVEC + 8, lengths[i]);
        }
        txMsg.set(LONG, MSG_IOVLEN, count);
        if (segment > 0) {
            txControl.set(SHORT, CMSG_HEADER, (short) segment);
            txMsg.set(LONG, MSG_CONTROLLEN, CMSG_HEADER + 8L); // CMSG_SPACE(sizeof(uint16_t))
        } else {
            txMsg.set(LONG, MSG_CONTROLLEN, 0L);
        }
        return NativeUdp.sendmsg(fd, txMsg) >= 0;
    }

    /**
     * Waits until the receive socket is readable, {@link #wakeup} is called, the {@link #doorbellFd} rings, or the
     * timeout passes.
     */
    void await(long timeoutMs) {
        int n = NativeUdp.poll(pollFds, bellsInUse ? 3 : 2, (int) Math.min(Integer.MAX_VALUE, Math.max(0, timeoutMs)));
        if (n > 0 && readable(pollFds, 1)) {
            NativeUdp.read(eventFd, eventRead, 8); // reset the wake-up
        }
        if (n > 0 && bellsInUse && readable(pollFds, 2)) {
            NativeUdp.read(bellFd, eventRead, 8); // and the doorbell
        }
    }

    /**
     * Waits until the receive socket is readable, the {@link #doorbellFd} rings or {@code timeoutNs} passes, to the
     * nanosecond (ppoll), without reading a datagram and without consuming a {@link #wakeup}: for a caller's thread
     * waiting beside the engine's, one at a time.
     */
    void awaitReadable(long timeoutNs) {
        timespec(readableTimeout, timeoutNs);
        boolean bells = bellsInUse;
        if (NativeUdp.ppoll(readablePollFd, bells ? 2 : 1, readableTimeout) > 0 && bells && readable(readablePollFd, 1)) {
            NativeUdp.read(bellFd, readableBellRead, 8); // the doorbell is the ring's: it was rung for this wait
        }
    }

    /**
     * Ends a {@link #receiveBatchWaiting} in progress, or the next one (any thread): rings the {@link #doorbellFd}
     * once it is in use (the waiting receive then polls it: an 8-byte write, and a wake-up that is not synchronous,
     * so the woken thread is not put behind the caller on its core), else sends the receive socket an empty
     * datagram from itself, which {@link #isWakeUp} tells from a packet.
     */
    void wakeReceive() {
        synchronized (wakeLock) {
            if (!closed) {
                if (bellsInUse) {
                    NativeUdp.write(bellFd, eventWrite, 8);
                } else {
                    NativeUdp.sendmsg(mainFd, wakeMsg);
                }
            }
        }
    }

    /** Whether datagram {@code i} of the last batch is a {@link #wakeReceive}: empty, from this socket's address. */
    boolean isWakeUp(int i) {
        return batchLength[i] == 0 && batchPort[i] == port && batchIp[i] == localIp;
    }

    /** Ends an {@link #await} in progress (any thread). */
    void wakeup() {
        synchronized (wakeLock) {
            if (!closed) {
                NativeUdp.write(eventFd, eventWrite, 8);
            }
        }
    }

    void close() {
        synchronized (wakeLock) {
            if (closed) {
                return;
            }
            closed = true;
            NativeUdp.close(eventFd);
            NativeUdp.close(bellFd);
        }
        NativeUdp.close(mainFd);
        for (int s : bySourcePort) {
            if (s != 0) {
                NativeUdp.close(s - 1);
            }
        }
    }
}
