package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the shared receive queue tests share: the receiver 127.0.33.1 and the senders 127.0.33.2 and 127.0.33.3,
 * every context driven by the test thread, resources closed after each test, QPs on an SRQ and waits for their
 * completions. The tests are {@link SrqTest}, {@link SrqConcurrencyTest} and {@link SrqVerbsTest}.
 */
abstract class SrqFixture {

    Peer r;
    Peer s1;
    Peer s2;
    final ArrayDeque<AutoCloseable> resources = new ArrayDeque<>();

    @BeforeEach
    void open() {
        r = new Peer("127.0.33.1", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20, Peer.ALL_ACCESS, Peer.defaultCap());
        s1 = new Peer("127.0.33.2", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20, Peer.ALL_ACCESS, Peer.defaultCap());
        s2 = new Peer("127.0.33.3", Threading.INVOKER, NanoClock.SYSTEM, 1 << 20, Peer.ALL_ACCESS, Peer.defaultCap());
    }

    @AfterEach
    void close() throws Exception {
        while (!resources.isEmpty()) {
            resources.pop().close();
        }
        s2.close();
        s1.close();
        r.close();
    }

    <T extends AutoCloseable> T later(T resource) {
        resources.push(resource);
        return resource;
    }

    SharedReceiveQueue srq(int maxWr, int maxSge) {
        return later(r.pd.createSrq(new SrqAttr().maxWr(maxWr).maxSge(maxSge)));
    }

    /** A QP at the receiver that takes its receives from {@code srq}. */
    QueuePair srqQp(SharedReceiveQueue srq) {
        return later(r.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(r.cq).recvCq(r.cq)
                .cap(Peer.defaultCap()).srq(srq)));
    }

    QueuePair qpOn(Peer p, QpCap cap) {
        return later(p.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(p.cq).recvCq(p.cq).cap(cap)));
    }

    static void link(QueuePair x, Peer px, QueuePair y, Peer py) {
        Peer.Link l = new Peer.Link();
        Wiring.connect(x, y, py.ctx, l);
        Wiring.connect(y, x, px.ctx, l);
    }

    void drive() {
        r.ctx.progress();
        s1.ctx.progress();
        s2.ctx.progress();
    }

    List<WorkCompletion> awaitN(CompletionQueue cq, int n) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + Wiring.WAIT_NS;
        while (out.size() < n) {
            drive();
            if (cq.poll(wcs) == 1) {
                out.add(new WorkCompletion().copyFrom(wcs[0]));
            } else if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for completion " + (out.size() + 1) + " of " + n + "; got " + out);
            }
        }
        return out;
    }

    WorkCompletion await(CompletionQueue cq) {
        return awaitN(cq, 1).getFirst();
    }

    void assertQuiet(long ms, CompletionQueue... cqs) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() - end < 0) {
            drive();
            for (CompletionQueue cq : cqs) {
                if (cq.poll(wcs) > 0) {
                    fail("unexpected completion " + wcs[0]);
                }
            }
        }
    }

    static void fill(MemorySegment seg, int seed) {
        for (long i = 0; i < seg.byteSize(); i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7 + (i >>> 8)));
        }
    }

    static SendWr send(Peer p, long wrId, long offset, int length) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(p.addr(offset), length, p.mr.lkey()));
    }

    void postSrqRecv(SharedReceiveQueue srq, long wrId, long offset, int length) {
        srq.postRecv(new RecvWr().wrId(wrId).sg(new Sge(r.addr(offset), length, r.mr.lkey())));
    }
}
