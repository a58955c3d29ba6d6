package io.jrdma.tools.cmatose;

import io.jrdma.cm.CmId;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * One connection of ucmatose or udaddy (struct cmatest_node): its CM id, PD, CQs, QP and message buffer. ucmatose:
 * an RC QP with sq_sig_all, a send and a receive CQ of {@code count} entries, a buffer of {@code size} bytes.
 * udaddy: a UD QP, one CQ of {@code 2 * count}, a buffer of {@code size + 40} (the GRH area), SEND_WITH_IMM carrying
 * the sender's QP number, and an address handle to the peer.
 */
final class CmatoseNode implements AutoCloseable {

    /** sizeof(struct ibv_grh). */
    static final int GRH_BYTES = 40;

    final int index;
    CmId id;
    boolean connected;
    private final Arena arena = Arena.ofShared();
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private MemorySegment mem;
    private MemoryRegion mr;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private final WorkCompletion[] wcs = new WorkCompletion[8];

    CmatoseNode(int index) {
        this.index = index;
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /** init_node: PD, CQ(s), the QP through the CM, the message buffer. */
    void init(boolean ud, int count, int size) {
        Context ctx = id.context();
        pd = ctx.allocPd();
        int cqe = ud ? (count > 0 ? count * 2 : 2) : (count > 0 ? count : 1);
        sendCq = ctx.createCq(cqe);
        recvCq = ud ? sendCq : ctx.createCq(cqe);
        int wr = count > 0 ? count : 1;
        id.createQp(pd, new QpInitAttr().qpType(ud ? QpType.UD : QpType.RC).sendCq(sendCq).recvCq(recvCq)
                .sqSigAll(!ud).cap(new QpCap(wr, wr, 1, 1, 0)));
        if (count > 0 && size > 0) {
            mem = arena.allocate(size + (ud ? GRH_BYTES : 0), 64);
            mr = pd.registerMemory(mem, Access.LOCAL_WRITE);
        }
    }

    /** post_recvs: {@code count} receives of the whole buffer. */
    void postRecvs(int count, long bytes) {
        if (mr == null) {
            return;
        }
        RecvWr wr = new RecvWr().wrId(index).sg(new Sge(mem.address(), (int) bytes, mr.lkey()));
        for (int i = 0; i < count; i++) {
            id.qp().postRecv(wr);
        }
    }

    /** post_sends: {@code count} SENDs (UD: SEND_WITH_IMM of this QP's number to the peer's QP and Q_Key). */
    void postSends(boolean ud, int count, int size, boolean signaled) {
        if (!connected || mr == null) {
            return;
        }
        SendWr wr = new SendWr().wrId(index).sg(new Sge(mem.address(), size, mr.lkey()))
                .sendFlags(signaled ? SendFlags.SIGNALED : 0);
        if (ud) {
            wr.opcode(WrOpcode.SEND_WITH_IMM).immData(id.qp().qpNum()).ud(ah, remoteQpn, remoteQkey);
        } else {
            wr.opcode(WrOpcode.SEND);
        }
        for (int i = 0; i < count; i++) {
            id.qp().postSend(wr);
        }
    }

    /** The peer's QP, Q_Key and address from the ESTABLISHED event (udaddy's resolved_handler). */
    void peer(int qpn, int qkey, AhAttr attr) {
        remoteQpn = qpn;
        remoteQkey = qkey;
        ah = pd.createAh(attr);
    }

    /**
     * Polls {@code count} completions (poll_cqs; send CQ when {@code sends}); udaddy's server makes its reply
     * address from the first receive (create_reply_ah). Gives up after {@code deadlineNanos}.
     *
     * @return null when done, else what went wrong
     */
    String poll(boolean sends, int count, boolean replyAh, long deadlineNanos) {
        CompletionQueue cq = sends ? sendCq : recvCq;
        int done = 0;
        while (done < count) {
            int n = cq.poll(wcs, 8);
            for (int i = 0; i < n; i++) {
                if (wcs[i].status() != WcStatus.SUCCESS) {
                    return "completion with status " + wcs[i].status();
                }
            }
            if (n > 0 && replyAh && ah == null) {
                replyAh(wcs[0]);
            }
            done += n;
            if (n == 0 && System.nanoTime() - deadlineNanos > 0) {
                return "timed out with " + done + " of " + count + " completions";
            }
        }
        return null;
    }

    /** ibv_create_ah_from_wc for RoCEv2 over IPv4: the source address from the IPv4 header in the GRH area. */
    private void replyAh(WorkCompletion wc) {
        byte[] src = new byte[4];
        MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, GRH_BYTES - 8, src, 0, 4);
        Gid dgid;
        try {
            dgid = Gid.fromInet(InetAddress.getByAddress(src));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        AhAttr attr = new AhAttr().grh(dgid, sgidIndex(), 0xFF, 0, 0).portNum(id.portNum());
        remoteQpn = wc.immData();
        remoteQkey = id.qp().query(new QpAttr()).qkey();
        ah = pd.createAh(attr);
    }

    private int sgidIndex() {
        Gid local = Gid.fromInet(id.localAddress().getAddress());
        for (int i = 0; i < 16; i++) {
            if (id.context().queryGid(id.portNum(), i).equals(local)) {
                return i;
            }
        }
        return 1;
    }

    @Override
    public void close() {
        if (id == null) {
            return;
        }
        try {
            if (ah != null) {
                ah.close();
            }
            if (id.qp() != null) {
                id.destroyQp();
            }
            if (recvCq != null && recvCq != sendCq) {
                recvCq.close();
            }
            if (sendCq != null) {
                sendCq.close();
            }
            if (mr != null) {
                mr.close();
            }
            if (pd != null) {
                pd.close();
            }
        } finally {
            id.close(); // after all device resources, as destroy_node
            arena.close();
        }
    }
}
