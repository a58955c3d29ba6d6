package io.jrdma.soft.link;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A {@link Link} over another that passes every call through to it, for the decorators ({@link FaultyLink},
 * {@link ShmLink}) to override only what they change. The inner link is the decorator's: closing it closes the
 * inner one.
 */
public abstract class ForwardingLink implements Link {

    /** The link the calls go through to. */
    protected final Link inner;

    protected ForwardingLink(Link inner) {
        this.inner = Objects.requireNonNull(inner);
    }

    @Override
    public boolean isNative() {
        return inner.isNative();
    }

    @Override
    public int localIp() {
        return inner.localIp();
    }

    @Override
    public InetAddress address() {
        return inner.address();
    }

    @Override
    public int port() {
        return inner.port();
    }

    @Override
    public int receiveBufferBytes() {
        return inner.receiveBufferBytes();
    }

    @Override
    public int openSourcePort(int sourcePort) {
        return inner.openSourcePort(sourcePort);
    }

    @Override
    public void releaseSourcePort(int sourcePort) {
        inner.releaseSourcePort(sourcePort);
    }

    @Override
    public void prepare(int destIp, int destPort) {
        inner.prepare(destIp, destPort);
    }

    @Override
    public boolean send(int sourcePort, ByteBuffer buf, InetSocketAddress to) {
        return inner.send(sourcePort, buf, to);
    }

    @Override
    public int maxSegments() {
        return inner.maxSegments();
    }

    @Override
    public boolean sendSegments(int sourcePort, int destIp, int destPort, long[] addresses, int[] lengths, int count,
                                int segment) {
        return inner.sendSegments(sourcePort, destIp, destPort, addresses, lengths, count, segment);
    }

    @Override
    public int receiveBatch(ByteBuffer[] bufs, int max) {
        return inner.receiveBatch(bufs, max);
    }

    @Override
    public long receiveWaitNs() {
        return inner.receiveWaitNs();
    }

    @Override
    public int receiveBatchWaiting(ByteBuffer[] bufs, int max) {
        return inner.receiveBatchWaiting(bufs, max);
    }

    @Override
    public void receiveWaitLimit(long ns) {
        inner.receiveWaitLimit(ns);
    }

    @Override
    public void wakeReceive() {
        inner.wakeReceive();
    }

    @Override
    public boolean isWakeUp(int i) {
        return inner.isWakeUp(i);
    }

    @Override
    public int batchLength(int i) {
        return inner.batchLength(i);
    }

    @Override
    public int batchSenderIp(int i) {
        return inner.batchSenderIp(i);
    }

    @Override
    public int batchSenderPort(int i) {
        return inner.batchSenderPort(i);
    }

    @Override
    public int batchSegmentSize(int i) {
        return inner.batchSegmentSize(i);
    }

    /** What a peer sent is as the inner link took it in; what this link sends keeps its ICRCs (the default). */
    @Override
    public boolean batchIcrcOmitted(int i) {
        return inner.batchIcrcOmitted(i);
    }

    @Override
    public void await(long timeoutMs) {
        inner.await(timeoutMs);
    }

    @Override
    public void awaitReadable(long timeoutNs) {
        inner.awaitReadable(timeoutNs);
    }

    @Override
    public void wakeup() {
        inner.wakeup();
    }

    @Override
    public void yieldStarted() {
        inner.yieldStarted();
    }

    @Override
    public boolean yieldEnded() {
        return inner.yieldEnded();
    }

    @Override
    public int doorbellFd() {
        return inner.doorbellFd();
    }

    @Override
    public void close() {
        inner.close();
    }
}
