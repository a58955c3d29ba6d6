package io.jrdma.verbs;

/**
 * What a completion reports (ibv_wc_opcode, ibv_wc.opcode), with the libibverbs codes. Receive completions have
 * bit 7 set ({@code code & 128}), as in libibverbs.
 */
public enum WcOpcode {
    /** IBV_WC_SEND: a send, send with immediate or send with invalidate finished. */
    SEND(0),
    /** IBV_WC_RDMA_WRITE: an RDMA write (with or without immediate) finished. */
    RDMA_WRITE(1),
    /** IBV_WC_RDMA_READ: an RDMA read finished. */
    RDMA_READ(2),
    /** IBV_WC_COMP_SWAP: an atomic compare and swap finished. */
    COMP_SWAP(3),
    /** IBV_WC_FETCH_ADD: an atomic fetch and add finished. */
    FETCH_ADD(4),
    /** IBV_WC_BIND_MW: a memory window bind finished. */
    BIND_MW(5),
    /** IBV_WC_LOCAL_INV: a local invalidate finished. */
    LOCAL_INV(6),
    /** IBV_WC_RECV: a receive request consumed an incoming send. */
    RECV(128),
    /** IBV_WC_RECV_RDMA_WITH_IMM: a receive request consumed by an incoming RDMA write with immediate. */
    RECV_RDMA_WITH_IMM(129);

    private static final WcOpcode[] SEND_SIDE = {SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP, FETCH_ADD, BIND_MW,
        LOCAL_INV};

    private final int code;

    WcOpcode(int code) {
        this.code = code;
    }

    /** The libibverbs code (enum ibv_wc_opcode). */
    public int code() {
        return code;
    }

    /** Whether this completes a receive request (IBV_WC_RECV bit set). */
    public boolean isRecv() {
        return (code & 128) != 0;
    }

    /**
     * The opcode with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException for codes this library does not produce (TSO, tag matching, driver)
     */
    public static WcOpcode of(int code) {
        if (code >= 0 && code < SEND_SIDE.length) {
            return SEND_SIDE[code];
        }
        return switch (code) {
            case 128 -> RECV;
            case 129 -> RECV_RDMA_WITH_IMM;
            default -> throw new IllegalArgumentException("unknown or unsupported ibv_wc_opcode " + code);
        };
    }
}
