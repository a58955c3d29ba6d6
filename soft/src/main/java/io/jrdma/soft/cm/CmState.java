package io.jrdma.soft.cm;

/** The states of a CM id: rdma_cm's address states and ib_cm's communication states in one. */
enum CmState {
    IDLE, ADDR_BOUND, ADDR_RESOLVED, ROUTE_RESOLVED, LISTEN,
    REQ_SENT, REQ_RCVD, REP_SENT, REP_RCVD, ESTABLISHED,
    DREQ_SENT, DREQ_RCVD, TIMEWAIT, DISCONNECTED,
    SIDR_REQ_SENT, SIDR_REQ_RCVD, SIDR_DONE,
    FAILED, CLOSED
}
