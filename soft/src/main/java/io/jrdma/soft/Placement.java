package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.wire.Grh;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Reth;
import java.lang.foreign.MemorySegment;

/**
 * Where a responder puts the data of a request (rxe_resp.c send_data_in, write_data_in): a SEND's payload scattered
 * into the receive WQE, message offset by message offset; an RDMA WRITE's payload copied into the region its RETH
 * names; a UD datagram's payload behind the 40-byte GRH area. Each step returns the {@link RequestError} that stops
 * it, or null; the {@link Responder} decides what the error does.
 */
final class Placement {

    /**
     * The IPv4 TTL written into the GRH. The socket API hides the received TTL and TOS (and the ICRC masks them);
     * jrdma sends with the Linux default TTL 64 and TOS 0, as kernel rxe does on an ordinary route.
     */
    static final int GRH_TTL = 64;

    private final SoftQp qp;
    private final int localIp;
    private final MemorySegment grh = MemorySegment.ofArray(new byte[Grh.LENGTH]);

    private long recvOffset;
    private SoftMr writeMr;
    private long writeVa;
    private long writeRemaining;
    private long writeLength;

    Placement(SoftQp qp) {
        this.qp = qp;
        this.localIp = qp.context.localIp();
    }

    /** A SEND starts: its data goes to the receive WQE from its first byte. */
    void startSend() {
        recvOffset = 0;
    }

    /** The bytes of the SEND in progress placed so far. */
    long received() {
        return recvOffset;
    }

    /** Scatters one SEND packet's payload into {@code w} behind what the message placed before. */
    RequestError send(RecvWqe w, MemorySegment pkt, int payloadOffset, int payloadLength) {
        if (recvOffset + payloadLength > w.capacity) {
            return RequestError.RECV_TOO_SMALL;
        }
        if (payloadLength > 0 && !scatter(w, recvOffset, pkt, payloadOffset, payloadLength)) {
            return RequestError.RECV_PROTECTION;
        }
        recvOffset += payloadLength;
        return null;
    }

    /** A WRITE starts: the region its RETH names must let this QP write all of it (rxe check_rkey). */
    RequestError startWrite(Opcode op, MemorySegment pkt) {
        long va = Reth.va(pkt, op.rethOffset());
        int rkey = Reth.rkey(pkt, op.rethOffset());
        long len = Reth.dmaLength(pkt, op.rethOffset()) & 0xFFFFFFFFL;
        SoftMr mr = len == 0 ? null : RemoteKeys.resolve(qp, rkey, va, len, Access.REMOTE_WRITE);
        if (len != 0 && mr == null) {
            return RequestError.RKEY;
        }
        writeMr = mr;
        writeVa = va;
        writeRemaining = len;
        writeLength = len;
        return null;
    }

    /** Copies one WRITE packet's payload; the LAST (or ONLY) must end the DMA length exactly. */
    RequestError write(Opcode op, MemorySegment pkt, int payloadOffset, int payloadLength) {
        boolean fits = op.isEnd() ? payloadLength == writeRemaining : payloadLength < writeRemaining;
        if (!fits) {
            return RequestError.LENGTH;
        }
        if (payloadLength > 0) {
            if (!writeMr.valid()) {
                return RequestError.REGION_GONE; // deregistered while the message was arriving
            }
            MemorySegment.copy(pkt, payloadOffset, writeMr.segment, writeVa - writeMr.address, payloadLength);
        }
        writeVa += payloadLength;
        writeRemaining -= payloadLength;
        if (op.isEnd()) {
            writeMr = null;
        }
        return null;
    }

    /** The DMA length of the WRITE in progress (a WRITE with immediate completes with it). */
    long writeLength() {
        return writeLength;
    }

    /**
     * A UD datagram into {@code w}: the GRH area first (for RoCEv2 over IPv4: 20 zero bytes and the packet's IPv4
     * header, as rxe copies it), then the payload. The caller checked that both fit.
     *
     * @return false when {@code w}'s memory may not be written
     */
    boolean datagram(RecvWqe w, MemorySegment pkt, int payloadOffset, int payloadLength, int srcIp, int ipId,
            int ibLength) {
        Grh.writeIpv4(grh, 0, 0, Grh.IPV4_HEADER + Grh.UDP_HEADER + ibLength, ipId, Grh.IPV4_DF, GRH_TTL, srcIp,
                localIp);
        return scatter(w, 0, grh, 0, Grh.LENGTH)
                && (payloadLength == 0 || scatter(w, Grh.LENGTH, pkt, payloadOffset, payloadLength));
    }

    /**
     * Forgets the message in progress. Its receive WQE, if not consumed, is used again from its first byte by the
     * next message (rxe "reset the recv wr to its original state").
     */
    void abandon() {
        recvOffset = 0;
        writeMr = null;
    }

    private boolean scatter(RecvWqe w, long msgOffset, MemorySegment src, long srcOffset, int count) {
        return w.sges.scatter(qp.context.mrs, qp.pd, msgOffset, src, srcOffset, count);
    }
}
