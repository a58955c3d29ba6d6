package io.jrdma.soft.link;

import java.io.IOException;
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
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import jdk.net.ExtendedSocketOptions;

/**
 * A {@link Link} over NIO datagram channels: one packet per system call, a receive channel on
 * {@code <ip>:port} waited on with a selector, and a channel per UDP source port. {@link #sendSegments} cannot be
 * called ({@link #maxSegments()} is 1) and a receive cannot wait ({@link #receiveWaitNs()} is 0). Made by
 * {@link Link#open}.
 */
public final class NioLink implements Link {

    /** Socket buffer size asked for; Linux caps it at net.core.rmem_max / wmem_max. */
    static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private final InetAddress address;
    private final int localIp;
    private final int port;
    private final DatagramChannel main;
    private final DatagramChannel[] bySourcePort = new DatagramChannel[0x10000 - SOURCE_PORT_BASE];
    private final int[] sourcePortUsers = new int[0x10000 - SOURCE_PORT_BASE];
    private final Selector selector;
    private final Consumer<SelectionKey> ignoreKey = key -> { };
    private final int receiveBufferBytes;

    private SocketAddress lastSender;
    private int lastSenderIp;
    private int lastSenderPort;
    private final int[] batchLength = new int[RX_BATCH];
    private final int[] batchIp = new int[RX_BATCH];
    private final int[] batchPort = new int[RX_BATCH];

    NioLink(InetAddress address, int port) throws IOException {
        this.address = address;
        this.localIp = Link.ipv4(address);
        main = open(new InetSocketAddress(address, port));
        try {
            this.port = ((InetSocketAddress) main.getLocalAddress()).getPort();
            receiveBufferBytes = main.getOption(StandardSocketOptions.SO_RCVBUF);
            selector = Selector.open();
            main.register(selector, SelectionKey.OP_READ);
        } catch (IOException | RuntimeException e) {
            closeQuietly(main);
            throw e;
        }
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

    @Override
    public boolean isNative() {
        return false;
    }

    @Override
    public int localIp() {
        return localIp;
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    @Override
    public int openSourcePort(int sourcePort) {
        if (sourcePort < SOURCE_PORT_BASE || sourcePort > 0xFFFF) {
            return port;
        }
        int i = sourcePort - SOURCE_PORT_BASE;
        if (bySourcePort[i] != null) {
            sourcePortUsers[i]++;
            return sourcePort;
        }
        try {
            bySourcePort[i] = open(new InetSocketAddress(address, sourcePort));
            sourcePortUsers[i] = 1;
            return sourcePort;
        } catch (IOException e) {
            return port;
        }
    }

    @Override
    public void releaseSourcePort(int sourcePort) {
        int i = sourcePort - SOURCE_PORT_BASE;
        if (sourcePort == port || i < 0 || i >= bySourcePort.length || bySourcePort[i] == null
                || --sourcePortUsers[i] > 0) {
            return;
        }
        DatagramChannel c = bySourcePort[i];
        bySourcePort[i] = null;
        try {
            c.close();
        } catch (IOException e) {
            // closing a datagram channel does not fail in a way the sender could act on
        }
    }

    @Override
    public boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to) {
        DatagramChannel ch = main;
        if (sourcePort != port && sourcePort >= SOURCE_PORT_BASE && sourcePort <= 0xFFFF) {
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

    /** 1: one packet per send. */
    @Override
    public int maxSegments() {
        return 1;
    }

    /** Not supported: {@link #maxSegments()} is 1. */
    @Override
    public boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths,
                                int count, int segment) {
        throw new UnsupportedOperationException("NIO links send one packet per call");
    }

    /** Receives one datagram into {@code buf} at its position; its sender in the last sender fields; -1 when none. */
    private int receive(ByteBuffer buf) {
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
            lastSenderIp = isa.getAddress() instanceof Inet4Address a ? Link.ipv4(a) : 0;
            lastSenderPort = isa.getPort();
            lastSender = from;
        }
        return buf.position() - start;
    }

    /** One {@link #receive} per datagram, until the socket is empty or {@code max} arrived. */
    @Override
    public int receiveBatch(ByteBuffer[] bufs, int max) {
        int count = Link.batchCount(bufs, max);
        for (int i = 0; i < count; i++) {
            ByteBuffer b = bufs[i];
            int position = b.position();
            int limit = b.limit();
            b.clear();
            int n = receive(b);
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

    /** 0: a waiting caller uses {@link #await}. */
    @Override
    public long receiveWaitNs() {
        return 0;
    }

    /** {@link #receiveBatch}, without a wait. */
    @Override
    public int receiveBatchWaiting(ByteBuffer[] bufs, int max) {
        return receiveBatch(bufs, max);
    }

    /** Nothing: no receive waits. */
    @Override
    public void wakeReceive() {
    }

    @Override
    public boolean isWakeUp(int i) {
        return false;
    }

    @Override
    public int batchLength(int i) {
        return batchLength[i];
    }

    @Override
    public int batchSenderIp(int i) {
        return batchIp[i];
    }

    @Override
    public int batchSenderPort(int i) {
        return batchPort[i];
    }

    @Override
    public int batchSegmentSize(int i) {
        return 0;
    }

    @Override
    public void await(long timeoutMs) {
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

    @Override
    public void receiveWaitLimit(long ns) {
        // a NIO receive cannot wait
    }

    @Override
    public void awaitReadable(long timeoutNs) {
        LockSupport.parkNanos(timeoutNs); // a selector waits to the millisecond only
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public void close() {
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

    @Override
    public String toString() {
        return "NioLink[" + address.getHostAddress() + ":" + port + "]";
    }
}
