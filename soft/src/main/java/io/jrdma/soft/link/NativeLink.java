package io.jrdma.soft.link;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A {@link Link} over native Linux sockets ({@link NativeDatagrams}, through the FFM API): the engine hands the
 * kernel a run of equal-sized packets in one GSO send ({@link #maxSegments()} &gt; 1, {@link #sendSegments}), and a
 * receive returns such a run at once ({@link #batchSegmentSize}), up to {@link #RX_BATCH} datagrams per
 * {@code recvmmsg}. Linux numbers the IPv4 IDs of a GSO send's segments 0, 1, 2, ..., which the sender's ICRCs
 * follow. Made by {@link Link#open} when {@link Link#nativeUnavailable()} is null.
 */
public final class NativeLink implements Link {

    private final InetAddress address;
    private final int localIp;
    private final NativeDatagrams nat;
    private InetSocketAddress lastTo;
    private int lastToIp;

    /** @throws NativeUdp.OptionRefused when the kernel lacks UDP GSO/GRO */
    NativeLink(InetAddress address, int port) throws IOException {
        this.address = address;
        this.localIp = Link.ipv4(address);
        this.nat = new NativeDatagrams(localIp, port, NioLink.SOCKET_BUFFER_BYTES);
    }

    @Override
    public boolean isNative() {
        return true;
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
        return nat.port();
    }

    @Override
    public int receiveBufferBytes() {
        return nat.receiveBufferBytes();
    }

    @Override
    public int openSourcePort(int sourcePort) {
        if (sourcePort < SOURCE_PORT_BASE || sourcePort > 0xFFFF) {
            return nat.port();
        }
        return nat.openSourcePort(sourcePort) ? sourcePort : nat.port();
    }

    @Override
    public void releaseSourcePort(int sourcePort) {
        if (sourcePort != nat.port() && sourcePort >= SOURCE_PORT_BASE && sourcePort <= 0xFFFF) {
            nat.releaseSourcePort(sourcePort);
        }
    }

    @Override
    public boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to) {
        return nat.send(sourcePort, buf, ipv4Of(to), to.getPort());
    }

    /** The IPv4 address of {@code to} as an int, remembered for the last destination (no allocation per send). */
    private int ipv4Of(InetSocketAddress to) {
        if (to != lastTo) {
            lastToIp = Link.ipv4(to.getAddress());
            lastTo = to;
        }
        return lastToIp;
    }

    @Override
    public int maxSegments() {
        return NativeDatagrams.MAX_SEGMENTS;
    }

    @Override
    public boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths,
                                int count, int segment) {
        return nat.sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment);
    }

    @Override
    public int receiveBatch(ByteBuffer[] bufs, int max) {
        return nat.receiveBatch(bufs, max);
    }

    @Override
    public long receiveWaitNs() {
        return nat.receiveWaitNs();
    }

    @Override
    public int receiveBatchWaiting(ByteBuffer[] bufs, int max) {
        return nat.receiveBatchWaiting(bufs, max);
    }

    @Override
    public void receiveWaitLimit(long ns) {
        nat.receiveWaitLimit(ns);
    }

    @Override
    public void wakeReceive() {
        nat.wakeReceive();
    }

    @Override
    public boolean isWakeUp(int i) {
        return nat.isWakeUp(i);
    }

    @Override
    public int batchLength(int i) {
        return nat.batchLength(i);
    }

    @Override
    public int batchSenderIp(int i) {
        return nat.batchSenderIp(i);
    }

    @Override
    public int batchSenderPort(int i) {
        return nat.batchSenderPort(i);
    }

    @Override
    public int batchSegmentSize(int i) {
        return nat.batchSegmentSize(i);
    }

    @Override
    public void await(long timeoutMs) {
        nat.await(timeoutMs);
    }

    @Override
    public void awaitReadable(long timeoutNs) {
        nat.awaitReadable(timeoutNs);
    }

    @Override
    public void wakeup() {
        nat.wakeup();
    }

    @Override
    public int doorbellFd() {
        return nat.doorbellFd();
    }

    @Override
    public void close() {
        nat.close();
    }

    @Override
    public String toString() {
        return "NativeLink[" + address.getHostAddress() + ":" + nat.port() + "]";
    }
}
