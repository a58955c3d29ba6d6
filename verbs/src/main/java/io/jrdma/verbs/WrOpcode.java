package io.jrdma.verbs;

/** Send work request operations (ibv_wr_opcode, ibv_send_wr.opcode), with the libibverbs codes. */
public enum WrOpcode {
    /** IBV_WR_RDMA_WRITE: write local data to remote memory (RC, UC). */
    RDMA_WRITE(0, WcOpcode.RDMA_WRITE),
    /** IBV_WR_RDMA_WRITE_WITH_IMM: RDMA write that also consumes a remote receive request (RC, UC). */
    RDMA_WRITE_WITH_IMM(1, WcOpcode.RDMA_WRITE),
    /** IBV_WR_SEND: send local data into the remote receive request's buffers. */
    SEND(2, WcOpcode.SEND),
    /** IBV_WR_SEND_WITH_IMM: send carrying 32 bits of immediate data. */
    SEND_WITH_IMM(3, WcOpcode.SEND),
    /** IBV_WR_RDMA_READ: read remote memory into local buffers (RC). */
    RDMA_READ(4, WcOpcode.RDMA_READ),
    /** IBV_WR_ATOMIC_CMP_AND_SWP: 64-bit atomic compare and swap on remote memory (RC). */
    ATOMIC_CMP_AND_SWP(5, WcOpcode.COMP_SWAP),
    /** IBV_WR_ATOMIC_FETCH_AND_ADD: 64-bit atomic fetch and add on remote memory (RC). */
    ATOMIC_FETCH_AND_ADD(6, WcOpcode.FETCH_ADD),
    /** IBV_WR_LOCAL_INV: invalidate a local key. */
    LOCAL_INV(7, WcOpcode.LOCAL_INV),
    /** IBV_WR_BIND_MW: bind a type 2 memory window. */
    BIND_MW(8, WcOpcode.BIND_MW),
    /** IBV_WR_SEND_WITH_INV: send that also invalidates a remote key (RC). */
    SEND_WITH_INV(9, WcOpcode.SEND);

    private static final WrOpcode[] VALUES = values();

    private final int code;
    private final WcOpcode completionOpcode;

    WrOpcode(int code, WcOpcode completionOpcode) {
        this.code = code;
        this.completionOpcode = completionOpcode;
    }

    /** The libibverbs code (enum ibv_wr_opcode). */
    public int code() {
        return code;
    }

    /** The opcode of the send-side completion of this operation (as rxe's wr_to_wc_opcode). */
    public WcOpcode completionOpcode() {
        return completionOpcode;
    }

    /** Whether the operation carries immediate data (ibv_send_wr.imm_data). */
    public boolean hasImmediate() {
        return this == RDMA_WRITE_WITH_IMM || this == SEND_WITH_IMM;
    }

    /** Whether the operation targets remote memory by address and rkey (RDMA write/read, atomics). */
    public boolean isRemoteMemory() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM || this == RDMA_READ || isAtomic();
    }

    /** Whether the operation is an 8-byte atomic. */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /**
     * The opcode with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException for codes this library does not offer (TSO, driver)
     */
    public static WrOpcode of(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown or unsupported ibv_wr_opcode " + code);
        }
        return VALUES[code];
    }
}
