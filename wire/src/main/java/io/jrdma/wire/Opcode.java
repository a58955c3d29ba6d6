package io.jrdma.wire;

import static io.jrdma.wire.Position.FIRST;
import static io.jrdma.wire.Position.LAST;
import static io.jrdma.wire.Position.MIDDLE;
import static io.jrdma.wire.Position.ONLY;
import static io.jrdma.wire.Transport.RC;
import static io.jrdma.wire.Transport.UC;
import static io.jrdma.wire.Transport.UD;

/**
 * BTH opcodes of the RC, UC and UD transports (IBA 9.2, Table 38 "OpCode field"). Each constant carries its wire
 * code, transport, message position and extension headers; header offsets (relative to the start of the BTH) are
 * computed in the constructor in IBA header order: BTH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 * RC codes 0x15 (reserved) and RD opcodes are not represented; {@link #of(int)} returns null for them.
 */
public enum Opcode {
    /** RC SEND First, 0x00. */
    RC_SEND_FIRST(0x00, RC, Kind.SEND, FIRST, 0),
    /** RC SEND Middle, 0x01. */
    RC_SEND_MIDDLE(0x01, RC, Kind.SEND, MIDDLE, 0),
    /** RC SEND Last, 0x02. */
    RC_SEND_LAST(0x02, RC, Kind.SEND, LAST, 0),
    /** RC SEND Last with Immediate, 0x03: ImmDt. */
    RC_SEND_LAST_WITH_IMMEDIATE(0x03, RC, Kind.SEND, LAST, Hdr.IMM),
    /** RC SEND Only, 0x04. */
    RC_SEND_ONLY(0x04, RC, Kind.SEND, ONLY, 0),
    /** RC SEND Only with Immediate, 0x05: ImmDt. */
    RC_SEND_ONLY_WITH_IMMEDIATE(0x05, RC, Kind.SEND, ONLY, Hdr.IMM),
    /** RC RDMA WRITE First, 0x06: RETH. */
    RC_RDMA_WRITE_FIRST(0x06, RC, Kind.WRITE, FIRST, Hdr.RETH),
    /** RC RDMA WRITE Middle, 0x07. */
    RC_RDMA_WRITE_MIDDLE(0x07, RC, Kind.WRITE, MIDDLE, 0),
    /** RC RDMA WRITE Last, 0x08. */
    RC_RDMA_WRITE_LAST(0x08, RC, Kind.WRITE, LAST, 0),
    /** RC RDMA WRITE Last with Immediate, 0x09: ImmDt. */
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, RC, Kind.WRITE, LAST, Hdr.IMM),
    /** RC RDMA WRITE Only, 0x0A: RETH. */
    RC_RDMA_WRITE_ONLY(0x0A, RC, Kind.WRITE, ONLY, Hdr.RETH),
    /** RC RDMA WRITE Only with Immediate, 0x0B: RETH, ImmDt. */
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0B, RC, Kind.WRITE, ONLY, Hdr.RETH | Hdr.IMM),
    /** RC RDMA READ Request, 0x0C: RETH. */
    RC_RDMA_READ_REQUEST(0x0C, RC, Kind.READ_REQUEST, ONLY, Hdr.RETH),
    /** RC RDMA READ response First, 0x0D: AETH. */
    RC_RDMA_READ_RESPONSE_FIRST(0x0D, RC, Kind.READ_RESPONSE, FIRST, Hdr.AETH),
    /** RC RDMA READ response Middle, 0x0E. */
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0E, RC, Kind.READ_RESPONSE, MIDDLE, 0),
    /** RC RDMA READ response Last, 0x0F: AETH. */
    RC_RDMA_READ_RESPONSE_LAST(0x0F, RC, Kind.READ_RESPONSE, LAST, Hdr.AETH),
    /** RC RDMA READ response Only, 0x10: AETH. */
    RC_RDMA_READ_RESPONSE_ONLY(0x10, RC, Kind.READ_RESPONSE, ONLY, Hdr.AETH),
    /** RC Acknowledge, 0x11: AETH. */
    RC_ACKNOWLEDGE(0x11, RC, Kind.ACK, ONLY, Hdr.AETH),
    /** RC ATOMIC Acknowledge, 0x12: AETH, AtomicAckETH. */
    RC_ATOMIC_ACKNOWLEDGE(0x12, RC, Kind.ATOMIC_ACK, ONLY, Hdr.AETH | Hdr.ATOMIC_ACK_ETH),
    /** RC CmpSwap, 0x13: AtomicETH. */
    RC_COMPARE_SWAP(0x13, RC, Kind.COMPARE_SWAP, ONLY, Hdr.ATOMIC_ETH),
    /** RC FetchAdd, 0x14: AtomicETH. */
    RC_FETCH_ADD(0x14, RC, Kind.FETCH_ADD, ONLY, Hdr.ATOMIC_ETH),
    /** RC SEND Last with Invalidate, 0x16: IETH. */
    RC_SEND_LAST_WITH_INVALIDATE(0x16, RC, Kind.SEND, LAST, Hdr.IETH),
    /** RC SEND Only with Invalidate, 0x17: IETH. */
    RC_SEND_ONLY_WITH_INVALIDATE(0x17, RC, Kind.SEND, ONLY, Hdr.IETH),

    /** UC SEND First, 0x20. */
    UC_SEND_FIRST(0x20, UC, Kind.SEND, FIRST, 0),
    /** UC SEND Middle, 0x21. */
    UC_SEND_MIDDLE(0x21, UC, Kind.SEND, MIDDLE, 0),
    /** UC SEND Last, 0x22. */
    UC_SEND_LAST(0x22, UC, Kind.SEND, LAST, 0),
    /** UC SEND Last with Immediate, 0x23: ImmDt. */
    UC_SEND_LAST_WITH_IMMEDIATE(0x23, UC, Kind.SEND, LAST, Hdr.IMM),
    /** UC SEND Only, 0x24. */
    UC_SEND_ONLY(0x24, UC, Kind.SEND, ONLY, 0),
    /** UC SEND Only with Immediate, 0x25: ImmDt. */
    UC_SEND_ONLY_WITH_IMMEDIATE(0x25, UC, Kind.SEND, ONLY, Hdr.IMM),
    /** UC RDMA WRITE First, 0x26: RETH. */
    UC_RDMA_WRITE_FIRST(0x26, UC, Kind.WRITE, FIRST, Hdr.RETH),
    /** UC RDMA WRITE Middle, 0x27. */
    UC_RDMA_WRITE_MIDDLE(0x27, UC, Kind.WRITE, MIDDLE, 0),
    /** UC RDMA WRITE Last, 0x28. */
    UC_RDMA_WRITE_LAST(0x28, UC, Kind.WRITE, LAST, 0),
    /** UC RDMA WRITE Last with Immediate, 0x29: ImmDt. */
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x29, UC, Kind.WRITE, LAST, Hdr.IMM),
    /** UC RDMA WRITE Only, 0x2A: RETH. */
    UC_RDMA_WRITE_ONLY(0x2A, UC, Kind.WRITE, ONLY, Hdr.RETH),
    /** UC RDMA WRITE Only with Immediate, 0x2B: RETH, ImmDt. */
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x2B, UC, Kind.WRITE, ONLY, Hdr.RETH | Hdr.IMM),

    /** UD SEND Only, 0x64: DETH. */
    UD_SEND_ONLY(0x64, UD, Kind.SEND, ONLY, Hdr.DETH),
    /** UD SEND Only with Immediate, 0x65: DETH, ImmDt. */
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, UD, Kind.SEND, ONLY, Hdr.DETH | Hdr.IMM);

    /** Operation family; private because the predicates below are the API. */
    private enum Kind { SEND, WRITE, READ_REQUEST, READ_RESPONSE, ACK, ATOMIC_ACK, COMPARE_SWAP, FETCH_ADD }

    /** Extension header bits (IBA 9.3). */
    private static final class Hdr {
        static final int DETH = 1;
        static final int RETH = 1 << 1;
        static final int ATOMIC_ETH = 1 << 2;
        static final int AETH = 1 << 3;
        static final int ATOMIC_ACK_ETH = 1 << 4;
        static final int IMM = 1 << 5;
        static final int IETH = 1 << 6;
    }

    private static final Opcode[] BY_CODE = new Opcode[256];
    /** [transport][position][0 plain, 1 immediate, 2 invalidate]. */
    private static final Opcode[][][] SEND = new Opcode[Transport.values().length][Position.values().length][3];
    /** [transport][position][0 plain, 1 immediate]. */
    private static final Opcode[][][] WRITE = new Opcode[Transport.values().length][Position.values().length][2];
    private static final Opcode[] READ_RESPONSE = new Opcode[Position.values().length];

    static {
        for (Opcode op : values()) {
            BY_CODE[op.code] = op;
            int t = op.transport.ordinal();
            int p = op.position.ordinal();
            switch (op.kind) {
                case SEND -> SEND[t][p][op.hasImm() ? 1 : op.hasIeth() ? 2 : 0] = op;
                case WRITE -> WRITE[t][p][op.hasImm() ? 1 : 0] = op;
                case READ_RESPONSE -> READ_RESPONSE[p] = op;
                default -> { }
            }
        }
    }

    private final int code;
    private final Transport transport;
    private final Kind kind;
    private final Position position;
    private final int dethOffset;
    private final int rethOffset;
    private final int atomicEthOffset;
    private final int aethOffset;
    private final int atomicAckEthOffset;
    private final int immOffset;
    private final int iethOffset;
    private final int headerLength;

    Opcode(int code, Transport transport, Kind kind, Position position, int headers) {
        this.code = code;
        this.transport = transport;
        this.kind = kind;
        this.position = position;
        int at = Bth.LENGTH;
        // IBA 9.2: extension headers follow the BTH in this fixed order.
        dethOffset = (headers & Hdr.DETH) != 0 ? at : -1;
        at += (headers & Hdr.DETH) != 0 ? Deth.LENGTH : 0;
        rethOffset = (headers & Hdr.RETH) != 0 ? at : -1;
        at += (headers & Hdr.RETH) != 0 ? Reth.LENGTH : 0;
        atomicEthOffset = (headers & Hdr.ATOMIC_ETH) != 0 ? at : -1;
        at += (headers & Hdr.ATOMIC_ETH) != 0 ? AtomicEth.LENGTH : 0;
        aethOffset = (headers & Hdr.AETH) != 0 ? at : -1;
        at += (headers & Hdr.AETH) != 0 ? Aeth.LENGTH : 0;
        atomicAckEthOffset = (headers & Hdr.ATOMIC_ACK_ETH) != 0 ? at : -1;
        at += (headers & Hdr.ATOMIC_ACK_ETH) != 0 ? AtomicAckEth.LENGTH : 0;
        immOffset = (headers & Hdr.IMM) != 0 ? at : -1;
        at += (headers & Hdr.IMM) != 0 ? ImmDt.LENGTH : 0;
        iethOffset = (headers & Hdr.IETH) != 0 ? at : -1;
        at += (headers & Hdr.IETH) != 0 ? Ieth.LENGTH : 0;
        headerLength = at;
    }

    /**
     * The opcode with the given 8-bit wire code.
     *
     * @param code BTH opcode byte (0..255; other values give null)
     * @return the opcode, or null when the code is reserved, RD, XRC, CNP or manufacturer specific
     */
    public static Opcode of(int code) {
        return (code & ~0xFF) == 0 ? BY_CODE[code] : null;
    }

    /**
     * The SEND opcode for a packet of a message. Immediate data and invalidate are message properties carried only
     * by the LAST or ONLY packet, so {@code imm} and {@code inv} are ignored for FIRST and MIDDLE.
     *
     * @param t   transport (RC, UC or UD)
     * @param p   position of the packet in its message
     * @param imm message carries immediate data
     * @param inv message carries an invalidate rkey (RC only)
     * @return the opcode, or null when IBA defines none (UD other than ONLY, invalidate outside RC, imm with inv)
     */
    public static Opcode send(Transport t, Position p, boolean imm, boolean inv) {
        if (p == FIRST || p == MIDDLE) {
            return SEND[t.ordinal()][p.ordinal()][0];
        }
        if (imm && inv) {
            return null;
        }
        return SEND[t.ordinal()][p.ordinal()][imm ? 1 : inv ? 2 : 0];
    }

    /**
     * The RDMA WRITE opcode for a packet of a message; {@code imm} is ignored for FIRST and MIDDLE.
     *
     * @param t   transport (RC or UC)
     * @param p   position of the packet in its message
     * @param imm message carries immediate data
     * @return the opcode, or null for UD and RD
     */
    public static Opcode write(Transport t, Position p, boolean imm) {
        return WRITE[t.ordinal()][p.ordinal()][(imm && (p == LAST || p == ONLY)) ? 1 : 0];
    }

    /**
     * The RC RDMA READ response opcode for a packet position.
     *
     * @param p position of the response packet
     * @return RC_RDMA_READ_RESPONSE_FIRST, _MIDDLE, _LAST or _ONLY
     */
    public static Opcode readResponse(Position p) {
        return READ_RESPONSE[p.ordinal()];
    }

    /** The 8-bit BTH opcode. */
    public int code() {
        return code;
    }

    /** The transport service (bits 7-5 of the code). */
    public Transport transport() {
        return transport;
    }

    /** Position in a message; ONLY for ACKs, read requests and atomics. */
    public Position position() {
        return position;
    }

    /** BTH plus extension headers, in bytes; the payload (if any) starts at this offset from the BTH. */
    public int headerLength() {
        return headerLength;
    }

    /** Offset of the DETH from the BTH start, or -1. */
    public int dethOffset() {
        return dethOffset;
    }

    /** Offset of the RETH from the BTH start, or -1. */
    public int rethOffset() {
        return rethOffset;
    }

    /** Offset of the AtomicETH from the BTH start, or -1. */
    public int atomicEthOffset() {
        return atomicEthOffset;
    }

    /** Offset of the AETH from the BTH start, or -1. */
    public int aethOffset() {
        return aethOffset;
    }

    /** Offset of the AtomicAckETH from the BTH start, or -1. */
    public int atomicAckEthOffset() {
        return atomicAckEthOffset;
    }

    /** Offset of the ImmDt from the BTH start, or -1. */
    public int immOffset() {
        return immOffset;
    }

    /** Offset of the IETH from the BTH start, or -1. */
    public int iethOffset() {
        return iethOffset;
    }

    /** Carries a DETH (UD). */
    public boolean hasDeth() {
        return dethOffset >= 0;
    }

    /** Carries a RETH (WRITE FIRST/ONLY, READ request). */
    public boolean hasReth() {
        return rethOffset >= 0;
    }

    /** Carries an AtomicETH (CmpSwap, FetchAdd). */
    public boolean hasAtomicEth() {
        return atomicEthOffset >= 0;
    }

    /** Carries an AETH (ACK, ATOMIC ACK, READ response FIRST/LAST/ONLY). */
    public boolean hasAeth() {
        return aethOffset >= 0;
    }

    /** Carries an AtomicAckETH (ATOMIC ACK). */
    public boolean hasAtomicAckEth() {
        return atomicAckEthOffset >= 0;
    }

    /** Carries immediate data (ImmDt). */
    public boolean hasImm() {
        return immOffset >= 0;
    }

    /** Carries an IETH (SEND with Invalidate). */
    public boolean hasIeth() {
        return iethOffset >= 0;
    }

    /** Carries a data payload: SEND, RDMA WRITE and RDMA READ response packets (rxe RXE_PAYLOAD_MASK). */
    public boolean hasPayload() {
        return kind == Kind.SEND || kind == Kind.WRITE || kind == Kind.READ_RESPONSE;
    }

    /** Sent by a requester: SEND, WRITE, READ request, CmpSwap, FetchAdd. */
    public boolean isRequest() {
        return !isResponse();
    }

    /** Sent by a responder: ACK, ATOMIC ACK, READ response. */
    public boolean isResponse() {
        return kind == Kind.ACK || kind == Kind.ATOMIC_ACK || kind == Kind.READ_RESPONSE;
    }

    /** Position is FIRST. */
    public boolean isFirst() {
        return position == FIRST;
    }

    /** Position is MIDDLE. */
    public boolean isMiddle() {
        return position == MIDDLE;
    }

    /** Position is LAST (ONLY is not LAST; see {@link #isEnd()}). */
    public boolean isLast() {
        return position == LAST;
    }

    /** Position is ONLY. */
    public boolean isOnly() {
        return position == ONLY;
    }

    /** Starts a message: FIRST or ONLY (rxe RXE_START_MASK). */
    public boolean isStart() {
        return position == FIRST || position == ONLY;
    }

    /** Ends a message: LAST or ONLY (rxe RXE_END_MASK). */
    public boolean isEnd() {
        return position == LAST || position == ONLY;
    }

    /** A SEND packet (any variant, any transport). */
    public boolean isSend() {
        return kind == Kind.SEND;
    }

    /** An RDMA WRITE packet (any variant). */
    public boolean isWrite() {
        return kind == Kind.WRITE;
    }

    /** An RDMA READ request. */
    public boolean isReadRequest() {
        return kind == Kind.READ_REQUEST;
    }

    /** An RDMA READ response packet (any position). */
    public boolean isReadResponse() {
        return kind == Kind.READ_RESPONSE;
    }

    /** An atomic request: CmpSwap or FetchAdd. */
    public boolean isAtomic() {
        return kind == Kind.COMPARE_SWAP || kind == Kind.FETCH_ADD;
    }

    /** The plain Acknowledge packet (not ATOMIC ACK; see {@link #isAtomicAck()}). */
    public boolean isAck() {
        return kind == Kind.ACK;
    }

    /** The ATOMIC Acknowledge packet. */
    public boolean isAtomicAck() {
        return kind == Kind.ATOMIC_ACK;
    }

    /**
     * Uses a receive WQE: every SEND packet (all positions and variants) and RDMA WRITE LAST/ONLY with Immediate.
     * The packets of this set that make the responder fetch a new WQE (rxe's RXE_RWR_MASK) are
     * {@link #startsReceiveWqe()}; SEND MIDDLE/LAST continue the WQE that SEND FIRST fetched.
     */
    public boolean requiresReceiveWqe() {
        return kind == Kind.SEND || (kind == Kind.WRITE && hasImm());
    }

    /**
     * Makes the responder fetch a receive WQE (RNR NAK when none), exactly rxe's RXE_RWR_MASK: SEND FIRST, SEND
     * ONLY (all variants) and RDMA WRITE LAST/ONLY with Immediate.
     */
    public boolean startsReceiveWqe() {
        return (kind == Kind.SEND && isStart()) || (kind == Kind.WRITE && hasImm());
    }

    /**
     * Completes a receive WQE (a receive completion follows), as rxe's RXE_COMP_MASK on requests: SEND LAST/ONLY
     * (all variants) and RDMA WRITE LAST/ONLY with Immediate.
     */
    public boolean completesReceiveWqe() {
        return (kind == Kind.SEND && isEnd()) || (kind == Kind.WRITE && hasImm());
    }
}
