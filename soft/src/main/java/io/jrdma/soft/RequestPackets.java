package io.jrdma.soft;

import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.AtomicEth;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.Ieth;
import io.jrdma.wire.ImmDt;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Position;
import io.jrdma.wire.Reth;
import io.jrdma.wire.Transport;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The request packets a {@link Requester} sends, built in the transmitter's slot (rxe_req.c init_req_packet and
 * finish_packet): headers by opcode, the payload gathered from the WR's buffers (or referenced, for the kernel to
 * gather). It decides nothing about when to send: the requester's cursor, window and AckReq rule do.
 */
final class RequestPackets {

    /** A remote Q_Key with this bit set means "the QP's own Q_Key" (IBA 10.2.5, controlled Q_Keys). */
    private static final int PRIVILEGED_QKEY = 0x8000_0000;

    private final SoftQp qp;
    private final Transport transport;
    private final Transmitter xmit;
    private final Counters counters;

    RequestPackets(SoftQp qp) {
        this.qp = qp;
        this.transport = qp.rules.transport();
        this.xmit = qp.context.transmitter;
        this.counters = qp.context.counters;
    }

    /** One RDMA READ request for response packets {@code [first, first + chunk)} of {@code w}. */
    void readRequest(SendWqe w, int pktPsn, int first, int chunk) {
        long offset = (long) first * qp.mtuBytes;
        long len = Math.min(w.length - offset, (long) chunk * qp.mtuBytes);
        MemorySegment tx = xmit.packet();
        Opcode op = Opcode.RC_RDMA_READ_REQUEST;
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, true, pktPsn);
        Reth.setVa(tx, op.rethOffset(), w.remoteAddr + offset);
        Reth.setRkey(tx, op.rethOffset(), w.rkey);
        Reth.setDmaLength(tx, op.rethOffset(), (int) len);
        xmit.send(qp, op.headerLength());
    }

    /**
     * One CmpSwap or FetchAdd request: BTH with AckReq and AtomicETH, one PSN, no payload (rxe init_req_packet).
     * A retransmission sends the same bytes with the same PSN, so the responder answers it from its resource.
     */
    void atomicRequest(SendWqe w, int pktPsn) {
        boolean cas = w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP;
        Opcode op = cas ? Opcode.RC_COMPARE_SWAP : Opcode.RC_FETCH_ADD;
        MemorySegment tx = xmit.packet();
        Bth.write(tx, 0, op.code(), false, false, 0, SoftLimits.PKEY_DEFAULT, qp.destQpn, true, pktPsn);
        int at = op.atomicEthOffset();
        AtomicEth.setVa(tx, at, w.remoteAddr);
        AtomicEth.setRkey(tx, at, w.rkey);
        // CmpSwap: swap, then compare; FetchAdd: the addend in the swap/add field and a zero compare field
        AtomicEth.setSwapAdd(tx, at, cas ? w.swap : w.compareAdd);
        AtomicEth.setCompare(tx, at, cas ? w.compareAdd : 0);
        xmit.send(qp, op.headerLength());
    }

    /**
     * Packet {@code index} of a SEND or WRITE, segmented by the path MTU, in the QP's transport's opcodes; null
     * when sent, else the status the request fails with (its gather failed).
     */
    WcStatus data(SendWqe w, int index, int pktPsn, boolean ackReq) {
        int mtu = qp.mtuBytes;
        long offset = (long) index * mtu;
        int payload = (int) Math.min(mtu, w.length - offset);
        Position pos = position(index, w.packets());
        boolean end = pos == Position.LAST || pos == Position.ONLY;
        boolean start = pos == Position.FIRST || pos == Position.ONLY;
        Opcode op = switch (w.opcode) {
            case SEND -> Opcode.send(transport, pos, false, false);
            case SEND_WITH_IMM -> Opcode.send(transport, pos, true, false);
            case SEND_WITH_INV -> Opcode.send(transport, pos, false, true);
            case RDMA_WRITE -> Opcode.write(transport, pos, false);
            case RDMA_WRITE_WITH_IMM -> Opcode.write(transport, pos, true);
            default -> throw new IllegalStateException("unexpected opcode " + w.opcode);
        };
        int pad = (-payload) & 3;
        // rxe: the solicited event bit only on the last packet of a SEND or an RDMA WRITE with immediate
        boolean solicited = end && (w.flags & SendFlags.SOLICITED) != 0 && w.opcode != WrOpcode.RDMA_WRITE;
        MemorySegment tx = xmit.packet();
        Bth.write(tx, 0, op.code(), solicited, false, pad, SoftLimits.PKEY_DEFAULT, qp.destQpn, ackReq, pktPsn);
        if (start && op.hasReth()) {
            Reth.setVa(tx, op.rethOffset(), w.remoteAddr);
            Reth.setRkey(tx, op.rethOffset(), w.rkey);
            Reth.setDmaLength(tx, op.rethOffset(), (int) w.length);
        }
        if (op.hasImm()) {
            ImmDt.setImm(tx, op.immOffset(), w.immData);
        }
        if (op.hasIeth()) {
            Ieth.setRkey(tx, op.iethOffset(), w.invalidateRkey);
        }
        int hdr = op.headerLength();
        if (payload > 0 && !w.inline && xmit.byReference()
                && w.sges.reference(qp.context.mrs, qp.pd, offset, payload, xmit)) {
            xmit.sendByReference(qp, hdr, payload, pad); // the kernel gathers the payload from the MRs
            return null;
        }
        if (payload > 0) {
            if (w.inline) {
                MemorySegment.copy(w.inlineData, offset, tx, hdr, payload);
            } else if (!w.sges.gather(qp.context.mrs, qp.pd, offset, tx, hdr, payload)) {
                return WcStatus.LOC_PROT_ERR;
            }
        }
        pad(tx, hdr + payload, pad);
        xmit.send(qp, hdr + payload + pad);
        return null;
    }

    /**
     * The one packet of a UD SEND. A message longer than the port MTU is not sent and not failed (IBA C10-93.1.1;
     * rxe completes it successfully). An address handle of another PD fails the request with LOC_QP_OP_ERR, as
     * rxe's rxe_get_av ("PDs don't match for AH and QP"). Null when sent (or counted as too long), else the
     * status the request fails with.
     */
    WcStatus datagram(SendWqe w) {
        if (w.length > qp.context.portActiveMtu().bytes()) {
            counters.increment(Counter.UD_TOO_LONG);
            return null;
        }
        SoftAh ah = w.ah;
        if (ah.pd != qp.pd) {
            return WcStatus.LOC_QP_OP_ERR;
        }
        Opcode op = w.opcode == WrOpcode.SEND_WITH_IMM ? Opcode.UD_SEND_ONLY_WITH_IMMEDIATE : Opcode.UD_SEND_ONLY;
        int payload = (int) w.length;
        int pad = (-payload) & 3;
        boolean solicited = (w.flags & SendFlags.SOLICITED) != 0;
        MemorySegment tx = xmit.packet();
        // rxe asks no ACK on UD, but its QP 0 and 1 (types SMI and GSI, not UD) set AckReq as RC does on a last packet
        boolean ackReq = qp.qpn < QpTable.SPECIAL_QPS;
        Bth.write(tx, 0, op.code(), solicited, false, pad, SoftLimits.PKEY_DEFAULT, w.remoteQpn & 0xFF_FFFF, ackReq,
                w.firstPsn());
        int qkey = (w.remoteQkey & PRIVILEGED_QKEY) != 0 ? qp.qkey : w.remoteQkey;
        Deth.write(tx, op.dethOffset(), qkey, qp.qpn);
        if (op.hasImm()) {
            ImmDt.setImm(tx, op.immOffset(), w.immData);
        }
        int hdr = op.headerLength();
        if (payload > 0) {
            if (w.inline) {
                MemorySegment.copy(w.inlineData, 0, tx, hdr, payload);
            } else if (!w.sges.gather(qp.context.mrs, qp.pd, 0, tx, hdr, payload)) {
                return WcStatus.LOC_PROT_ERR;
            }
        }
        pad(tx, hdr + payload, pad);
        xmit.sendTo(qp.srcPort, ah.destIp, ah.destAddress, hdr + payload + pad);
        return null;
    }

    private static void pad(MemorySegment tx, int at, int pad) {
        for (int i = 0; i < pad; i++) {
            tx.set(ValueLayout.JAVA_BYTE, at + i, (byte) 0);
        }
    }

    private static Position position(int index, int count) {
        if (count == 1) {
            return Position.ONLY;
        }
        if (index == 0) {
            return Position.FIRST;
        }
        return index == count - 1 ? Position.LAST : Position.MIDDLE;
    }
}
