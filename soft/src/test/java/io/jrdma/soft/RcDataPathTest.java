package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RC SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM and READ between two soft devices on 127.0.1.1 and 127.0.1.2,
 * every size class around the path MTU (1024), with three SGEs on each side where the operation has a list there;
 * data checked byte for byte, each completion's fields checked, and each signaled request completing exactly once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RcDataPathTest {

    private static final int MTU = 1024;
    private static final long BUF = 4L << 20;
    private static Pair pair;
    private static final Random RANDOM = new Random(42);
    private static long wrIds = 1000;

    @BeforeAll
    static void connect() {
        pair = Pair.invoker("127.0.1.1", "127.0.1.2", BUF);
    }

    @AfterAll
    static void close() {
        pair.close();
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (WrOpcode op : new WrOpcode[] {WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
            WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ}) {
            for (int size : new int[] {0, 1, MTU - 1, MTU, MTU + 1, 3 * MTU + 17, 1 << 20}) {
                out.add(Arguments.of(op, size));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} of {1} bytes")
    @MethodSource("cases")
    void shouldMoveDataAndCompleteExactlyOnce(WrOpcode op, int size) {
        transfer(pair, op, size, 3);
    }

    /** Splits {@code size} bytes into {@code parts} uneven SGEs starting at {@code base}, with gaps between. */
    static Sge[] sges(Peer p, long base, int size, int parts) {
        if (size == 0) {
            return new Sge[0];
        }
        int n = Math.min(parts, size);
        Sge[] out = new Sge[n];
        long at = base;
        int left = size;
        for (int i = 0; i < n; i++) {
            int len = i == n - 1 ? left : Math.max(1, left / (n - i) - 7 * i);
            out[i] = new Sge(p.addr(at), len, p.mr.lkey());
            at += len + 64 + i;
            left -= len;
        }
        return out;
    }

    static void fill(MemorySegment s, long off, long len, Random r) {
        byte[] chunk = new byte[(int) Math.min(len, 1 << 16)];
        for (long done = 0; done < len; done += chunk.length) {
            r.nextBytes(chunk);
            int n = (int) Math.min(chunk.length, len - done);
            MemorySegment.copy(chunk, 0, s, ValueLayout.JAVA_BYTE, off + done, n);
        }
    }

    /** The bytes a scatter/gather list names, concatenated. */
    static byte[] gathered(Peer p, Sge[] list, int size) {
        byte[] out = new byte[size];
        int at = 0;
        for (Sge s : list) {
            int n = Math.min(s.length(), size - at);
            MemorySegment.copy(p.buf, ValueLayout.JAVA_BYTE, s.addr() - p.mr.address(), out, at, n);
            at += n;
        }
        return out;
    }

    static byte[] contiguous(Peer p, long off, int size) {
        byte[] out = new byte[size];
        MemorySegment.copy(p.buf, ValueLayout.JAVA_BYTE, off, out, 0, size);
        return out;
    }

    static void transfer(Pair pair, WrOpcode op, int size, int parts) {
        Peer a = pair.a;
        Peer b = pair.b;
        fill(a.buf, 0, a.buf.byteSize(), RANDOM);
        fill(b.buf, 0, b.buf.byteSize(), RANDOM);
        long wrId = wrIds++;
        int imm = 0x5A000000 | size;
        boolean needsRecv = op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.RDMA_WRITE_WITH_IMM;
        Sge[] local = sges(a, 128, size, parts);
        Sge[] remote = sges(b, 256, size + 5, parts); // the receive list has 5 bytes to spare
        long remoteOffset = 1000;
        if (needsRecv) {
            b.qp.postRecv(new RecvWr().wrId(wrId + 1_000_000).sg(op == WrOpcode.RDMA_WRITE_WITH_IMM ? new Sge[0]
                    : remote));
        }
        SendWr wr = new SendWr().wrId(wrId).opcode(op).sendFlags(SendFlags.SIGNALED).sg(local).immData(imm)
                .remoteAddr(b.addr(remoteOffset)).rkey(b.mr.rkey());
        byte[] expected = op == WrOpcode.RDMA_READ ? contiguous(b, remoteOffset, size) : gathered(a, local, size);
        a.qp.postSend(wr);

        WorkCompletion wc = pair.await(a.cq);
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(wrId, wc.wrId());
        assertEquals(op.completionOpcode(), wc.opcode());
        assertEquals(a.qp.qpNum(), wc.qpNum());
        if (op == WrOpcode.RDMA_READ) {
            assertEquals(size, wc.byteLen());
        }
        if (needsRecv) {
            WorkCompletion rc = pair.await(b.cq);
            assertEquals(WcStatus.SUCCESS, rc.status(), rc.toString());
            assertEquals(wrId + 1_000_000, rc.wrId());
            assertEquals(op == WrOpcode.RDMA_WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV,
                    rc.opcode());
            assertEquals(size, rc.byteLen());
            assertEquals(b.qp.qpNum(), rc.qpNum());
            assertEquals(a.qp.qpNum(), rc.srcQp());
            boolean withImm = op != WrOpcode.SEND;
            assertEquals(withImm, (rc.wcFlags() & WcFlags.WITH_IMM) != 0);
            if (withImm) {
                assertEquals(imm, rc.immData());
            }
        }
        byte[] actual = switch (op) {
            case SEND, SEND_WITH_IMM -> gathered(b, remote, size);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> contiguous(b, remoteOffset, size);
            case RDMA_READ -> gathered(a, local, size);
            default -> throw new IllegalArgumentException();
        };
        assertTrue(java.util.Arrays.equals(expected, actual), "payload differs for " + op + " of " + size);
        pair.assertNoCompletion(a.cq, TimeUnit.MILLISECONDS.toNanos(5));
        pair.assertNoCompletion(b.cq, TimeUnit.MILLISECONDS.toNanos(5));
    }

    @Test
    void shouldCompleteOnlySignaledRequests() {
        Peer a = pair.a;
        Peer b = pair.b;
        SendWr unsignaled = new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(0)
                .sg(new Sge(a.addr(0), 4000, a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey());
        SendWr signaled = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(a.addr(8192), 100, a.mr.lkey())).remoteAddr(b.addr(8192)).rkey(b.mr.rkey());
        unsignaled.next(signaled);
        a.qp.postSend(unsignaled);
        WorkCompletion wc = pair.await(a.cq);
        assertEquals(2, wc.wrId(), "only the signaled WR completes");
        assertEquals(WcStatus.SUCCESS, wc.status());
        pair.assertNoCompletion(a.cq, TimeUnit.MILLISECONDS.toNanos(20));
        assertEquals(-1, MemorySegment.mismatch(a.buf, 0, 4000, b.buf, 0, 4000), "the unsignaled write landed");
    }

    @Test
    void shouldSendInlineDataWithoutTouchingTheBufferAfterPost() {
        Peer a = pair.a;
        Peer b = pair.b;
        a.buf.asSlice(0, 100).fill((byte) 7);
        b.qp.postRecv(new RecvWr().wrId(5).sg(new Sge(b.addr(0), 200, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(6).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                .sg(new Sge(a.addr(0), 100, a.mr.lkey())));
        a.buf.asSlice(0, 100).fill((byte) 9); // inline data was copied at post time
        assertEquals(WcStatus.SUCCESS, pair.await(a.cq).status());
        WorkCompletion rc = pair.await(b.cq);
        assertEquals(100, rc.byteLen());
        for (int i = 0; i < 100; i++) {
            assertEquals(7, b.buf.get(ValueLayout.JAVA_BYTE, i));
        }
    }

    @Test
    void shouldKeepManyRequestsInFlightInOrder() {
        Peer a = pair.a;
        Peer b = pair.b;
        int n = 48;
        for (int i = 0; i < n; i++) {
            b.qp.postRecv(new RecvWr().wrId(i).sg(new Sge(b.addr(i * 4096L), 4096, b.mr.lkey())));
        }
        fill(a.buf, 0, n * 3000L, RANDOM);
        SendWr first = null;
        SendWr prev = null;
        for (int i = 0; i < n; i++) {
            SendWr wr = new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(i * 3000L), 3000 - i, a.mr.lkey()));
            if (prev == null) {
                first = wr;
            } else {
                prev.next(wr);
            }
            prev = wr;
        }
        a.qp.postSend(first);
        List<WorkCompletion> sends = pair.awaitN(a.cq, n);
        List<WorkCompletion> recvs = pair.awaitN(b.cq, n);
        for (int i = 0; i < n; i++) {
            assertEquals(i, sends.get(i).wrId(), "send completions in posting order");
            assertEquals(i, recvs.get(i).wrId(), "receives consumed in posting order");
            assertEquals(3000 - i, recvs.get(i).byteLen());
            assertEquals(-1, MemorySegment.mismatch(a.buf, i * 3000L, i * 3000L + 3000 - i, b.buf, i * 4096L,
                    i * 4096L + 3000 - i));
        }
    }
}
