/**
 * The soft provider's connection manager: rdma_cm's ids and events over the IBTA CM protocol (REQ, REP, RTU, REJ,
 * MRA, DREQ, DREP, SIDR_REQ, SIDR_REP) on each soft device's QP 1, as the kernel's ib_cm and rdma_cm speak it.
 */
package io.jrdma.soft.cm;
