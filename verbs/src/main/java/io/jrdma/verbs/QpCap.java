package io.jrdma.verbs;

/**
 * Queue sizes of a queue pair (ibv_qp_cap): asked for at creation, and the granted values (at least those asked
 * for) reported back. Mutable and reusable.
 */
public final class QpCap {

    private int maxSendWr;
    private int maxRecvWr;
    private int maxSendSge;
    private int maxRecvSge;
    private int maxInlineData;

    /** All sizes 0. */
    public QpCap() {
    }

    /** The given sizes. */
    public QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
        this.maxInlineData = maxInlineData;
    }

    /** Most outstanding send requests (ibv_qp_cap.max_send_wr). */
    public int maxSendWr() {
        return maxSendWr;
    }

    /** Sets the most outstanding send requests (max_send_wr); returns this. */
    public QpCap maxSendWr(int maxSendWr) {
        this.maxSendWr = maxSendWr;
        return this;
    }

    /** Most outstanding receive requests (ibv_qp_cap.max_recv_wr). */
    public int maxRecvWr() {
        return maxRecvWr;
    }

    /** Sets the most outstanding receive requests (max_recv_wr); returns this. */
    public QpCap maxRecvWr(int maxRecvWr) {
        this.maxRecvWr = maxRecvWr;
        return this;
    }

    /** Most gather entries per send request (ibv_qp_cap.max_send_sge). */
    public int maxSendSge() {
        return maxSendSge;
    }

    /** Sets the most gather entries per send request (max_send_sge); returns this. */
    public QpCap maxSendSge(int maxSendSge) {
        this.maxSendSge = maxSendSge;
        return this;
    }

    /** Most scatter entries per receive request (ibv_qp_cap.max_recv_sge). */
    public int maxRecvSge() {
        return maxRecvSge;
    }

    /** Sets the most scatter entries per receive request (max_recv_sge); returns this. */
    public QpCap maxRecvSge(int maxRecvSge) {
        this.maxRecvSge = maxRecvSge;
        return this;
    }

    /** Most bytes a send request may carry inline (ibv_qp_cap.max_inline_data). */
    public int maxInlineData() {
        return maxInlineData;
    }

    /** Sets the most inline bytes per send request (max_inline_data); returns this. */
    public QpCap maxInlineData(int maxInlineData) {
        this.maxInlineData = maxInlineData;
        return this;
    }

    /** Copies every field of {@code other}; returns this. */
    public QpCap copyFrom(QpCap other) {
        maxSendWr = other.maxSendWr;
        maxRecvWr = other.maxRecvWr;
        maxSendSge = other.maxSendSge;
        maxRecvSge = other.maxRecvSge;
        maxInlineData = other.maxInlineData;
        return this;
    }

    @Override
    public String toString() {
        return "QpCap{maxSendWr=" + maxSendWr + ", maxRecvWr=" + maxRecvWr + ", maxSendSge=" + maxSendSge
                + ", maxRecvSge=" + maxRecvSge + ", maxInlineData=" + maxInlineData + '}';
    }
}
