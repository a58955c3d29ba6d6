package io.jrdma.verbs;

/** Memory window types (ibv_mw_type). */
public enum MwType {
    /** IBV_MW_TYPE_1: bound with {@link QueuePair#bindMw}, not invalidatable by a peer. */
    TYPE_1(1),
    /** IBV_MW_TYPE_2: bound with a {@link WrOpcode#BIND_MW} work request, invalidated by LOCAL_INV or SEND_WITH_INV. */
    TYPE_2(2);

    private final int code;

    MwType(int code) {
        this.code = code;
    }

    /** The libibverbs code. */
    public int code() {
        return code;
    }
}
