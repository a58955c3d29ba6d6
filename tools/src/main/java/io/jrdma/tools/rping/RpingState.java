package io.jrdma.tools.rping;

/** rping's test states (enum test_state), in its order; {@link #code()} is the number rping prints. */
enum RpingState {
    IDLE, CONNECT_REQUEST, ADDR_RESOLVED, ROUTE_RESOLVED, CONNECTED, RDMA_READ_ADV, RDMA_READ_COMPLETE,
    RDMA_WRITE_ADV, RDMA_WRITE_COMPLETE, DISCONNECTED, ERROR;

    /** The C enum's value (IDLE is 1). */
    int code() {
        return ordinal() + 1;
    }
}
