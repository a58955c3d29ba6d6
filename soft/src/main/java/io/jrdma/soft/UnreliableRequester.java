package io.jrdma.soft;

import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Position;
import io.jrdma.wire.Psn;
import io.jrdma.wire.Reth;
import io.jrdma.wire.Transport;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The requester role of a UC or UD QP (IBA 9.8, unreliable service; kernel rxe_req.c): no
 * acknowledgements, no AckReq bit, no retransmission and no timer, so a request completes as soon as its last packet
 * is handed to the link. UC segments by the path MTU like RC; UD sends one SEND ONLY packet with a DETH per request,
 * to the destination of the request's address handle.
 *
 * <p>It moves the cursor of the QP's {@link Requester} (next PSN, next WQE, next packet), so PSN attributes, query
 * and reset work the same for every transport. A request that fails locally completes in error and puts the QP in
 * SQE ({@link SoftQp#enterSendQueueError}).
 */
final class UnreliableRequester {

    /** Packets one QP may send per engine pass, as the RC requester. */
    private static final int BUDGET = 32;
    /** A remote Q_Key with this bit set means "the QP's own Q_Key" (IBA 10.2.5, controlled Q_Keys). */
    private static final int PRIVILEGED_QKEY = 0x8000_0000;

    private final SoftQp qp;
    private final Transmitter xmit;
    private final Counters counters;

    UnreliableRequester(SoftQp qp) {
        this.qp = qp;
        this.xmit = qp.context.transmitter;
        this.counters = qp.context.counters;
    }

    /** Sends what the budget allows; requests complete as their last packet leaves. */
    int transmit() {
        QpState state = qp.state;
        if (state != QpState.RTS && state != QpState.SQD) {
            return 0;
        }
        Requester r = qp.requester;
        boolean ud = qp.type == QpType.UD;
        int sent = 0;
        while (sent < BUDGET && r.next != qp.sqProducer) {
            SendWqe w = qp.sqAt(r.next);
            if (!w.started) {
                if (state == QpState.SQD) {
                    break; // draining (IBA 10.3.1.4): finish the message in progress, start no new one
                }
                w.firstPsn = r.psn;
                w.packets = ud ? 1 : packetsOf(w);
                w.started = true;
                r.nextPacket = 0;
                r.psn = Psn.add(r.psn, w.packets);
            }
            boolean ok = ud ? sendDatagram(w) : sendUcPacket(w, Psn.add(w.firstPsn, r.nextPacket));
            if (!ok) {
                return sent; // the request failed and the QP is in SQE
            }
            sent++;
            if (++r.nextPacket >= w.packets) {
                r.next++;
                r.nextPacket = 0;
                qp.retireSend(w, WcStatus.SUCCESS);
            }
        }
        return sent;
    }

    private int packetsOf(SendWqe w) {
        return w.length == 0 ? 1 : (int) ((w.length + qp.mtuBytes - 1) / qp.mtuBytes);
    }

    /** One packet of a UC SEND or RDMA WRITE; false when the gather failed (the QP is then in SQE). */
    private boolean sendUcPacket(SendWqe w, int psn) {
        Requester r = qp.requester;
        int mtu = qp.mtuBytes;
        long offset = (long) r.nextPacket * mtu;
        int payload = (int) Math.min(mtu, w.length - offset);
        Position pos = w.packets == 1 ? Position.ONLY
                : r.nextPacket == 0 ? Position.FIRST : r.nextPacket == w.packets - 1 ? Position.LAST : Position.MIDDLE;
        boolean end = pos == Position.LAST || pos == Position.ONLY;
        Opcode op = switch (w.opcode) {
            case SEND -> Opcode.send(Transport.UC, pos, false, false);
            case SEND_WITH_IMM -> Opcode.send(Transport.UC, pos, true, false);
            case RDMA_WRITE -> Opcode.write(Transport.UC, pos, false);
            case RDMA_WRITE_WITH_IMM -> Opcode.write(Transport.UC, pos, true);
            default -> throw new IllegalStateException("opcode " + w.opcode + " on a UC QP passed the post checks");
        };
        // rxe: the solicited event bit only on the last packet of a SEND or an RDMA WRITE with immediate
        boolean solicited = end && (w.flags & SendFlags.SOLICITED) != 0
                && (w.opcode != WrOpcode.RDMA_WRITE);
        int pad = (-payload) & 3;
        MemorySegment tx = xmit.packet();
        Bth.write(tx, 0, op.code(), solicited, false, pad, SoftLimits.PKEY_DEFAULT, qp.destQpn, false, psn);
        if (op.hasReth()) {
            Reth.setVa(tx, op.rethOffset(), w.remoteAddr);
            Reth.setRkey(tx, op.rethOffset(), w.rkey);
            Reth.setDmaLength(tx, op.rethOffset(), (int) w.length);
        }
        if (op.hasImm()) {
            ImmDt.setImm(tx, op.immOffset(), w.immData);
        }
        int hdr = op.headerLength();
        if (!gather(w, offset, hdr, payload)) {
            return fail(w, WcStatus.LOC_PROT_ERR);
        }
        pad(tx, hdr + payload, pad);
        xmit.send(qp, hdr + payload + pad);
        return true;
    }

    /**
     * The one packet of a UD SEND. A message longer than the port MTU is not sent and not failed (IBA C10-93.1.1;
     * rxe completes it successfully). An address handle of another PD fails the request with LOC_QP_OP_ERR, as
     * rxe's rxe_get_av ("PDs don't match for AH and QP").
     */
    private boolean sendDatagram(SendWqe w) {
        if (w.length > qp.context.portActiveMtu().bytes()) {
            counters.increment(Counter.UD_TOO_LONG);
            return true;
        }
        SoftAh ah = w.ah;
        if (ah.pd != qp.pd) {
            return fail(w, WcStatus.LOC_QP_OP_ERR);
        }
        Opcode op = w.opcode == WrOpcode.SEND_WITH_IMM ? Opcode.UD_SEND_ONLY_WITH_IMMEDIATE : Opcode.UD_SEND_ONLY;
        int payload = (int) w.length;
        int pad = (-payload) & 3;
        boolean solicited = (w.flags & SendFlags.SOLICITED) != 0;
        MemorySegment tx = xmit.packet();
        Bth.write(tx, 0, op.code(), solicited, false, pad, SoftLimits.PKEY_DEFAULT, w.remoteQpn & 0xFF_FFFF, false,
                w.firstPsn);
        int qkey = (w.remoteQkey & PRIVILEGED_QKEY) != 0 ? qp.qkey : w.remoteQkey;
        Deth.write(tx, op.dethOffset(), qkey, qp.qpn);
        if (op.hasImm()) {
            ImmDt.setImm(tx, op.immOffset(), w.immData);
        }
        int hdr = op.headerLength();
        if (!gather(w, 0, hdr, payload)) {
            return fail(w, WcStatus.LOC_PROT_ERR);
        }
        pad(tx, hdr + payload, pad);
        xmit.sendTo(qp.srcPort, ah.destIp, ah.destAddress, hdr + payload + pad);
        return true;
    }

    private boolean gather(SendWqe w, long offset, int at, int count) {
        if (count == 0) {
            return true;
        }
        if (w.inline) {
            MemorySegment.copy(w.inlineData, offset, xmit.packet(), at, count);
            return true;
        }
        return w.sges.gather(qp.context.mrs, qp.pd, offset, xmit.packet(), at, count);
    }

    private static void pad(MemorySegment tx, int at, int pad) {
        for (int i = 0; i < pad; i++) {
            tx.set(ValueLayout.JAVA_BYTE, at + i, (byte) 0);
        }
    }

    /** Completes the request in error and moves the QP to SQE, which flushes the requests behind it. */
    private boolean fail(SendWqe w, WcStatus status) {
        Requester r = qp.requester;
        qp.retireSend(w, status);
        r.next++;
        r.nextPacket = 0;
        qp.enterSendQueueError();
        r.next = qp.sqConsumer;
        return false;
    }
}
