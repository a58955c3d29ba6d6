package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.fail;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One end of a UC or UD test: a soft device (invoker threading) on its own address with a PD, a CQ, a buffer, an MR
 * and a QP of the given type; plus bounded waits that drive every peer of a test.
 */
final class UnreliablePeer implements AutoCloseable {

    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);
    static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    final SoftContext ctx;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final Arena arena = Arena.ofShared();
    final MemorySegment buf;
    final MemoryRegion mr;
    final QueuePair qp;
    private final ArrayDeque<AutoCloseable> extra = new ArrayDeque<>();

    /** A peer with a 4096-byte active MTU (loopback) unless {@code linkMtu} says otherwise (0: the interface's). */
    UnreliablePeer(String ip, QpType type, long bufBytes, int linkMtu) {
        ctx = SoftDevice.builder().name("u-" + ip).address(ip).threading(Threading.INVOKER).linkMtu(linkMtu).build()
                .open();
        pd = ctx.allocPd();
        cq = ctx.createCq(1024);
        buf = arena.allocate(Math.max(1, bufBytes), 4096);
        mr = pd.registerMemory(buf, ACCESS);
        qp = pd.createQp(new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq).cap(cap()));
    }

    static QpCap cap() {
        return new QpCap().maxSendWr(64).maxRecvWr(64).maxSendSge(4).maxRecvSge(4).maxInlineData(64);
    }

    /** Closes {@code c} before the peer's own resources; returns it. */
    <T extends AutoCloseable> T later(T c) {
        extra.push(c);
        return c;
    }

    long addr(long off) {
        return mr.address() + off;
    }

    Sge sge(long off, int len) {
        return new Sge(addr(off), len, mr.lkey());
    }

    long count(Counter c) {
        return ctx.counters().get(c);
    }

    AhAttr routeTo(UnreliablePeer remote) {
        return new AhAttr().isGlobal(true).dgid(remote.ctx.queryGid(1, 1)).sgidIndex(1).portNum(1).hopLimit(64);
    }

    AddressHandle ahTo(UnreliablePeer remote) {
        return later(pd.createAh(routeTo(remote)));
    }

    /** RESET -> INIT -> RTR -> RTS for UC, aimed at {@code remote}'s QP. */
    void connectUc(UnreliablePeer remote, Mtu mtu, int psn, int qpAccess) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(qpAccess),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(remote.qp.qpNum()).rqPsn(psn)
                .ahAttr(routeTo(remote)), EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(psn), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
    }

    /** RESET -> INIT (with {@code qkey}) -> RTR -> RTS for UD. */
    void readyUd(int qkey, int sqPsn) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        qp.modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.SQ_PSN));
    }

    static void move(QueuePair qp, QpState state) {
        qp.modify(new QpAttr().qpState(state), EnumSet.of(QpAttrMask.STATE));
    }

    // ------------------------------------------------------------------------------------------------- waits

    static void drive(UnreliablePeer... peers) {
        for (UnreliablePeer p : peers) {
            p.ctx.progress();
        }
    }

    /** Polls {@code cq} until {@code n} completions arrived, driving every peer; fails after {@link #WAIT_NS}. */
    static List<WorkCompletion> awaitN(CompletionQueue cq, int n, UnreliablePeer... peers) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + WAIT_NS;
        while (out.size() < n) {
            drive(peers);
            if (cq.poll(wcs) == 1) {
                out.add(new WorkCompletion().copyFrom(wcs[0]));
            } else if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for completion " + (out.size() + 1) + " of " + n + "; got " + out);
            }
        }
        return out;
    }

    static WorkCompletion await(CompletionQueue cq, UnreliablePeer... peers) {
        return awaitN(cq, 1, peers).getFirst();
    }

    /** Drives every peer for {@code ms} and asserts that {@code cq} produced nothing. */
    static void assertNoCompletion(CompletionQueue cq, long ms, UnreliablePeer... peers) {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() - end < 0) {
            drive(peers);
            if (cq.poll(wcs) > 0) {
                fail("unexpected completion " + wcs[0]);
            }
        }
    }

    /** Drives every peer until {@code c} of {@code p} reached {@code value}; fails after {@link #WAIT_NS}. */
    static void awaitCounter(UnreliablePeer p, Counter c, long value, UnreliablePeer... peers) {
        long deadline = System.nanoTime() + WAIT_NS;
        while (p.count(c) < value) {
            if (System.nanoTime() - deadline > 0) {
                fail(c + " stayed at " + p.count(c) + ", expected " + value + "; " + p.ctx.counters());
            }
            drive(peers);
        }
    }

    @Override
    public void close() {
        while (!extra.isEmpty()) {
            try {
                extra.pop().close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        qp.close();
        mr.close();
        cq.close();
        pd.close();
        ctx.close();
        arena.close();
    }
}
