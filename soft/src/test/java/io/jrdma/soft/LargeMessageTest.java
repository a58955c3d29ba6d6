package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** 64 MiB messages of every opcode with three SGEs per side, and 1 GiB WRITE and READ at path MTU 4096. */
@Tag("slow")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LargeMessageTest {

    @ParameterizedTest
    @EnumSource(value = WrOpcode.class, names = {"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM",
        "RDMA_READ"})
    void shouldMove64MiBMessages(WrOpcode op) {
        try (Pair pair = Pair.invoker("127.0.10.1", "127.0.10.2", 132L << 20)) {
            RcDataPathTest.transfer(pair, op, 64 << 20, 3);
        }
    }

    @Test
    void shouldWriteAndReadOneGibibyte() {
        long size = 1L << 30;
        Peer.Link link = new Peer.Link();
        link.mtu = Mtu.MTU_4096;
        link.timeout = 18; // 1 s: a shared CI machine may pause this thread; retries are not what is tested here
        try (Pair pair = new Pair("127.0.10.1", "127.0.10.2", Threading.INVOKER, NanoClock.SYSTEM, size,
                Peer.ALL_ACCESS, Peer.defaultCap(), link)) {
            Peer a = pair.a;
            Peer b = pair.b;
            RcDataPathTest.fill(a.buf, 0, size, new java.util.Random(1));
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), (int) (size - 1), a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
            WorkCompletion w = pair.await(a.cq);
            assertEquals(WcStatus.SUCCESS, w.status());
            assertEquals(-1, java.lang.foreign.MemorySegment.mismatch(a.buf, 0, size - 1, b.buf, 0, size - 1));
            a.buf.fill((byte) 0);
            a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(a.addr(0), (int) (size - 1), a.mr.lkey())).remoteAddr(b.addr(0)).rkey(b.mr.rkey()));
            WorkCompletion r = pair.await(a.cq);
            assertEquals(WcStatus.SUCCESS, r.status());
            assertEquals((int) (size - 1), r.byteLen());
            assertEquals(-1, java.lang.foreign.MemorySegment.mismatch(a.buf, 0, size - 1, b.buf, 0, size - 1));
        }
    }
}
