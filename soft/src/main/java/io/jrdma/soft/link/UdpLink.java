package io.jrdma.soft.link;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;
import jdk.net.ExtendedSocketOptions;

/**
 * The UDP link of a soft device: receives RoCEv2 datagrams on {@code <ip>:4791} and sends them from per-QP UDP
 * source ports, as kernel rxe does.
 *
 * <p>Every socket is unconnected and has IP_DONTFRAGMENT set, so Linux writes IPv4 ID 0 into the header (the
 * ICRC covers the ID, and a receiver cannot read it through the socket API). Not thread-safe: one engine thread
 * uses it at a time. Not final so that {@link FaultyLink} can damage what it sends; a device without faults uses
 * this class itself.
 *
 * <p>On Linux the sockets are native ({@link NativeDatagrams}, through the FFM API): the engine can then hand the
 * kernel a run of equal-sized packets in one GSO send ({@link #maxSegments()} &gt; 1, {@link #sendSegments}), and
 * a receive returns such a run at once ({@link #lastSegmentSize()}). Linux numbers the IPv4 IDs of a GSO send's
 * segments 0, 1, 2, ..., which the sender's ICRCs follow. Elsewhere, with {@code -Djrdma.nio=true}, or when the
 * kernel lacks UDP GSO/GRO, NIO datagram channels carry one packet per call.
 */
public class UdpLink implements AutoCloseable {

    /** The RoCEv2 UDP destination port (IANA). */
    public static final int ROCE_PORT = 4791;

    /** Socket buffer size asked for; Linux caps it at net.core.rmem_max / wmem_max. */
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private static final int SOURCE_PORT_BASE = 0xC000;

    private final InetAddress address;
    private final int localIp;
    private final int port;
    private final NativeDatagrams nat; // null: NIO channels
    private final DatagramChannel main;
    private final DatagramChannel[] bySourcePort;
    private final Selector selector;
    private final Consumer<SelectionKey> ignoreKey = key -> { };
    private final int receiveBufferBytes;

    private SocketAddress lastSender;
    private int lastSenderIp;
    private int lastSenderPort;
    // the NIO form of a batch receive
    private final int[] batchLength = new int[RX_BATCH];
    private final int[] batchIp = new int[RX_BATCH];
    private final int[] batchPort = new int[RX_BATCH];

    /** Most datagrams one {@link #receiveBatch} takes. */
    public static final int RX_BATCH = NativeDatagrams.RX_BATCH;

    /** Binds {@code address:port} (port is 4791 except in special setups; 0 picks a free one). */
    public UdpLink(InetAddress address, int port) {
        this(address, port, true);
    }

    /**
     * Binds {@code address:port}, with native sockets when {@code allowNative} and this platform has them (see
     * {@link #nativeUnavailable()}), else NIO channels.
     */
    protected UdpLink(InetAddress address, int port, boolean allowNative) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("only IPv4 addresses are supported for now: " + address);
        }
        this.address = address;
        this.localIp = ipv4(address);
        NativeDatagrams n = null;
        if (allowNative && NativeUdp.UNAVAILABLE == null) {
            try {
                n = new NativeDatagrams(localIp, port, SOCKET_BUFFER_BYTES);
            } catch (NativeUdp.OptionRefused e) {
                n = null; // a kernel without UDP GRO: NIO below
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind RoCEv2 UDP socket " + address.getHostAddress() + ":"
                        + port + " (" + e.getMessage() + ")", e);
            }
        }
        nat = n;
        if (n != null) {
            this.port = n.port();
            receiveBufferBytes = n.receiveBufferBytes();
            main = null;
            bySourcePort = null;
            selector = null;
            return;
        }
        bySourcePort = new DatagramChannel[0x4000];
        try {
            main = open(new InetSocketAddress(address, port));
            this.port = ((InetSocketAddress) main.getLocalAddress()).getPort();
            receiveBufferBytes = main.getOption(StandardSocketOptions.SO_RCVBUF);
            selector = Selector.open();
            main.register(selector, SelectionKey.OP_READ);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind RoCEv2 UDP socket " + address.getHostAddress() + ":" + port
                    + " (" + e.getMessage() + ")", e);
        }
    }

    /** Why this process uses NIO channels instead of native sockets, or null when it uses native ones. */
    public static String nativeUnavailable() {
        return NativeUdp.UNAVAILABLE;
    }

    /** Whether this link's sockets are native (GSO sends and GRO receives). */
    public boolean isNative() {
        return nat != null;
    }

    /**
     * The most packets {@link #sendSegments} takes in one call: 1 when sends are one packet each (NIO, or a link
     * that inspects every packet, such as {@link FaultyLink}).
     */
    public int maxSegments() {
        return nat == null ? 1 : NativeDatagrams.MAX_SEGMENTS;
    }

    /** The most bytes one {@link #sendSegments} call may carry in all. */
    public static int maxSegmentsBytes() {
        return NativeDatagrams.MAX_DATAGRAM;
    }

    /**
     * Sends one datagram gathered from {@code count} pieces at native addresses (at most {@link #maxPieces()}); with
     * {@code segment} above 0, a GSO run of packets of that size, the last no longer (see {@link NativeDatagrams}).
     * Only when {@link #maxSegments()} is above 1.
     *
     * @return true when the kernel took it
     */
    public boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths,
                                int count, int segment) {
        return nat.sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment);
    }

    /** The most pieces one {@link #sendSegments} call gathers. */
    public static int maxPieces() {
        return NativeDatagrams.MAX_IOV;
    }

    /**
     * The GSO segment size of the last datagram received when it carried a run of packets (each that long, the
     * last possibly shorter), or 0 when it was one packet.
     */
    public int lastSegmentSize() {
        return nat == null ? 0 : nat.lastSegmentSize();
    }

    private static DatagramChannel open(InetSocketAddress bind) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
            ch.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            ch.bind(bind);
            ch.configureBlocking(false);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** The bound IPv4 address as a big-endian int. */
    public int localIp() {
        return localIp;
    }

    /** The bound address. */
    public InetAddress address() {
        return address;
    }

    /** The bound UDP port. */
    public int port() {
        return port;
    }

    /** The receive socket buffer the kernel granted, in bytes. */
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    /**
     * The RoCEv2 flow label the kernel derives for a connection that has none (rdma_calc_flow_label): a hash of
     * the local and remote QPNs, so both ends of an RC connection use the same label.
     */
    public static int flowLabel(int localQpn, int remoteQpn) {
        long v = (localQpn & 0xFFFFFFL) * (remoteQpn & 0xFFFFFFL);
        v ^= v >>> 20;
        v ^= v >>> 40;
        return (int) (v & 0xFFFFF);
    }

    /** The UDP source port for a flow label (rdma_flow_label_to_udp_sport): 0xC000 | folded low 14 bits. */
    public static int sourcePortFor(int flowLabel) {
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
    public static int qpSourcePort(int qpn) {
        return SOURCE_PORT_BASE | ((qpn * 0x61C88647) >>> 18);
    }

    /**
     * Opens (once) the channel that sends from {@code sourcePort}; returns the port actually used, which is this
     * link's own port when that source port cannot be bound.
     */
    public int openSourcePort(int sourcePort) {
        if (sourcePort < SOURCE_PORT_BASE || sourcePort > 0xFFFF) {
            return port;
        }
        if (nat != null) {
            return nat.openSourcePort(sourcePort) ? sourcePort : port;
        }
        int i = sourcePort - SOURCE_PORT_BASE;
        if (bySourcePort[i] != null) {
            return sourcePort;
        }
        try {
            bySourcePort[i] = open(new InetSocketAddress(address, sourcePort));
            return sourcePort;
        } catch (IOException e) {
            return port;
        }
    }

    /**
     * Receives one datagram into {@code buf} at its position (non-blocking).
     *
     * @return the datagram length, or -1 when none is waiting
     */
    public int receive(ByteBuffer buf) {
        if (nat != null) {
            int n = nat.receive(buf);
            if (n >= 0) {
                lastSenderIp = nat.lastSenderIp();
                lastSenderPort = nat.lastSenderPort();
            }
            return n;
        }
        int start = buf.position();
        SocketAddress from;
        try {
            from = main.receive(buf);
        } catch (IOException e) {
            return -1;
        }
        if (from == null) {
            return -1;
        }
        if (from != lastSender) { // the JDK reuses the sender object while the sender stays the same
            InetSocketAddress isa = (InetSocketAddress) from;
            lastSenderIp = isa.getAddress() instanceof Inet4Address a ? ipv4(a) : 0;
            lastSenderPort = isa.getPort();
            lastSender = from;
        }
        return buf.position() - start;
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
    public int receiveBatch(ByteBuffer[] bufs, int max) {
        if (nat != null) {
            return nat.receiveBatch(bufs, max);
        }
        int count = batchCount(bufs, max);
        for (int i = 0; i < count; i++) {
            ByteBuffer b = bufs[i];
            int position = b.position();
            int limit = b.limit();
            b.clear();
            int n = receive(b); // overridable: a fault-injecting link acts here
            b.limit(limit).position(position);
            if (n < 0) {
                return i;
            }
            batchLength[i] = n;
            batchIp[i] = lastSenderIp;
            batchPort[i] = lastSenderPort;
        }
        return count;
    }

    /**
     * The receive timeout of {@link #receiveBatchWaiting}, one kernel clock tick (a wait that no datagram ends takes
     * up to two: it ends at the second tick boundary), or 0 when this link cannot wait in a receive (NIO channels)
     * and a waiting caller uses {@link #await} and then receives.
     */
    public long receiveWaitNs() {
        return nat != null ? nat.receiveWaitNs() : 0;
    }

    /**
     * {@link #receiveBatch} that first waits for a datagram (see {@link #receiveWaitNs}), in the same system call:
     * one call where {@link #await} and a receive take two. Only a datagram cuts the wait short, such as
     * {@link #wakeReceive}'s, not {@link #wakeup}. On a link that cannot wait, it does not.
     *
     * @return how many arrived (0 when none came in time)
     */
    public int receiveBatchWaiting(ByteBuffer[] bufs, int max) {
        return nat != null ? nat.receiveBatchWaiting(bufs, max) : receiveBatch(bufs, max);
    }

    /** How many datagrams a batch receive of at most {@code max} into {@code bufs} asks for. */
    static int batchCount(ByteBuffer[] bufs, int max) {
        return Math.max(1, Math.min(max, Math.min(bufs.length, RX_BATCH)));
    }

    /** Ends a {@link #receiveBatchWaiting} in progress on another thread, or the next one to start. */
    public void wakeReceive() {
        if (nat != null) {
            nat.wakeReceive();
        }
    }

    /**
     * Whether datagram {@code i} of the last {@link #receiveBatch} is a {@link #wakeReceive} (an empty datagram
     * from this link's own socket), not a packet.
     */
    public boolean isWakeUp(int i) {
        return nat != null && nat.isWakeUp(i);
    }

    /** The length of datagram {@code i} of the last {@link #receiveBatch}. */
    public int batchLength(int i) {
        return nat != null ? nat.batchLength(i) : batchLength[i];
    }

    /** The source IPv4 address of datagram {@code i} of the last {@link #receiveBatch}. */
    public int batchSenderIp(int i) {
        return nat != null ? nat.batchSenderIp(i) : batchIp[i];
    }

    /** The source UDP port of datagram {@code i} of the last {@link #receiveBatch}. */
    public int batchSenderPort(int i) {
        return nat != null ? nat.batchSenderPort(i) : batchPort[i];
    }

    /**
     * The GSO segment size of datagram {@code i} of the last {@link #receiveBatch} when it carried a run of
     * packets, or 0 when it was one packet.
     */
    public int batchSegmentSize(int i) {
        return nat != null ? nat.batchSegmentSize(i) : 0;
    }

    /** The source IPv4 address of the last datagram received. */
    public int lastSenderIp() {
        return lastSenderIp;
    }

    /** The source UDP port of the last datagram received. */
    public int lastSenderPort() {
        return lastSenderPort;
    }

    /**
     * Sends {@code buf} (position to limit) from {@code sourcePort} to {@code to}.
     *
     * @return true when the kernel took the datagram
     */
    public boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to) {
        if (nat != null) {
            return nat.send(sourcePort, buf, ipv4Of(to), to.getPort());
        }
        DatagramChannel ch = main;
        if (sourcePort != port) {
            DatagramChannel c = bySourcePort[sourcePort - SOURCE_PORT_BASE];
            if (c != null) {
                ch = c;
            }
        }
        try {
            return ch.send(buf, to) > 0 || !buf.hasRemaining();
        } catch (IOException e) {
            return false;
        }
    }

    /** Blocks until a datagram arrives, {@link #wakeup()} is called, or {@code timeoutMs} passes (0 = no wait). */
    public void await(long timeoutMs) {
        if (nat != null) {
            nat.await(timeoutMs);
            return;
        }
        try {
            if (timeoutMs <= 0) {
                selector.selectNow(ignoreKey);
            } else {
                selector.select(ignoreKey, timeoutMs);
            }
        } catch (IOException e) {
            // a failed wait is a spurious wake-up: the caller polls again
        }
    }

    /** Ends an {@link #await} in progress on another thread. */
    public void wakeup() {
        if (nat != null) {
            nat.wakeup();
            return;
        }
        selector.wakeup();
    }

    private InetSocketAddress lastTo;
    private int lastToIp;

    /** The IPv4 address of {@code to} as an int, remembered for the last destination (no allocation per send). */
    private int ipv4Of(InetSocketAddress to) {
        if (to != lastTo) {
            lastToIp = ipv4(to.getAddress());
            lastTo = to;
        }
        return lastToIp;
    }

    /** An IPv4 address as a big-endian int. */
    public static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    /** A big-endian int as an IPv4 address. */
    public static InetAddress ipv4(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                (byte) ip});
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (nat != null) {
            nat.close();
            return;
        }
        closeQuietly(main);
        for (DatagramChannel c : bySourcePort) {
            if (c != null) {
                closeQuietly(c);
            }
        }
        try {
            selector.close();
        } catch (IOException e) {
            // nothing left to release
        }
    }

    private static void closeQuietly(DatagramChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing a UDP channel cannot lose data
        }
    }
}
