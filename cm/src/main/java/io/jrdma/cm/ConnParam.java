package io.jrdma.cm;

import java.util.Arrays;

/**
 * What {@link CmId#connect} and {@link CmId#accept} send, and what a {@link CmEvent} of a connection carries
 * (struct rdma_conn_param). Mutable and reusable; {@link CmEvent#connParam()} returns a copy the caller owns.
 *
 * <p>Ranges (IBTA's fields): responder resources and initiator depth 0..255 (the CM lowers them to the device's
 * limits), retry counts 0..7 (an RNR retry count of 7 means "infinite"). Private data: at most
 * {@link #MAX_REQ_PRIVATE_DATA} bytes on connect in the TCP and UDP port spaces (the REQ's 92 bytes less rdma_cm's
 * 36-byte address header), {@link #MAX_REP_PRIVATE_DATA} on accept, {@link #MAX_REJ_PRIVATE_DATA} on reject.
 */
public final class ConnParam {

    /** Private data an active side may send with {@link CmId#connect} (REQ 92 bytes less the 36-byte header). */
    public static final int MAX_REQ_PRIVATE_DATA = 56;
    /** Private data a UD connect may send (SIDR_REQ 216 bytes less the 36-byte header). */
    public static final int MAX_SIDR_REQ_PRIVATE_DATA = 180;
    /** Private data {@link CmId#accept} may send (REP). */
    public static final int MAX_REP_PRIVATE_DATA = 196;
    /** Private data {@link CmId#reject} may send (REJ). */
    public static final int MAX_REJ_PRIVATE_DATA = 148;
    /** Private data a UD accept may send (SIDR_REP). */
    public static final int MAX_SIDR_REP_PRIVATE_DATA = 136;

    private byte[] privateData = new byte[0];
    private int responderResources;
    private int initiatorDepth;
    private boolean flowControl = true;
    private int retryCount = 7;
    private int rnrRetryCount = 7;
    private boolean srq;
    private int qpNum;

    /** No private data, no RDMA READ/atomic resources, flow control on, retry and RNR retry counts 7. */
    public ConnParam() {
    }

    /** A copy of {@code other}. */
    public ConnParam(ConnParam other) {
        copyFrom(other);
    }

    /** Copies every field of {@code other} into this; returns this. */
    public ConnParam copyFrom(ConnParam other) {
        privateData = other.privateData.clone();
        responderResources = other.responderResources;
        initiatorDepth = other.initiatorDepth;
        flowControl = other.flowControl;
        retryCount = other.retryCount;
        rnrRetryCount = other.rnrRetryCount;
        srq = other.srq;
        qpNum = other.qpNum;
        return this;
    }

    /** The private data (a copy); empty when there is none. */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** The private data's length in bytes. */
    public int privateDataLength() {
        return privateData.length;
    }

    /** Sets the private data (copied; null means none); returns this. */
    public ConnParam privateData(byte[] data) {
        this.privateData = data == null ? new byte[0] : data.clone();
        return this;
    }

    /** RDMA READ and atomic requests this side accepts in flight from the peer (responder_resources). */
    public int responderResources() {
        return responderResources;
    }

    /** Sets responder_resources (0..255); returns this. */
    public ConnParam responderResources(int value) {
        this.responderResources = checkByte("responder resources", value);
        return this;
    }

    /** RDMA READ and atomic requests this side keeps in flight to the peer (initiator_depth). */
    public int initiatorDepth() {
        return initiatorDepth;
    }

    /** Sets initiator_depth (0..255); returns this. */
    public ConnParam initiatorDepth(int value) {
        this.initiatorDepth = checkByte("initiator depth", value);
        return this;
    }

    /** Whether this side generates end-to-end flow control credits (flow_control). */
    public boolean flowControl() {
        return flowControl;
    }

    /** Sets flow_control; returns this. */
    public ConnParam flowControl(boolean value) {
        this.flowControl = value;
        return this;
    }

    /** Transport retries on a missing ACK (retry_count, 0..7). */
    public int retryCount() {
        return retryCount;
    }

    /** Sets retry_count (0..7); returns this. */
    public ConnParam retryCount(int value) {
        this.retryCount = check3("retry count", value);
        return this;
    }

    /** Retries on an RNR NAK (rnr_retry_count, 0..7; 7 = infinite). */
    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    /** Sets rnr_retry_count (0..7); returns this. */
    public ConnParam rnrRetryCount(int value) {
        this.rnrRetryCount = check3("RNR retry count", value);
        return this;
    }

    /** Whether the QP uses a shared receive queue (srq; the CM fills it in from the id's QP). */
    public boolean srq() {
        return srq;
    }

    /** Sets srq; returns this. */
    public ConnParam srq(boolean value) {
        this.srq = value;
        return this;
    }

    /** The QP number to announce when the id has no QP of its own (qp_num; ignored when it has one). */
    public int qpNum() {
        return qpNum;
    }

    /** Sets qp_num (24 bits); returns this. */
    public ConnParam qpNum(int value) {
        if ((value & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("QP number 0x" + Integer.toHexString(value) + " is not 24 bits");
        }
        this.qpNum = value;
        return this;
    }

    private static int checkByte(String what, int value) {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException(what + " " + value + " out of range 0..255");
        }
        return value;
    }

    private static int check3(String what, int value) {
        if (value < 0 || value > 7) {
            throw new IllegalArgumentException(what + " " + value + " out of range 0..7");
        }
        return value;
    }

    @Override
    public String toString() {
        return "ConnParam[privateData=" + privateData.length + "B, responderResources=" + responderResources
                + ", initiatorDepth=" + initiatorDepth + ", flowControl=" + flowControl + ", retryCount=" + retryCount
                + ", rnrRetryCount=" + rnrRetryCount + ", srq=" + srq + ", qpNum=" + qpNum + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnParam p && Arrays.equals(privateData, p.privateData)
                && responderResources == p.responderResources && initiatorDepth == p.initiatorDepth
                && flowControl == p.flowControl && retryCount == p.retryCount && rnrRetryCount == p.rnrRetryCount
                && srq == p.srq && qpNum == p.qpNum;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + qpNum;
    }
}
