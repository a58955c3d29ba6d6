package io.jrdma.soft;

import io.jrdma.verbs.Access;
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
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

/** One end of a test connection: a soft device on its own address with a PD, a CQ, a buffer, an MR and a QP. */
final class Peer implements AutoCloseable {

    static final int ALL_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    final SoftContext ctx;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final Arena arena = Arena.ofShared();
    final MemorySegment buf;
    final MemoryRegion mr;
    final QueuePair qp;

    Peer(String ip, Threading threading, NanoClock clock, long bufBytes, int access, QpCap cap) {
        this(ip, threading, clock, bufBytes, access, cap, LinkKind.SHM);
    }

    /** A peer whose device runs on a link of {@code kind} (SHM: the default, NIO where there are no native sockets). */
    Peer(String ip, Threading threading, NanoClock clock, long bufBytes, int access, QpCap cap, LinkKind kind) {
        this(SoftDevice.builder().name("t-" + ip).address(ip).threading(threading).clock(clock)
                .allowNative(kind.allowNative()).sharedMemory(kind.sharedMemory()), bufBytes, access, cap);
    }

    /** A peer whose device injects {@code faults} into what it sends. */
    Peer(String ip, Threading threading, NanoClock clock, long bufBytes, int access, QpCap cap,
            io.jrdma.soft.link.FaultConfig faults) {
        this(ip, threading, clock, bufBytes, access, cap, faults, LinkKind.NATIVE);
    }

    /** A peer whose device injects {@code faults} into what it sends, over a link of {@code kind}. */
    Peer(String ip, Threading threading, NanoClock clock, long bufBytes, int access, QpCap cap,
            io.jrdma.soft.link.FaultConfig faults, LinkKind kind) {
        this(SoftDevice.builder().name("t-" + ip).address(ip).threading(threading).clock(clock).faults(faults)
                .allowNative(kind.allowNative()).sharedMemory(kind.sharedMemory()), bufBytes, access, cap);
    }

    private Peer(SoftDevice.Builder device, long bufBytes, int access, QpCap cap) {
        ctx = device.build().open();
        pd = ctx.allocPd();
        cq = ctx.createCq(4096);
        buf = arena.allocate(Math.max(1, bufBytes), 4096);
        mr = pd.registerMemory(buf, access);
        qp = pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq).cap(cap));
    }

    static QpCap defaultCap() {
        return new QpCap().maxSendWr(64).maxRecvWr(64).maxSendSge(4).maxRecvSge(4).maxInlineData(128);
    }

    /** Connection parameters (the attributes of INIT->RTR->RTS). */
    static final class Link {
        Mtu mtu = Mtu.MTU_1024;
        int psn = 0xFFFF00; // close to the 24-bit wrap on purpose
        int timeout = 14;
        int retryCnt = 7;
        int rnrRetry = 7;
        int minRnrTimer = 1;
        int maxRd = 4;
        int qpAccess = Access.REMOTE_WRITE | Access.REMOTE_READ;

        /** A link with a 1 s ACK timeout, for long transfers on a possibly loaded machine (retries not tested). */
        static Link tolerant() {
            Link l = new Link();
            l.timeout = 18;
            return l;
        }
    }

    void connect(Peer remote, Link l) {
        connect(remote.qp.qpNum(), remote.ctx.queryGid(1, 1), l);
    }

    void connect(int remoteQpn, io.jrdma.verbs.Gid remoteGid, Link l) {
        connect(qp, remoteQpn, remoteGid, l);
    }

    /** Moves any RC {@code qp} through INIT, RTR and RTS to the remote QP {@code remoteQpn} at {@code remoteGid}. */
    static void connect(io.jrdma.verbs.QueuePair qp, int remoteQpn, io.jrdma.verbs.Gid remoteGid, Link l) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(l.qpAccess),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(l.mtu).destQpNum(remoteQpn).rqPsn(l.psn)
                        .maxDestRdAtomic(l.maxRd).minRnrTimer(l.minRnrTimer)
                        .ahAttr(new AhAttr().isGlobal(true).dgid(remoteGid).sgidIndex(1).portNum(1)),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(l.psn).timeout(l.timeout).retryCnt(l.retryCnt)
                        .rnrRetry(l.rnrRetry).maxRdAtomic(l.maxRd),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                        QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    long addr(long offset) {
        return mr.address() + offset;
    }

    @Override
    public void close() {
        qp.close();
        mr.close();
        cq.close();
        pd.close();
        ctx.close();
        arena.close();
    }
}
