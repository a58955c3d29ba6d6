package io.jrdma.soft;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.MwBind;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpTransitions;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Set;

/**
 * A queue pair of the soft device: its attributes, its send and receive rings, and the transport roles that act on
 * them on the engine thread ({@link Requester}, {@link Completer}, {@link Responder}), one of each for every QP type,
 * with what the type changes in {@link #rules}.
 *
 * <p>Rings are single-producer (the posting thread) single-consumer (the engine): the poster writes an entry, then
 * publishes it with a volatile write of the producer index; the engine retires entries with a volatile write of the
 * consumer index.
 */
final class SoftQp implements QueuePair {

    final SoftContext context;
    final Engine engine;
    final SoftPd pd;
    final int qpn;
    final QpType type;
    final TransportRules rules;
    final SoftCq sendCq;
    final SoftCq recvCq;
    final CompletionWriter sendCompletions; // engine thread
    final CompletionWriter recvCompletions; // engine thread
    final QpCap cap;
    final boolean sqSigAll;
    final SoftSrq srq;     // null: the QP has its own receive queue
    final RecvSource recv; // where the responder takes receive WQEs from

    // --- attributes (written on the control path under the engine lock)
    volatile QpState state = QpState.RESET;
    int accessFlags;
    int pkeyIndex;
    int port = 1;
    int qkey;
    Mtu pathMtu = Mtu.MTU_1024;
    int mtuBytes = 1024;
    int destQpn;
    final AhAttr ah = new AhAttr();
    int destIp;
    InetSocketAddress destAddress;
    int srcPort = Link.ROCE_PORT;
    int rqPsn;
    int sqPsn;
    int timeout;
    int retryCnt = 7;
    int rnrRetry = 7;
    int minRnrTimer;
    int maxRdAtomic = 1;
    int maxDestRdAtomic = 1;

    // --- rings
    final SendWqe[] sq;
    final int sqMask;
    volatile long sqProducer;
    volatile long sqConsumer;
    final RecvWqe[] rq;
    final int rqMask;
    volatile long rqProducer;
    volatile long rqConsumer;

    final Requester requester;
    final Completer completer;
    final Responder responder;

    boolean commEstRaised;   // COMM_EST raised since the last RESET
    boolean sqDrainNotify;   // in SQD, entered with en_sqd_async_notify: raise SQ_DRAINED once drained
    boolean lastWqePending;  // on an SRQ, in ERR: raise QP_LAST_WQE_REACHED after the flush
    boolean closed;
    final Arena arena; // the QP's native memory (inline data), freed when it is destroyed

    SoftQp(SoftContext context, SoftPd pd, int qpn, QpInitAttr attr, Arena arena) {
        this.context = context;
        this.arena = arena;
        this.engine = context.engine;
        this.pd = pd;
        this.qpn = qpn;
        this.type = attr.qpType();
        this.rules = TransportRules.of(type);
        this.sendCq = (SoftCq) attr.sendCq();
        this.recvCq = (SoftCq) attr.recvCq();
        this.sendCompletions = new CompletionWriter(sendCq, qpn);
        this.recvCompletions = new CompletionWriter(recvCq, qpn);
        QpCap asked = attr.cap();
        this.srq = (SoftSrq) attr.srq();
        // with an SRQ, max_recv_wr and max_recv_sge are ignored (rxe_qp_chk_cap); a one-slot RQ ring stays unused
        int recvWr = srq != null ? 1 : Math.max(1, asked.maxRecvWr());
        int recvSge = srq != null ? 1 : Math.max(1, asked.maxRecvSge());
        this.cap = new QpCap().maxSendWr(Math.max(1, asked.maxSendWr())).maxRecvWr(recvWr)
                .maxSendSge(Math.max(1, asked.maxSendSge())).maxRecvSge(recvSge)
                .maxInlineData(asked.maxInlineData());
        this.sqSigAll = attr.sqSigAll();
        int sqSize = Integer.highestOneBit(cap.maxSendWr() * 2 - 1);
        sq = new SendWqe[sqSize];
        sqMask = sqSize - 1;
        int inline = cap.maxInlineData();
        MemorySegment inlineArea = inline == 0 ? MemorySegment.NULL : arena.allocate((long) inline * sqSize, 8);
        for (int i = 0; i < sqSize; i++) {
            sq[i] = new SendWqe(cap.maxSendSge(),
                    inline == 0 ? MemorySegment.NULL : inlineArea.asSlice((long) i * inline, inline));
        }
        int rqSize = Integer.highestOneBit(cap.maxRecvWr() * 2 - 1);
        rq = new RecvWqe[rqSize];
        rqMask = rqSize - 1;
        for (int i = 0; i < rqSize; i++) {
            rq[i] = new RecvWqe(cap.maxRecvSge());
        }
        recv = srq != null ? new SrqRecvSource(this, srq) : new RqRecvSource(this);
        requester = new Requester(this);
        completer = new Completer(this);
        responder = new Responder(this);
        if (type == QpType.UD) {
            srcPort = context.link.openSourcePort(Link.qpSourcePort(qpn)); // fixed for the QP's life, as rxe
        }
    }

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public QpCap cap() {
        int recvWr = srq != null ? 0 : cap.maxRecvWr(); // rxe_qp_to_init reports no receive caps with an SRQ
        int recvSge = srq != null ? 0 : cap.maxRecvSge();
        return new QpCap().maxSendWr(cap.maxSendWr()).maxRecvWr(recvWr).maxSendSge(cap.maxSendSge())
                .maxRecvSge(recvSge).maxInlineData(cap.maxInlineData());
    }

    // ------------------------------------------------------------------------------------------------- modify

    @Override
    public void modify(QpAttr attr, Set<QpAttrMask> mask) {
        int bits = QpAttrMask.toBits(mask);
        context.lock.lock();
        try {
            if (closed) {
                throw new VerbsException(Errno.EINVAL, "QP " + qpn + " is destroyed");
            }
            QpState cur = state;
            if (mask.contains(QpAttrMask.CUR_STATE) && attr.curQpState() != cur
                    && !(cur == QpState.ERR || cur == QpState.SQE)) {
                throw new VerbsException(Errno.EINVAL, "cur_qp_state " + attr.curQpState()
                        + " does not match the QP's state " + cur);
            }
            QpState next = mask.contains(QpAttrMask.STATE) ? attr.qpState() : cur;
            QpTransitions.validate(type, cur, next, bits);
            if (cur == QpState.SQD && mask.contains(QpAttrMask.STATE) && next != QpState.ERR
                    && next != QpState.RESET && !sqDrained()) {
                // rxe_qp_chk_attr: a QP still draining may only go to ERR (here also RESET, which any state may
                // go to); IBA: wait for SQ_DRAINED before modifying a QP in SQD
                throw new VerbsException(Errno.EINVAL, "QP " + qpn + " is still draining its send queue in SQD; "
                        + "wait for SQ_DRAINED before modifying it to " + next);
            }
            QpAttrChecks.values(attr, mask, context.portActiveMtu());
            apply(attr, mask);
            if (next == QpState.SQD && cur != QpState.SQD) {
                sqDrainNotify = mask.contains(QpAttrMask.EN_SQD_ASYNC_NOTIFY) && attr.enSqdAsyncNotify();
            } else if (next != QpState.SQD) {
                sqDrainNotify = false;
            }
            transition(cur, next);
        } finally {
            context.lock.unlock();
        }
        engine.doorbell();
    }

    private void apply(QpAttr a, Set<QpAttrMask> m) {
        if (m.contains(QpAttrMask.ACCESS_FLAGS)) {
            accessFlags = a.qpAccessFlags();
        }
        if (m.contains(QpAttrMask.PKEY_INDEX)) {
            pkeyIndex = a.pkeyIndex();
        }
        if (m.contains(QpAttrMask.PORT)) {
            port = a.portNum();
        }
        if (m.contains(QpAttrMask.QKEY)) {
            qkey = a.qkey();
        }
        if (m.contains(QpAttrMask.PATH_MTU)) {
            pathMtu = a.pathMtu();
            mtuBytes = pathMtu.bytes();
            requester.pathMtuChanged();
        }
        if (m.contains(QpAttrMask.DEST_QPN)) {
            destQpn = a.destQpNum();
        }
        if (m.contains(QpAttrMask.AV)) {
            copyAh(a.ahAttr(), ah);
            Gid dgid = ah.dgid();
            destAddress = new InetSocketAddress(dgid.toInet(), Link.ROCE_PORT);
            destIp = Link.ipv4(dgid.toInet());
            context.link.prepare(destIp, Link.ROCE_PORT);
        }
        if (m.contains(QpAttrMask.AV) || m.contains(QpAttrMask.DEST_QPN)) {
            int label = ah.flowLabel() != 0 ? ah.flowLabel() : Link.flowLabel(qpn, destQpn);
            int old = srcPort;
            srcPort = context.link.openSourcePort(Link.sourcePortFor(label));
            context.link.releaseSourcePort(old); // the port it sent from before (none: 4791, never closed)
        }
        if (m.contains(QpAttrMask.RQ_PSN)) {
            rqPsn = a.rqPsn();
            responder.resetPsn(rqPsn);
        }
        if (m.contains(QpAttrMask.SQ_PSN)) {
            sqPsn = a.sqPsn();
            requester.resetPsn(sqPsn);
        }
        if (m.contains(QpAttrMask.TIMEOUT)) {
            timeout = a.timeout();
        }
        if (m.contains(QpAttrMask.RETRY_CNT)) {
            retryCnt = a.retryCnt();
            requester.restartRetryCount();
        }
        if (m.contains(QpAttrMask.RNR_RETRY)) {
            rnrRetry = a.rnrRetry();
            requester.restartRnrRetryCount();
        }
        if (m.contains(QpAttrMask.MIN_RNR_TIMER)) {
            minRnrTimer = a.minRnrTimer();
        }
        if (m.contains(QpAttrMask.MAX_QP_RD_ATOMIC)) {
            maxRdAtomic = a.maxRdAtomic();
        }
        if (m.contains(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            maxDestRdAtomic = a.maxDestRdAtomic();
            responder.resizeResources(Math.max(1, maxDestRdAtomic));
        }
    }

    private static void copyAh(AhAttr from, AhAttr to) {
        to.dgid(from.dgid()).flowLabel(from.flowLabel()).sgidIndex(from.sgidIndex()).hopLimit(from.hopLimit())
                .trafficClass(from.trafficClass()).isGlobal(from.isGlobal()).dlid(from.dlid()).sl(from.sl())
                .srcPathBits(from.srcPathBits()).staticRate(from.staticRate()).portNum(from.portNum());
    }

    /** Moves to {@code next}; runs under the engine lock. */
    private void transition(QpState cur, QpState next) {
        state = next;
        if (next == QpState.RESET) {
            // ibv_modify_qp to RESET discards every queued request without completions
            sqConsumer = sqProducer;
            rqConsumer = rqProducer;
            requester.reset();
            responder.reset();
            requester.resetPsn(0);
            responder.resetPsn(0);
            recv.discard();
            commEstRaised = false;
            lastWqePending = false;
        } else if (next == QpState.RTS && cur == QpState.SQE) {
            // IBA 10.3.1: sends posted while in SQE were flushed; resume with the next one posted from now on
            flushSend();
            requester.reset();
        } else if (next == QpState.ERR && cur != QpState.ERR) {
            requester.stopTimer(); // an ERR QP retransmits nothing; the engine flushes it
            lastWqePending = srq != null;
        } else if (next == QpState.RTS && cur == QpState.RTR) {
            requester.resetRetries();
        }
    }

    /**
     * A send request of a UC or UD QP completed in error (IBA 10.3.1): the QP enters SQE, the send requests behind
     * it are flushed with WR_FLUSH_ERR, and receives go on until the consumer moves it back to RTS. An RC QP goes
     * to ERR instead. Engine thread, lock held. (Kernel rxe moves every QP type to ERR here.)
     */
    void enterSendQueueError() {
        if (type == QpType.RC) {
            enterError();
        } else if (state == QpState.RTS || state == QpState.SQD) {
            state = QpState.SQE;
            flushSend();
        }
    }

    /** The engine moves the QP to ERR after a fatal completion error; queued requests are then flushed. */
    void enterError() {
        if (state != QpState.ERR) {
            state = QpState.ERR;
            requester.stopTimer(); // an ERR QP retransmits nothing; the engine flushes it
            lastWqePending = srq != null;
        }
    }

    /** Queues an affiliated asynchronous event about this QP. */
    void raise(AsyncEventType type) {
        context.events.raise(AsyncEvent.ofQp(type, this));
    }

    /**
     * A request arrived (engine thread): the first one on a QP in RTR raises COMM_EST (the IBA Communication
     * Established affiliated event; qib and rdmavt raise it so, kernel rxe does not raise it at all).
     */
    void requestArrived() {
        if (state == QpState.RTR && !commEstRaised) {
            commEstRaised = true;
            raise(AsyncEventType.COMM_EST);
        }
    }

    /**
     * Whether no message is in progress on the send queue: the oldest unretired WQE, if any, was never started. In
     * SQD that is the drained state (IBA 10.3.1.4): everything begun was sent and acknowledged.
     */
    boolean sqDrained() {
        long c = sqConsumer;
        return c == sqProducer || !sqAt(c).started();
    }

    /** Engine pass: raises SQ_DRAINED once for a QP in SQD that asked for it and has drained (rxe req_next_wqe). */
    void checkSqDrained() {
        if (sqDrainNotify && state == QpState.SQD && sqDrained()) {
            sqDrainNotify = false;
            raise(AsyncEventType.SQ_DRAINED);
        }
    }

    @Override
    public QpAttr query(QpAttr attr) {
        context.lock.lock();
        try {
            attr.qpState(state).curQpState(state).pathMtu(pathMtu).qkey(qkey).rqPsn(responder.expectedPsn())
                    .sqPsn(requester.nextPsn()).destQpNum(destQpn).qpAccessFlags(accessFlags).cap(cap())
                    .pkeyIndex(pkeyIndex).portNum(port).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
                    .minRnrTimer(minRnrTimer).maxRdAtomic(maxRdAtomic).maxDestRdAtomic(maxDestRdAtomic)
                    .sqDraining(state == QpState.SQD && !sqDrained());
            AhAttr out = attr.ahAttr() != null ? attr.ahAttr() : new AhAttr();
            copyAh(ah, out);
            attr.ahAttr(out);
            return attr;
        } finally {
            context.lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------- posting

    @Override
    public void postSend(SendWr first) {
        try {
            PostChecks.postSend(this, first);
        } finally {
            engine.doorbell(); // as rxe: the requests accepted before a refused one start now
        }
    }

    @Override
    public void postRecv(RecvWr first) {
        try {
            PostChecks.postRecv(this, first);
        } finally {
            engine.recvDoorbell();
        }
    }

    @Override
    public int bindMw(MemoryWindow mw, MwBind bind) {
        int rkey = PostChecks.postBind(this, mw, bind);
        engine.doorbell();
        return rkey;
    }

    // ------------------------------------------------------------------------------------------------- engine side

    /** Publishes the send WQEs posted up to {@code producer} (posting thread: a volatile write). */
    void publishSend(long producer) {
        sqProducer = producer;
    }

    /** Publishes the receive WQEs posted up to {@code producer} (posting thread: a volatile write). */
    void publishRecv(long producer) {
        rqProducer = producer;
    }

    SendWqe sqAt(long index) {
        return sq[(int) index & sqMask];
    }

    RecvWqe rqAt(long index) {
        return rq[(int) index & rqMask];
    }

    /**
     * Frees the oldest send queue slot (its WQE was read): a poller that sees its completion may post into it at
     * once, so this comes before the CQE is pushed, as rxe's do_complete does.
     */
    void freeSendSlot() {
        sqConsumer = sqConsumer + 1;
    }

    /** Frees the oldest receive queue slot, before its completion is pushed (as {@link #freeSendSlot}). */
    void freeRecvSlot() {
        rqConsumer = rqConsumer + 1;
    }

    /** Retires the oldest send WQE, completing it when signaled or when it failed. */
    void retireSend(SendWqe w, WcStatus status) {
        if (status == WcStatus.SUCCESS && w.localStatus() != null) {
            status = w.localStatus(); // a bind or local invalidate completes with the result it had when it ran
        }
        boolean complete = status != WcStatus.SUCCESS || w.signaled || sqSigAll;
        WcOpcode op = w.opcode.completionOpcode();
        long wrId = w.wrId;
        int length = (int) w.length;
        boolean local = w.localStatus() != null;
        // as rxe's do_complete: free the slot before the CQE is visible, so a poller that sees the completion can post
        // into the slot at once (the WQE's fields are read above: the slot may be reused from here on)
        freeSendSlot();
        if (complete && !sendCompletions.of(wrId, status, op).byteLen(length).push()) {
            enterError(); // the send CQ overran: not lost silently, the QP fails (CQ_ERR raised) and flushes the rest
        }
        if (status == WcStatus.SUCCESS && op == WcOpcode.SEND) {
            context.counters.increment(Counter.RDMA_SENDS); // as rxe's completer counts rdma_sends
        }
        if (local && status != WcStatus.SUCCESS) {
            enterError();
        } else if (status == WcStatus.SUCCESS) {
            LocalOps.retireExecuted(this); // local operations waiting only for this one complete now
        }
    }

    /** Flushes every queued send and receive request with WR_FLUSH_ERR (the QP is in ERR). */
    int flush() {
        int n = 0;
        long sp = sqProducer;
        for (long i = sqConsumer; i != sp; i++) {
            SendWqe w = sqAt(i);
            if (w.mw != null && w.localStatus() == null) {
                w.mw.userKey(w.mw.key); // a bind that never ran leaves the window's rkey as it was
            }
            sendCompletions.of(w.wrId, WcStatus.WR_FLUSH_ERR, w.opcode.completionOpcode()).push();
            sqConsumer = i + 1;
            n++;
        }
        long rp = rqProducer;
        for (long i = rqConsumer; i != rp; i++) {
            recvCompletions.of(rqAt(i).wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV).push();
            rqConsumer = i + 1;
            n++;
        }
        n += recv.flushTaken(); // a WQE taken from the SRQ for a message cut short
        if (lastWqePending) {
            // IBA o11-5.2.5: the QP on an SRQ is in ERR and its last WQE has completed (rxe flush_recv_queue)
            lastWqePending = false;
            raise(AsyncEventType.QP_LAST_WQE_REACHED);
            n++;
        }
        return n;
    }

    /** Flushes every queued send request with WR_FLUSH_ERR (SQE: the receive queue keeps working). */
    int flushSend() {
        int n = 0;
        long sp = sqProducer;
        for (long i = sqConsumer; i != sp; i++) {
            SendWqe w = sqAt(i);
            sendCompletions.of(w.wrId, WcStatus.WR_FLUSH_ERR, w.opcode.completionOpcode()).push();
            sqConsumer = i + 1;
            n++;
        }
        return n;
    }

    boolean hasUnflushed() {
        return sqConsumer != sqProducer || rqConsumer != rqProducer || recv.holdsTaken() || lastWqePending;
    }

    @Override
    public void close() {
        context.destroyQp(this);
    }

    @Override
    public String toString() {
        return "QP[" + qpn + " " + type + " " + state + "]";
    }

    /** Destroyed (control path, device lock held): every later use of it fails. */
    void markClosed() {
        closed = true;
    }
}
