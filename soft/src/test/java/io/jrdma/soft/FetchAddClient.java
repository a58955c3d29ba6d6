package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A soft device with several RC QPs that all FETCH_AND_ADD one remote counter, keeping up to {@link #DEPTH} atomics
 * outstanding per QP, and returning every original value it got. Used by {@link MultiProcessAtomicTest} in the test
 * JVM and, through {@link AtomicClientMain}, in a child process.
 */
final class FetchAddClient implements AutoCloseable {

    static final int DEPTH = 4;
    static final int PSN = 0xFFFFF0; // across the 24-bit wrap

    final SoftContext ctx;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final Arena arena = Arena.ofShared();
    final MemorySegment results;
    final MemoryRegion mr;
    final QueuePair[] qps;
    private final int perQp;

    FetchAddClient(String ip, int nQps, int perQp) {
        this.perQp = perQp;
        ctx = SoftDevice.builder().name("faa-" + ip).address(ip).threading(Threading.DEDICATED).build().open();
        pd = ctx.allocPd();
        cq = ctx.createCq(nQps * DEPTH * 2);
        results = arena.allocate(8L * nQps * perQp, 8);
        mr = pd.registerMemory(results, Access.LOCAL_WRITE);
        qps = new QueuePair[nQps];
        for (int i = 0; i < nQps; i++) {
            qps[i] = createQp(pd, cq);
        }
    }

    static QueuePair createQp(ProtectionDomain pd, CompletionQueue cq) {
        return pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq).cap(
                new io.jrdma.verbs.QpCap().maxSendWr(DEPTH * 2).maxRecvWr(1).maxSendSge(1).maxRecvSge(1)));
    }

    /** INIT, RTR, RTS toward {@code remoteQpn} at {@code gid}; the QP takes remote atomics. */
    static void connect(QueuePair qp, int remoteQpn, Gid gid) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Access.REMOTE_ATOMIC),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(remoteQpn).rqPsn(PSN)
                        .maxDestRdAtomic(DEPTH).minRnrTimer(1)
                        .ahAttr(new AhAttr().isGlobal(true).dgid(gid).sgidIndex(1).portNum(1)),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(PSN).timeout(14).retryCnt(7).rnrRetry(7)
                        .maxRdAtomic(DEPTH),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                        QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    /** "gid qpn,qpn,..." for the other side. */
    String describe() {
        StringBuilder sb = new StringBuilder(ctx.queryGid(1, 1).toString()).append(' ');
        for (int i = 0; i < qps.length; i++) {
            sb.append(i == 0 ? "" : ",").append(qps[i].qpNum());
        }
        return sb.toString();
    }

    void connect(Gid remoteGid, int[] remoteQpns) {
        for (int i = 0; i < qps.length; i++) {
            connect(qps[i], remoteQpns[i], remoteGid);
        }
    }

    /**
     * Adds 1 to the counter {@code perQp} times from every QP, {@link #DEPTH} at a time per QP; returns the original
     * values in the order of the result slots. Fails after {@code timeoutNs}.
     */
    long[] run(long counterAddr, int rkey, long timeoutNs) {
        int n = qps.length;
        int[] posted = new int[n];
        int[] outstanding = new int[n];
        int done = 0;
        SendWr wr = new SendWr().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .remoteAddr(counterAddr).rkey(rkey).compareAdd(1);
        Sge[] sge = {new Sge(0, 8, mr.lkey())};
        WorkCompletion[] wcs = new WorkCompletion[16];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        long deadline = System.nanoTime() + timeoutNs;
        while (done < n * perQp) {
            for (int q = 0; q < n; q++) {
                while (outstanding[q] < DEPTH && posted[q] < perQp) {
                    long slot = (long) q * perQp + posted[q];
                    sge[0] = new Sge(mr.address() + 8 * slot, 8, mr.lkey());
                    qps[q].postSend(wr.wrId(slot).sg(sge));
                    posted[q]++;
                    outstanding[q]++;
                }
            }
            int got = cq.poll(wcs);
            for (int i = 0; i < got; i++) {
                if (wcs[i].status() != WcStatus.SUCCESS) {
                    throw new AssertionError("atomic failed: " + wcs[i] + "; counters " + ctx.counters());
                }
                outstanding[(int) (wcs[i].wrId() / perQp)]--;
                done++;
            }
            if (got == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(done + " of " + n * perQp + " atomics done in time; counters "
                            + ctx.counters());
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
            }
        }
        long[] out = new long[n * perQp];
        for (int i = 0; i < out.length; i++) {
            out[i] = results.get(ValueLayout.JAVA_LONG, 8L * i);
        }
        return out;
    }

    @Override
    public void close() {
        for (QueuePair qp : qps) {
            qp.close();
        }
        mr.close();
        cq.close();
        pd.close();
        ctx.close();
        arena.close();
    }
}
