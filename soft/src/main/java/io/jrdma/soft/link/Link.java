package io.jrdma.soft.link;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The UDP link of a soft device: receives RoCEv2 datagrams on {@code <ip>:4791} and sends them from per-QP UDP
 * source ports, as kernel rxe does. {@link #open} picks the implementation: {@link NativeLink} (Linux, through the
 * FFM API: GSO sends of gathered pieces, GRO and {@code recvmmsg} receives) or {@link NioLink} (NIO datagram
 * channels, one packet per call: elsewhere, with {@code -Djrdma.nio=true}, or when the kernel lacks UDP GSO/GRO).
 * {@link FaultyLink} decorates either with injected faults.
 *
 * <p>Every socket is unconnected and has IP_DONTFRAGMENT set, so Linux writes IPv4 ID 0 into the header of a
 * single datagram and IDs 0, 1, 2, ... into the segments of a GSO send (the ICRC covers the ID, and a receiver
 * cannot read it through the socket API). Not thread-safe: one engine thread uses a link at a time; only
 * {@link #wakeup} and {@link #wakeReceive} are called from other threads. No method allocates per packet.
 *
 * <p>The static members are RoCEv2-over-UDP addressing: the port, how rxe derives UDP source ports from flow
 * labels and QPNs, IPv4 address conversions, and the limits of one {@link #sendSegments} call.
 */
public interface Link extends AutoCloseable {

    /** The RoCEv2 UDP destination port (IANA). */
    int ROCE_PORT = 4791;

    /** The lowest UDP source port a flow or QP is given (rdma_flow_label_to_udp_sport, rxe_qp_init_req). */
    int SOURCE_PORT_BASE = 0xC000;

    /** Most datagrams one {@link #receiveBatch} takes. */
    int RX_BATCH = NativeDatagrams.RX_BATCH;

    /**
     * Binds {@code address:port} (port is 4791 except in special setups; 0 picks a free one): a {@link NativeLink}
     * when {@code allowNative} and this process has native sockets (see {@link #nativeUnavailable()}) and the
     * kernel has UDP GRO, else a {@link NioLink}.
     *
     * @throws IllegalArgumentException for an address that is not IPv4
     * @throws UncheckedIOException     when the address cannot be bound
     */
    static Link open(InetAddress address, int port, boolean allowNative) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("only IPv4 addresses are supported for now: " + address);
        }
        if (allowNative && NativeUdp.UNAVAILABLE == null) {
            try {
                return new NativeLink(address, port);
            } catch (NativeUdp.OptionRefused e) {
                // a kernel without UDP GRO: NIO below
            } catch (IOException e) {
                throw cannotBind(address, port, e);
            }
        }
        try {
            return new NioLink(address, port);
        } catch (IOException e) {
            throw cannotBind(address, port, e);
        }
    }

    private static UncheckedIOException cannotBind(InetAddress address, int port, IOException e) {
        return new UncheckedIOException("cannot bind RoCEv2 UDP socket " + address.getHostAddress() + ":" + port
                + " (" + e.getMessage() + ")", e);
    }

    /** Why {@link #open} gives NIO links in this process, or null when it gives native ones where it may. */
    static String nativeUnavailable() {
        return NativeUdp.UNAVAILABLE;
    }

    /** The most bytes one {@link #sendSegments} call may carry in all. */
    static int maxSegmentsBytes() {
        return NativeDatagrams.MAX_DATAGRAM;
    }

    /** The most pieces one {@link #sendSegments} call gathers. */
    static int maxPieces() {
        return NativeDatagrams.MAX_IOV;
    }

    /**
     * The RoCEv2 flow label the kernel derives for a connection that has none (rdma_calc_flow_label): a hash of
     * the local and remote QPNs, so both ends of an RC connection use the same label.
     */
    static int flowLabel(int localQpn, int remoteQpn) {
        long v = (localQpn & 0xFFFFFFL) * (remoteQpn & 0xFFFFFFL);
        v ^= v >>> 20;
        v ^= v >>> 40;
        return (int) (v & 0xFFFFF);
    }

    /** The UDP source port for a flow label (rdma_flow_label_to_udp_sport): 0xC000 | folded low 14 bits. */
    static int sourcePortFor(int flowLabel) {
        int low = flowLabel & 0x3FFF;
        int high = flowLabel & 0xFC000;
        low ^= high >>> 14;
        return SOURCE_PORT_BASE | low;
    }

    /**
     * The UDP source port kernel rxe gives a QP when it is created (rxe_qp_init_req): 0xC000 plus the top 14 bits
     * of {@code hash_32(qpn)} (multiplication by the 32-bit golden ratio). A UD QP keeps it for every datagram; RC
     * and UC replace it with the flow-label port once they have an address vector.
     */
    static int qpSourcePort(int qpn) {
        return SOURCE_PORT_BASE | ((qpn * 0x61C88647) >>> 18);
    }

    /** An IPv4 address as a big-endian int. */
    static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    /** A big-endian int as an IPv4 address. */
    static InetAddress ipv4(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                (byte) ip});
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether this link's sockets are native (GSO sends and GRO receives). */
    boolean isNative();

    /** The bound IPv4 address as a big-endian int. */
    int localIp();

    /** The bound address. */
    InetAddress address();

    /** The bound UDP port. */
    int port();

    /** The receive socket buffer the kernel granted, in bytes. */
    int receiveBufferBytes();

    /**
     * Opens (once) the socket that sends from {@code sourcePort}; returns the port actually used, which is this
     * link's own port when that source port cannot be bound or is below {@link #SOURCE_PORT_BASE}.
     */
    int openSourcePort(int sourcePort);

    /**
     * Gives back one {@link #openSourcePort} of {@code sourcePort} (a port it returned): the socket closes when no
     * QP sends from that port any more, so QPs created and destroyed over a process's life do not keep one socket
     * each. Called under the device lock, as the sends are; the link's own port is never closed.
     */
    void releaseSourcePort(int sourcePort);

    /**
     * A connection to {@code destIp:destPort} is being set up (an RC or UC QP got its address): does now what the
     * first packet there would otherwise do first, such as finding a shared-memory ring ({@link ShmLink}), so that
     * a measured exchange does not pay for it. Called under the device lock, as the sends are. Nothing by default.
     */
    default void prepare(int destIp, int destPort) {
    }

    /**
     * Sends {@code buf} (position to limit, a direct buffer) from {@code sourcePort} to {@code to}.
     *
     * @return true when the kernel took the datagram
     */
    boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to);

    /** The most packets {@link #sendSegments} takes in one call: 1 when it cannot be called (NIO). */
    int maxSegments();

    /**
     * Sends one datagram gathered from {@code count} pieces at native addresses (at most {@link #maxPieces()}); with
     * {@code segment} above 0, a GSO run of packets of that size, the last no longer, at most {@link #maxSegments()}
     * of them and {@link #maxSegmentsBytes()} bytes in all. Only when {@link #maxSegments()} is above 1.
     *
     * @return true when the kernel took it
     */
    boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths, int count,
                         int segment);

    /**
     * Whether a datagram to {@code destIp:destPort} goes through this host's memory to a device that takes packets
     * whose ICRCs the sender left out: the sender may then leave them zero and send with
     * {@link #sendSegmentsWithoutIcrc}. Memory does not corrupt what it carries; a wire does. False by default (and
     * for decorators that change what is sent).
     */
    default boolean icrcOptional(int destIp, int destPort) {
        return false;
    }

    /**
     * {@link #sendSegments} of a datagram whose packets' ICRCs were left out (zero), to a destination for which
     * {@link #icrcOptional} said so just before; the receiver is told not to check them.
     */
    default boolean sendSegmentsWithoutIcrc(int sourcePort, int destIp, int destPort, long[] addresses,
                                            int[] lengths, int count, int segment) {
        throw new UnsupportedOperationException(this + " sends ICRCs");
    }

    /**
     * Receives up to {@code max} datagrams (at least one, at most {@code bufs.length} and {@link #RX_BATCH}),
     * datagram {@code i} into {@code bufs[i]} from its start; the buffers' positions and limits are left as they
     * were. The native link takes them in one system call ({@code recvmmsg}); a caller passes the same array of the
     * same direct buffers each time. Fewer than asked means the socket was drained: no empty receive is needed to
     * find that out. Asking for one when a datagram most likely comes alone spares the receive the attempt at a
     * second one, which then fails.
     *
     * @return how many arrived (0 when none was waiting); see {@link #batchLength}, {@link #batchSenderIp},
     *         {@link #batchSenderPort} and {@link #batchSegmentSize}
     */
    int receiveBatch(ByteBuffer[] bufs, int max);

    /**
     * The receive timeout of {@link #receiveBatchWaiting}, one kernel clock tick (a wait that no datagram ends takes
     * up to two: it ends at the second tick boundary), or 0 when this link cannot wait in a receive (NIO channels)
     * and a waiting caller uses {@link #await} and then receives.
     */
    long receiveWaitNs();

    /**
     * {@link #receiveBatch} that first waits for a datagram (see {@link #receiveWaitNs}), in the same system call:
     * one call where {@link #await} and a receive take two. Only a datagram cuts the wait short, such as
     * {@link #wakeReceive}'s, not {@link #wakeup}. On a link that cannot wait, it does not.
     *
     * @return how many arrived (0 when none came in time)
     */
    int receiveBatchWaiting(ByteBuffer[] bufs, int max);

    /**
     * Lets the next {@link #receiveBatchWaiting} calls wait up to {@code ns} (whole ticks of {@link #receiveWaitNs},
     * at least one; such a wait may take one tick more): a thread with a long wait ahead sleeps through it instead of
     * waking every tick. Nothing on a link that cannot wait.
     */
    void receiveWaitLimit(long ns);

    /** Ends a {@link #receiveBatchWaiting} in progress on another thread, or the next one to start. */
    void wakeReceive();

    /**
     * Whether datagram {@code i} of the last {@link #receiveBatch} is a {@link #wakeReceive} (an empty datagram
     * from this link's own socket), not a packet.
     */
    boolean isWakeUp(int i);

    /** The length of datagram {@code i} of the last {@link #receiveBatch}. */
    int batchLength(int i);

    /** The source IPv4 address of datagram {@code i} of the last {@link #receiveBatch}. */
    int batchSenderIp(int i);

    /** The source UDP port of datagram {@code i} of the last {@link #receiveBatch}. */
    int batchSenderPort(int i);

    /**
     * The GSO segment size of datagram {@code i} of the last {@link #receiveBatch} when it carried a run of
     * packets, or 0 when it was one packet.
     */
    int batchSegmentSize(int i);

    /**
     * Whether datagram {@code i} of the last {@link #receiveBatch} came through this host's memory with its packets'
     * ICRCs left out by the sender ({@link #sendSegmentsWithoutIcrc}): not to be checked. False by default.
     */
    default boolean batchIcrcOmitted(int i) {
        return false;
    }

    /** Blocks until a datagram arrives, {@link #wakeup()} is called, or {@code timeoutMs} passes (0 = no wait). */
    void await(long timeoutMs);

    /**
     * Blocks until a datagram is waiting or {@code timeoutNs} passes (a {@link #wakeup} does not end it), reading
     * nothing: the bounded wait of a caller's thread whose engine passes keep finding nothing to do. Safe beside the
     * engine's use of the link, for one such caller at a time. A link that cannot wait to the nanosecond (NIO) parks
     * the thread for the time instead.
     */
    void awaitReadable(long timeoutNs);

    /** Ends an {@link #await} in progress on another thread. */
    void wakeup();

    /**
     * A caller's thread that polls this link's device, and will look again at once, gives up its core for a moment
     * ({@link Thread#yield}): senders on this host need not wake a thread of the device asleep on the socket
     * meanwhile, since the yielding caller takes what they send. Pair with {@link #yieldEnded}. Nothing by default.
     */
    default void yieldStarted() {
    }

    /**
     * The yield of {@link #yieldStarted} ended: returns whether datagrams wait that senders may have left unannounced
     * during it, which the caller then takes in with a pass of its own. False by default.
     */
    default boolean yieldEnded() {
        return false;
    }

    /**
     * An eventfd that ends this link's waits when another process writes to it (see {@link ShmLink}'s doorbells),
     * or -1 when the link has none (the default). Asking for it puts it in use.
     */
    default int doorbellFd() {
        return -1;
    }

    /** Closes the sockets. */
    @Override
    void close();

    /** How many datagrams a batch receive of at most {@code max} into {@code bufs} asks for. */
    static int batchCount(ByteBuffer[] bufs, int max) {
        return Math.max(1, Math.min(max, Math.min(bufs.length, RX_BATCH)));
    }
}
