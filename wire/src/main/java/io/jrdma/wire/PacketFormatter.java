package io.jrdma.wire;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One-line human-readable summaries of IB packets (BTH through ICRC), for logs, {@code jrdma capture} and tests,
 * for example {@code RC_SEND_FIRST qp=0x000011 psn=1234 ack=1 se=0 pad=0 len=1024 icrc=0x1a2b3c4d}. Never throws
 * on bad input: truncated or garbage packets produce text containing "malformed". A UD SEND to QP 1 also shows
 * the management datagram it carries, e.g. {@code cm[REP ... qpn=0x00001b psn=15970079 pd=0]} ({@link Mad}).
 */
public final class PacketFormatter {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private PacketFormatter() {
    }

    /** Describes the IB packet of {@code len} bytes (including the ICRC) at {@code off} in {@code seg}. */
    public static String describe(MemorySegment seg, long off, int len) {
        StringBuilder sb = new StringBuilder(128);
        describe(seg, off, len, sb);
        return sb.toString();
    }

    /** Describes the IB packet of {@code len} bytes (including the ICRC) at {@code off} in {@code buf}. */
    public static void describe(ByteBuffer buf, int off, int len, StringBuilder out) {
        describe(buf == null ? null : MemorySegment.ofBuffer(buf.duplicate().clear()), off, len, out);
    }

    /**
     * Appends a one-line summary of an IB packet to {@code out}.
     *
     * @param seg memory holding the packet
     * @param off offset of the BTH
     * @param len IB packet length including the 4-byte ICRC
     * @param out destination
     */
    public static void describe(MemorySegment seg, long off, int len, StringBuilder out) {
        int start = out.length();
        try {
            appendPacket(seg, off, len, out);
        } catch (RuntimeException e) {
            out.setLength(start);
            out.append("malformed: ").append(e.getClass().getSimpleName());
        }
    }

    private static void appendPacket(MemorySegment seg, long off, int len, StringBuilder out) {
        if (seg == null || off < 0 || len < 0 || off > seg.byteSize() - len) {
            out.append("malformed: packet range outside the buffer");
            return;
        }
        if (len < Bth.LENGTH) {
            out.append("malformed: ").append(len).append(" bytes, shorter than a BTH");
            return;
        }
        int code = Bth.opcode(seg, off);
        Opcode op = Opcode.of(code);
        if (op == null) {
            out.append("unknown opcode 0x");
            hex(out, code, 2);
        } else {
            out.append(op.name());
        }
        int pad = Bth.padCount(seg, off);
        out.append(" qp=0x");
        hex(out, Bth.destQp(seg, off), 6);
        out.append(" psn=").append(Bth.psn(seg, off))
                .append(" ack=").append(Bth.ackReq(seg, off) ? 1 : 0)
                .append(" se=").append(Bth.solicited(seg, off) ? 1 : 0)
                .append(" pad=").append(pad);
        if (Bth.pkey(seg, off) != 0xFFFF) {
            out.append(" pkey=0x");
            hex(out, Bth.pkey(seg, off), 4);
        }
        if (Bth.migReq(seg, off)) {
            out.append(" mig=1");
        }
        if (Bth.tver(seg, off) != 0) {
            out.append(" tver=").append(Bth.tver(seg, off));
        }
        if (Bth.resv8a(seg, off) != 0) {
            out.append(" resv8a=0x");
            hex(out, Bth.resv8a(seg, off), 2);
        }
        if (op == null) {
            return;
        }
        int need = op.headerLength() + Icrc.LENGTH;
        if (len < need) {
            out.append(" malformed: ").append(len).append(" bytes, headers and ICRC need ").append(need);
            return;
        }
        int payload = len - need - pad;
        if (payload < 0) {
            out.append(" malformed: pad ").append(pad).append(" exceeds the payload");
            return;
        }
        if (op.hasPayload()) {
            out.append(" len=").append(payload);
        } else if (payload != 0 || pad != 0) {
            out.append(" malformed: ").append(payload + pad).append(" unexpected payload bytes");
        }
        appendExtensions(seg, off, op, out);
        if (op.hasDeth() && Bth.destQp(seg, off) == Mad.GSI_QPN && payload >= Mad.MAD_SIZE) {
            MadFormatter.append(seg, off + op.headerLength(), out);
        }
        out.append(" icrc=0x");
        hex(out, seg.get(Layouts.INT_LE, off + len - Icrc.LENGTH), 8);
    }

    private static void appendExtensions(MemorySegment seg, long off, Opcode op, StringBuilder out) {
        if (op.hasDeth()) {
            long at = off + op.dethOffset();
            out.append(" deth[qkey=0x");
            hex(out, Deth.qkey(seg, at), 8);
            out.append(" src_qp=0x");
            hex(out, Deth.srcQp(seg, at), 6);
            out.append(']');
        }
        if (op.hasReth()) {
            long at = off + op.rethOffset();
            out.append(" reth[va=0x");
            hex(out, Reth.va(seg, at), 16);
            out.append(" rkey=0x");
            hex(out, Reth.rkey(seg, at), 8);
            out.append(" len=").append(Integer.toUnsignedLong(Reth.dmaLength(seg, at))).append(']');
        }
        if (op.hasAtomicEth()) {
            long at = off + op.atomicEthOffset();
            out.append(" atomic[va=0x");
            hex(out, AtomicEth.va(seg, at), 16);
            out.append(" rkey=0x");
            hex(out, AtomicEth.rkey(seg, at), 8);
            out.append(op == Opcode.RC_FETCH_ADD ? " add=0x" : " swap=0x");
            hex(out, AtomicEth.swapAdd(seg, at), 16);
            out.append(" compare=0x");
            hex(out, AtomicEth.compare(seg, at), 16);
            out.append(']');
        }
        if (op.hasAeth()) {
            appendAeth(seg, off + op.aethOffset(), out);
        }
        if (op.hasAtomicAckEth()) {
            out.append(" atomic_ack[orig=0x");
            hex(out, AtomicAckEth.origData(seg, off + op.atomicAckEthOffset()), 16);
            out.append(']');
        }
        if (op.hasImm()) {
            out.append(" imm=0x");
            hex(out, ImmDt.imm(seg, off + op.immOffset()), 8);
        }
        if (op.hasIeth()) {
            out.append(" ieth[rkey=0x");
            hex(out, Ieth.rkey(seg, off + op.iethOffset()), 8);
            out.append(']');
        }
    }

    private static void appendAeth(MemorySegment seg, long at, StringBuilder out) {
        int syndrome = Aeth.syndrome(seg, at);
        int value = AethSyndrome.value(syndrome);
        out.append(" aeth[");
        if (AethSyndrome.isAck(syndrome)) {
            out.append("ACK credit=").append(value);
        } else if (AethSyndrome.isRnrNak(syndrome)) {
            out.append("RNR timer=").append(value);
        } else if (AethSyndrome.isNak(syndrome)) {
            NakCode nak = NakCode.of(value);
            if (nak != null) {
                out.append("NAK ").append(nak.name());
            } else {
                out.append("NAK code=").append(value);
            }
        } else {
            out.append("RESERVED syndrome=0x");
            hex(out, syndrome, 2);
        }
        out.append(" msn=").append(Aeth.msn(seg, at)).append(']');
    }

    /** Appends the low {@code digits} hex digits of {@code v}. */
    static void hex(StringBuilder out, long v, int digits) {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            out.append(HEX[(int) (v >>> shift) & 0xF]);
        }
    }
}
