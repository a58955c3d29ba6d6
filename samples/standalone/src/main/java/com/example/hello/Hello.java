package com.example.hello;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Gid;
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
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.Verbs;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

/**
 * Opens the default RDMA device, registers a buffer, connects two RC queue pairs to each other on that device
 * (loopback) and SENDs a message from one to the other. Prints {@code received "hello, jrdma" ...} and exits 0.
 */
public final class Hello {

    private static final int PORT = 1;
    private static final int GID_INDEX = 1; // RoCEv2 over IPv4: the IPv4-mapped GID, as on rxe
    private static final int PSN = 0x1000;
    private static final long RECV_AT = 2048;
    private static final long TIMEOUT_NS = 10_000_000_000L;

    private Hello() {
    }

    public static void main(String[] args) {
        String message = "hello, jrdma";
        Device device = Verbs.device(null); // the first device of the first provider: the soft device's rxe0
        try (Context ctx = device.open(); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = ctx.allocPd();
            MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 4096), Access.LOCAL_WRITE);
            CompletionQueue cq = ctx.createCq(16);
            QueuePair sender = createQp(pd, cq);
            QueuePair receiver = createQp(pd, cq);
            Gid gid = ctx.queryGid(PORT, GID_INDEX);
            connect(sender, receiver.qpNum(), gid);
            connect(receiver, sender.qpNum(), gid);

            receiver.postRecv(new RecvWr().wrId(2).sg(new Sge(mr.address() + RECV_AT, 2048, mr.lkey())));
            MemorySegment buf = mr.segment();
            buf.setString(0, message);
            int length = message.length() + 1; // with its terminating NUL
            sender.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sg(new Sge(mr.address(), length, mr.lkey())));

            WorkCompletion[] wc = {new WorkCompletion()};
            int bytes = -1;
            for (int done = 0; done < 2; done++) {
                poll(ctx, cq, wc);
                if (wc[0].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("work request " + wc[0].wrId() + " failed: " + wc[0]);
                }
                if (wc[0].wrId() == 2) {
                    bytes = wc[0].byteLen();
                }
            }
            String received = buf.getString(RECV_AT);
            if (!message.equals(received) || bytes != length) {
                throw new IllegalStateException("received \"" + received + "\" (" + bytes + " bytes)");
            }
            System.out.printf("received \"%s\" (%d bytes) on %s: RC QP %d -> QP %d, %s%n", received, bytes,
                    device.name(), sender.qpNum(), receiver.qpNum(),
                    Hello.class.getModule().isNamed() ? "module path" : "class path");
            sender.close();
            receiver.close();
            mr.close();
            cq.close();
            pd.close();
        }
    }

    private static QueuePair createQp(ProtectionDomain pd, CompletionQueue cq) {
        return pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq)
                .cap(new QpCap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1)));
    }

    /** RESET to INIT to RTR to RTS, toward QP {@code remoteQpn} on the device whose GID is {@code gid}. */
    private static void connect(QueuePair qp, int remoteQpn, Gid gid) {
        qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(PORT).qpAccessFlags(0),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(remoteQpn).rqPsn(PSN)
                .maxDestRdAtomic(1).minRnrTimer(12)
                .ahAttr(new AhAttr().isGlobal(true).dgid(gid).sgidIndex(GID_INDEX).portNum(PORT).hopLimit(64)),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(PSN).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                        QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    /** Waits (at most 10 s) for one completion, driving the device meanwhile if it needs its caller to. */
    private static void poll(Context ctx, CompletionQueue cq, WorkCompletion[] wc) {
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion within 10 s");
            }
            if (ctx.progress() == 0) {
                Thread.onSpinWait();
            }
        }
    }
}
