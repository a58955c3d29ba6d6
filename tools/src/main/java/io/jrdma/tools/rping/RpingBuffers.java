package io.jrdma.tools.rping;

import io.jrdma.cm.CmId;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * rping's resources on one connection (rping_setup_qp and rping_setup_buffers): a PD, a completion channel, one CQ
 * of 32 entries for both queues, an RC QP (16 sends, 2 receives, 1 SGE) created on the CM id, and its buffers: the
 * 16-byte receive and send buffers ({@code rping_rdma_info}: address, rkey, size, big-endian), the RDMA sink of
 * {@code size} bytes and, on the client, the source buffer.
 */
final class RpingBuffers implements AutoCloseable {

    /** sizeof(struct rping_rdma_info). */
    static final int INFO_BYTES = 16;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int SQ_DEPTH = 16;

    private final Arena arena = Arena.ofShared();
    private final int size;
    private final CmId id;
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemorySegment recvBuf;
    private MemorySegment sendBuf;
    private MemorySegment rdmaBuf;
    private MemorySegment startBuf;
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private MemoryRegion rdmaMr;
    private MemoryRegion startMr;
    private final RecvWr recvWr = new RecvWr();
    private final SendWr sendWr = new SendWr();
    private final SendWr rdmaWr = new SendWr();
    private final Sge rdmaSge = new Sge();
    private long remoteAddr;
    private int remoteRkey;
    private int remoteLen;

    private RpingBuffers(CmId id, int size) {
        this.id = id;
        this.size = size;
    }

    /** Creates the resources on {@code id}'s device and its QP through the CM; the client also gets a source. */
    static RpingBuffers setUp(CmId id, int size, boolean client) {
        RpingBuffers b = new RpingBuffers(id, size);
        try {
            b.create(client);
        } catch (RuntimeException e) {
            b.close();
            throw e;
        }
        return b;
    }

    private void create(boolean client) {
        Context ctx = id.context();
        pd = ctx.allocPd();
        channel = ctx.createCompletionChannel();
        cq = ctx.createCq(SQ_DEPTH * 2, channel);
        cq.requestNotify(false);
        qp = id.createQp(pd, new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq)
                .cap(new QpCap(SQ_DEPTH, 2, 1, 1, 0)));
        recvBuf = arena.allocate(INFO_BYTES, 8);
        sendBuf = arena.allocate(INFO_BYTES, 8);
        rdmaBuf = arena.allocate(size, 8);
        recvMr = pd.registerMemory(recvBuf, Access.LOCAL_WRITE);
        sendMr = pd.registerMemory(sendBuf, 0);
        int remote = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
        rdmaMr = pd.registerMemory(rdmaBuf, remote);
        if (client) {
            startBuf = arena.allocate(size, 8);
            startMr = pd.registerMemory(startBuf, remote);
        }
        recvWr.sg(new Sge(recvBuf.address(), INFO_BYTES, recvMr.lkey()));
        sendWr.opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(sendBuf.address(), INFO_BYTES, sendMr.lkey()));
        rdmaSge.set(rdmaBuf.address(), size, rdmaMr.lkey());
        rdmaWr.sendFlags(SendFlags.SIGNALED).sg(rdmaSge);
    }

    void postRecv() {
        qp.postRecv(recvWr);
    }

    /** Waits up to {@code wait} for a CQ event; acknowledges and re-arms it; the CQ, or null on timeout. */
    CompletionQueue awaitCq(Duration wait) {
        CompletionQueue ev = channel.awaitEvent(wait);
        if (ev == null) {
            return null;
        }
        ev.ackEvents(1);
        ev.requestNotify(false);
        return ev;
    }

    /** server_recv: takes the peer's address, rkey and size from the receive buffer. */
    void takeRemote() {
        remoteAddr = recvBuf.get(BE_LONG, 0);
        remoteRkey = recvBuf.get(BE_INT, 8);
        remoteLen = recvBuf.get(BE_INT, 12);
    }

    long remoteAddr() {
        return remoteAddr;
    }

    int remoteRkey() {
        return remoteRkey;
    }

    int remoteLen() {
        return remoteLen;
    }

    /** The server's RDMA READ of the client's source into the sink. */
    void postRead() {
        if (Integer.compareUnsigned(remoteLen, size) > 0) {
            throw new IllegalStateException("the client's buffer (" + Integer.toUnsignedString(remoteLen)
                    + " bytes) is larger than this server's -S " + size);
        }
        rdmaSge.length(remoteLen);
        rdmaWr.opcode(WrOpcode.RDMA_READ).remote(remoteAddr, remoteRkey);
        qp.postSend(rdmaWr);
    }

    /** The server's RDMA WRITE of the sink's string and its NUL to the client's sink. */
    void postWriteEcho() {
        rdmaSge.length((int) Math.min(size, cStringLength(rdmaBuf) + 1));
        rdmaWr.opcode(WrOpcode.RDMA_WRITE).remote(remoteAddr, remoteRkey);
        qp.postSend(rdmaWr);
    }

    /** The server's "go ahead": the send buffer as it is. */
    void postGoAhead() {
        qp.postSend(sendWr);
    }

    /** rping_format_send and the SEND: the client's source ({@code start}) or sink buffer. */
    void postAdvertise(boolean start) {
        MemorySegment buf = start ? startBuf : rdmaBuf;
        MemoryRegion mr = start ? startMr : rdmaMr;
        sendBuf.set(BE_LONG, 0, buf.address());
        sendBuf.set(BE_INT, 8, mr.rkey());
        sendBuf.set(BE_INT, 12, size);
        qp.postSend(sendWr);
    }

    /** The client's ping text: "rdma-ping-N: " then letters 'A'..'z' from a start that moves each ping, NUL last. */
    void fillStart(int ping) {
        byte[] head = String.format("rdma-ping-%d: ", ping).getBytes(StandardCharsets.US_ASCII);
        int cc = Math.min(head.length, size - 1);
        MemorySegment.copy(head, 0, startBuf, ValueLayout.JAVA_BYTE, 0, cc);
        int c = 65 + ping % 58;
        for (int i = cc; i < size; i++) {
            startBuf.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            if (++c > 122) {
                c = 65;
            }
        }
        startBuf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /** -V: the echoed sink equals the source. */
    boolean echoMatches() {
        return startBuf.mismatch(rdmaBuf) == -1;
    }

    /** The sink's C string. */
    String rdmaString() {
        int n = (int) cStringLength(rdmaBuf);
        byte[] b = new byte[n];
        MemorySegment.copy(rdmaBuf, ValueLayout.JAVA_BYTE, 0, b, 0, n);
        return new String(b, StandardCharsets.US_ASCII);
    }

    private static long cStringLength(MemorySegment s) {
        long n = 0;
        while (n < s.byteSize() && s.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return n;
    }

    @Override
    public void close() {
        if (qp != null) {
            id.destroyQp();
        }
        for (AutoCloseable c : new AutoCloseable[] {startMr, rdmaMr, sendMr, recvMr, cq, channel, pd}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // rping_free_buffers / rping_free_qp do not check either; the process ends next
                }
            }
        }
        arena.close();
    }
}
