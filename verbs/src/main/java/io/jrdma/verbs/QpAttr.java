package io.jrdma.verbs;

/**
 * Queue pair attributes (ibv_qp_attr): the input of {@link QueuePair#modify} (only the fields named in the
 * {@link QpAttrMask} count) and the output of {@link QueuePair#query}. Mutable and reusable; the nested
 * {@link #cap()}, {@link #ahAttr()} and {@link #altAhAttr()} are this object's own instances, changed in place.
 */
public final class QpAttr {

    private static final QpAttr EMPTY = new QpAttr();

    private QpState qpState = QpState.RESET;
    private QpState curQpState = QpState.RESET;
    private Mtu pathMtu;
    private int pathMigState;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int qpAccessFlags;
    private final QpCap cap = new QpCap();
    private final AhAttr ahAttr = new AhAttr();
    private final AhAttr altAhAttr = new AhAttr();
    private int pkeyIndex;
    private int altPkeyIndex;
    private boolean enSqdAsyncNotify;
    private boolean sqDraining;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int altPortNum;
    private int altTimeout;

    /** Empty attributes: states RESET, no path MTU, every number 0. */
    public QpAttr() {
    }

    /** The state to move to (ibv_qp_attr.qp_state; {@link QpAttrMask#STATE}); the current state from query. */
    public QpState qpState() {
        return qpState;
    }

    /** Sets the state to move to (qp_state); returns this. */
    public QpAttr qpState(QpState qpState) {
        this.qpState = qpState;
        return this;
    }

    /** The state the caller assumes the QP is in (ibv_qp_attr.cur_qp_state; {@link QpAttrMask#CUR_STATE}). */
    public QpState curQpState() {
        return curQpState;
    }

    /** Sets the assumed current state (cur_qp_state); returns this. */
    public QpAttr curQpState(QpState curQpState) {
        this.curQpState = curQpState;
        return this;
    }

    /** The path MTU (ibv_qp_attr.path_mtu; {@link QpAttrMask#PATH_MTU}); null until set. */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /** Sets the path MTU (path_mtu); returns this. */
    public QpAttr pathMtu(Mtu pathMtu) {
        this.pathMtu = pathMtu;
        return this;
    }

    /**
     * The path migration state, an ibv_mig_state code: 0 MIGRATED, 1 REARM, 2 ARMED (ibv_qp_attr.path_mig_state;
     * {@link QpAttrMask#PATH_MIG_STATE}).
     */
    public int pathMigState() {
        return pathMigState;
    }

    /** Sets the path migration state (path_mig_state); returns this. */
    public QpAttr pathMigState(int pathMigState) {
        this.pathMigState = pathMigState;
        return this;
    }

    /** The Q_Key of a UD QP (ibv_qp_attr.qkey; {@link QpAttrMask#QKEY}). */
    public int qkey() {
        return qkey;
    }

    /** Sets the Q_Key (qkey); returns this. */
    public QpAttr qkey(int qkey) {
        this.qkey = qkey;
        return this;
    }

    /** The first PSN expected from the peer, 24 bits (ibv_qp_attr.rq_psn; {@link QpAttrMask#RQ_PSN}). */
    public int rqPsn() {
        return rqPsn;
    }

    /** Sets the first expected receive PSN (rq_psn); returns this. */
    public QpAttr rqPsn(int rqPsn) {
        this.rqPsn = rqPsn;
        return this;
    }

    /** The first PSN to send, 24 bits (ibv_qp_attr.sq_psn; {@link QpAttrMask#SQ_PSN}). */
    public int sqPsn() {
        return sqPsn;
    }

    /** Sets the first send PSN (sq_psn); returns this. */
    public QpAttr sqPsn(int sqPsn) {
        this.sqPsn = sqPsn;
        return this;
    }

    /** The remote QP number of an RC or UC QP (ibv_qp_attr.dest_qp_num; {@link QpAttrMask#DEST_QPN}). */
    public int destQpNum() {
        return destQpNum;
    }

    /** Sets the remote QP number (dest_qp_num); returns this. */
    public QpAttr destQpNum(int destQpNum) {
        this.destQpNum = destQpNum;
        return this;
    }

    /**
     * The {@link Access} flags for incoming operations: REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC
     * (ibv_qp_attr.qp_access_flags; {@link QpAttrMask#ACCESS_FLAGS}).
     */
    public int qpAccessFlags() {
        return qpAccessFlags;
    }

    /** Sets the access flags for incoming operations (qp_access_flags); returns this. */
    public QpAttr qpAccessFlags(int qpAccessFlags) {
        this.qpAccessFlags = qpAccessFlags;
        return this;
    }

    /** The queue sizes (ibv_qp_attr.cap; {@link QpAttrMask#CAP}): this object's own instance. */
    public QpCap cap() {
        return cap;
    }

    /** Copies {@code cap} into this object's queue sizes; returns this. */
    public QpAttr cap(QpCap cap) {
        this.cap.copyFrom(cap);
        return this;
    }

    /** The primary path's address vector (ibv_qp_attr.ah_attr; {@link QpAttrMask#AV}): this object's own instance. */
    public AhAttr ahAttr() {
        return ahAttr;
    }

    /** Copies {@code ahAttr} into this object's primary address vector; returns this. */
    public QpAttr ahAttr(AhAttr ahAttr) {
        this.ahAttr.copyFrom(ahAttr);
        return this;
    }

    /**
     * The alternate path's address vector (ibv_qp_attr.alt_ah_attr; {@link QpAttrMask#ALT_PATH}): this object's
     * own instance.
     */
    public AhAttr altAhAttr() {
        return altAhAttr;
    }

    /** Copies {@code altAhAttr} into this object's alternate address vector; returns this. */
    public QpAttr altAhAttr(AhAttr altAhAttr) {
        this.altAhAttr.copyFrom(altAhAttr);
        return this;
    }

    /** The P_Key table index of the primary path (ibv_qp_attr.pkey_index; {@link QpAttrMask#PKEY_INDEX}). */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** Sets the primary P_Key index (pkey_index); returns this. */
    public QpAttr pkeyIndex(int pkeyIndex) {
        this.pkeyIndex = pkeyIndex;
        return this;
    }

    /** The P_Key table index of the alternate path (ibv_qp_attr.alt_pkey_index; {@link QpAttrMask#ALT_PATH}). */
    public int altPkeyIndex() {
        return altPkeyIndex;
    }

    /** Sets the alternate P_Key index (alt_pkey_index); returns this. */
    public QpAttr altPkeyIndex(int altPkeyIndex) {
        this.altPkeyIndex = altPkeyIndex;
        return this;
    }

    /**
     * Whether to raise the SQ drained async event on reaching SQD (ibv_qp_attr.en_sqd_async_notify;
     * {@link QpAttrMask#EN_SQD_ASYNC_NOTIFY}).
     */
    public boolean enSqdAsyncNotify() {
        return enSqdAsyncNotify;
    }

    /** Sets whether to raise the SQ drained event (en_sqd_async_notify); returns this. */
    public QpAttr enSqdAsyncNotify(boolean enSqdAsyncNotify) {
        this.enSqdAsyncNotify = enSqdAsyncNotify;
        return this;
    }

    /** Whether the send queue is still draining in SQD (ibv_qp_attr.sq_draining); query output only. */
    public boolean sqDraining() {
        return sqDraining;
    }

    /** Sets whether the send queue is draining (sq_draining), for providers answering a query; returns this. */
    public QpAttr sqDraining(boolean sqDraining) {
        this.sqDraining = sqDraining;
        return this;
    }

    /**
     * Most outgoing RDMA reads and atomics outstanding at once, the initiator depth (ibv_qp_attr.max_rd_atomic;
     * {@link QpAttrMask#MAX_QP_RD_ATOMIC}).
     */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /** Sets the initiator depth (max_rd_atomic); returns this. */
    public QpAttr maxRdAtomic(int maxRdAtomic) {
        this.maxRdAtomic = maxRdAtomic;
        return this;
    }

    /**
     * Most incoming RDMA reads and atomics outstanding at once, the responder resources
     * (ibv_qp_attr.max_dest_rd_atomic; {@link QpAttrMask#MAX_DEST_RD_ATOMIC}).
     */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /** Sets the responder resources (max_dest_rd_atomic); returns this. */
    public QpAttr maxDestRdAtomic(int maxDestRdAtomic) {
        this.maxDestRdAtomic = maxDestRdAtomic;
        return this;
    }

    /**
     * The RNR NAK timer code sent to peers that find no receive request, 0..31 (0 = 655.36 ms, 1 = 0.01 ms, ...,
     * 31 = 491.52 ms) (ibv_qp_attr.min_rnr_timer; {@link QpAttrMask#MIN_RNR_TIMER}).
     */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /** Sets the RNR NAK timer code (min_rnr_timer); returns this. */
    public QpAttr minRnrTimer(int minRnrTimer) {
        this.minRnrTimer = minRnrTimer;
        return this;
    }

    /** The primary port, counting from 1 (ibv_qp_attr.port_num; {@link QpAttrMask#PORT}). */
    public int portNum() {
        return portNum;
    }

    /** Sets the primary port (port_num); returns this. */
    public QpAttr portNum(int portNum) {
        this.portNum = portNum;
        return this;
    }

    /**
     * The local ACK timeout code: 4.096 us * 2^timeout, 0 = infinite (ibv_qp_attr.timeout;
     * {@link QpAttrMask#TIMEOUT}).
     */
    public int timeout() {
        return timeout;
    }

    /** Sets the local ACK timeout code (timeout); returns this. */
    public QpAttr timeout(int timeout) {
        this.timeout = timeout;
        return this;
    }

    /** Retries after a timeout or sequence NAK, 0..7 (ibv_qp_attr.retry_cnt; {@link QpAttrMask#RETRY_CNT}). */
    public int retryCnt() {
        return retryCnt;
    }

    /** Sets the transport retry count (retry_cnt); returns this. */
    public QpAttr retryCnt(int retryCnt) {
        this.retryCnt = retryCnt;
        return this;
    }

    /** Retries after an RNR NAK, 0..7, 7 = forever (ibv_qp_attr.rnr_retry; {@link QpAttrMask#RNR_RETRY}). */
    public int rnrRetry() {
        return rnrRetry;
    }

    /** Sets the RNR retry count (rnr_retry); returns this. */
    public QpAttr rnrRetry(int rnrRetry) {
        this.rnrRetry = rnrRetry;
        return this;
    }

    /** The alternate path's port (ibv_qp_attr.alt_port_num; {@link QpAttrMask#ALT_PATH}). */
    public int altPortNum() {
        return altPortNum;
    }

    /** Sets the alternate port (alt_port_num); returns this. */
    public QpAttr altPortNum(int altPortNum) {
        this.altPortNum = altPortNum;
        return this;
    }

    /** The alternate path's local ACK timeout code (ibv_qp_attr.alt_timeout; {@link QpAttrMask#ALT_PATH}). */
    public int altTimeout() {
        return altTimeout;
    }

    /** Sets the alternate path's ACK timeout code (alt_timeout); returns this. */
    public QpAttr altTimeout(int altTimeout) {
        this.altTimeout = altTimeout;
        return this;
    }

    /** Copies every field of {@code other}, nested structures by value; returns this. */
    public QpAttr copyFrom(QpAttr other) {
        qpState = other.qpState;
        curQpState = other.curQpState;
        pathMtu = other.pathMtu;
        pathMigState = other.pathMigState;
        qkey = other.qkey;
        rqPsn = other.rqPsn;
        sqPsn = other.sqPsn;
        destQpNum = other.destQpNum;
        qpAccessFlags = other.qpAccessFlags;
        cap.copyFrom(other.cap);
        ahAttr.copyFrom(other.ahAttr);
        altAhAttr.copyFrom(other.altAhAttr);
        pkeyIndex = other.pkeyIndex;
        altPkeyIndex = other.altPkeyIndex;
        enSqdAsyncNotify = other.enSqdAsyncNotify;
        sqDraining = other.sqDraining;
        maxRdAtomic = other.maxRdAtomic;
        maxDestRdAtomic = other.maxDestRdAtomic;
        minRnrTimer = other.minRnrTimer;
        portNum = other.portNum;
        timeout = other.timeout;
        retryCnt = other.retryCnt;
        rnrRetry = other.rnrRetry;
        altPortNum = other.altPortNum;
        altTimeout = other.altTimeout;
        return this;
    }

    /** Resets every field to its initial value; returns this. */
    public QpAttr reset() {
        return copyFrom(EMPTY);
    }

    @Override
    public String toString() {
        return "QpAttr{qpState=" + qpState + ", curQpState=" + curQpState + ", pathMtu=" + pathMtu
                + ", pathMigState=" + pathMigState + ", qkey=0x" + Integer.toHexString(qkey) + ", rqPsn=0x"
                + Integer.toHexString(rqPsn) + ", sqPsn=0x" + Integer.toHexString(sqPsn) + ", destQpNum=0x"
                + Integer.toHexString(destQpNum) + ", qpAccessFlags=" + Access.describe(qpAccessFlags) + ", " + cap
                + ", ahAttr=" + ahAttr + ", altAhAttr=" + altAhAttr + ", pkeyIndex=" + pkeyIndex + ", altPkeyIndex="
                + altPkeyIndex + ", enSqdAsyncNotify=" + enSqdAsyncNotify + ", sqDraining=" + sqDraining
                + ", maxRdAtomic=" + maxRdAtomic + ", maxDestRdAtomic=" + maxDestRdAtomic + ", minRnrTimer="
                + minRnrTimer + ", portNum=" + portNum + ", timeout=" + timeout + ", retryCnt=" + retryCnt
                + ", rnrRetry=" + rnrRetry + ", altPortNum=" + altPortNum + ", altTimeout=" + altTimeout + '}';
    }
}
