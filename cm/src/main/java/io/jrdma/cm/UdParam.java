package io.jrdma.cm;

import io.jrdma.verbs.AhAttr;

/**
 * What a UD (UDP port space) connection event carries (struct rdma_ud_param): the peer's QP number and Q_Key and
 * the address to send to. Given by {@link CmEvent#udParam()} on CONNECT_REQUEST (the requester's address; its QP
 * number is not in a SIDR_REQ, so 0) and on ESTABLISHED at the active side (the responder's QP and Q_Key).
 *
 * @param qpNum       the peer's UD QP number
 * @param qkey        the Q_Key to send with ({@link PortSpace#UDP_QKEY} in the UDP port space)
 * @param ahAttr      the address handle attributes reaching the peer (a copy the caller owns)
 * @param privateData the private data of the SIDR message (a copy)
 */
public record UdParam(int qpNum, int qkey, AhAttr ahAttr, byte[] privateData) {

    /** A deep copy (its own {@link AhAttr} and private data), for a caller to keep or change. */
    public UdParam copy() {
        return new UdParam(qpNum, qkey, new AhAttr().copyFrom(ahAttr), privateData.clone());
    }
}
