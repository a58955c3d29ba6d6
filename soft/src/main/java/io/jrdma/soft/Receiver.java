package io.jrdma.soft;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Deth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.Opcode;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The receive path (rxe_recv): takes datagrams in from the link in batches, splits GRO runs into packets, runs the
 * header checks in rxe's order (length, opcode, header and pad, destination QP, transport, QP state, P_Key, source
 * address, Q_Key, ICRC) and dispatches each packet that passes to its QP's responder or completer. A failed check
 * drops and counts the packet; an exception from a malformed packet is caught per packet and counted, never
 * propagated. Engine thread only, under the device lock.
 */
final class Receiver {

    /** Most datagrams one receive takes in (a batch per system call while the socket has more). */
    private static final int RX_BATCH = 1024;
    /** Bytes of a receive buffer: any UDP datagram (a GRO run of packets is at most 65,507 bytes). */
    private static final int RX_BYTES = 65536;

    private final Link link;
    private final QpTable qps;
    private final Counters counters;
    private final PortFlags port;
    private final FailureLog failures;
    private final CompletionTally completions;
    private final boolean callerDriven;
    private final int localIp;
    private final Icrc icrc = new Icrc();
    /** The datagram in hand came through this host's memory with its ICRCs left out ({@link Link#batchIcrcOmitted}). */
    private boolean icrcOmitted;
    private final IpIdPolicy ipIds = new IpIdPolicy();
    private final RxPacket pkt = new RxPacket();
    // one receive buffer per datagram of a batch (Link.receiveBatch), with views at the packets of a GRO run
    private final ByteBuffer[] rxBuffers;
    private final MemorySegment[] rxSegments;
    private final RxViews[] rxViews;
    /**
     * Whether the last receive call found nothing. A pass of a device whose callers drive it (invoker and adaptive
     * modes) then asks for one datagram: in a ping-pong
     * the next one comes alone, and a receive asked for more would try for a second, and fail, before it returns
     * (about 0.2 us a call here). When that datagram completed a work request, the pass stops receiving, so the
     * caller's poll returns with the completion at once; otherwise it goes on with whole batches, so a burst (a
     * message's packets, duplicates, a run of atomics) is still taken in by one pass.
     */
    private boolean rxWasEmpty = true;
    /** Bytes the last {@link #receive} took in (a hint for other threads: {@link CallerBackoff}). */
    private int lastBytes;

    Receiver(Link link, QpTable qps, Counters counters, PortFlags port, FailureLog failures,
            CompletionTally completions, boolean callerDriven) {
        this.link = link;
        this.qps = qps;
        this.counters = counters;
        this.port = port;
        this.failures = failures;
        this.completions = completions;
        this.callerDriven = callerDriven;
        this.localIp = link.localIp();
        ByteBuffer rxArea = ByteBuffer.allocateDirect(Link.RX_BATCH * RX_BYTES);
        rxBuffers = new ByteBuffer[Link.RX_BATCH];
        rxSegments = new MemorySegment[Link.RX_BATCH];
        rxViews = new RxViews[Link.RX_BATCH];
        for (int i = 0; i < Link.RX_BATCH; i++) {
            rxBuffers[i] = rxArea.slice(i * RX_BYTES, RX_BYTES);
            rxSegments[i] = MemorySegment.ofBuffer(rxBuffers[i]);
            rxViews[i] = new RxViews(rxSegments[i]);
        }
    }

    /**
     * Takes in up to {@link #RX_BATCH} datagrams, a batch per system call; a batch smaller than asked for means the
     * socket is drained, so a pass that finds work makes no empty receive call. A caller-driven device's receive
     * after an empty one, and a waiting one ({@code wait}: its first call sleeps until a datagram arrives), asks for
     * a single datagram first (see {@link #rxWasEmpty}). Returns the datagrams taken in.
     */
    int receive(long now, boolean wait) {
        int n = 0;
        int bytes = 0;
        while (n < RX_BATCH) {
            boolean single = callerDriven && (wait || rxWasEmpty);
            int ask = single ? 1 : rxBuffers.length;
            int got = wait && n == 0 ? link.receiveBatchWaiting(rxBuffers, ask) : link.receiveBatch(rxBuffers, ask);
            rxWasEmpty = got == 0;
            long pushed = completions.count();
            for (int i = 0; i < got; i++) {
                bytes += link.batchLength(i);
                datagram(i, now);
            }
            n += got;
            if (got < ask || (single && completions.count() != pushed)) {
                break; // drained, or a single datagram completed a work request (see rxWasEmpty)
            }
        }
        lastBytes = bytes;
        return n;
    }

    /** Bytes the last {@link #receive} took in. */
    int lastBytes() {
        return lastBytes;
    }

    /** The {@code i}th datagram of the batch just received: one packet, or a GRO run of them. */
    private void datagram(int i, long now) {
        int total = link.batchLength(i);
        if (total == 0 && link.isWakeUp(i)) {
            return; // a post's wake-up for a thread asleep in a receive (see Engine.doorbell)
        }
        icrcOmitted = link.batchIcrcOmitted(i);
        int segment = link.batchSegmentSize(i);
        int srcIp = link.batchSenderIp(i);
        int srcPort = link.batchSenderPort(i);
        if (segment <= 0 || segment >= total) {
            pkt.arrived(rxSegments[i], rxBuffers[i], 0, total, srcIp, srcPort, 0);
            packet(now);
            return;
        }
        // a GRO run: the packets of one GSO send, each `segment` bytes but the last, IPv4 IDs 0, 1, 2...
        RxViews views = rxViews[i];
        int k = 0;
        for (int off = 0; off < total; off += segment, k++) {
            pkt.arrived(views.view(segment, k), rxBuffers[i], off, Math.min(segment, total - off), srcIp, srcPort, k);
            packet(now);
        }
    }

    private void packet(long now) {
        try {
            checkAndDispatch(now);
        } catch (RuntimeException e) {
            counters.increment(Counter.RCVD_DROPPED); // a bad packet must never stop the engine
            failures.record(e);
        }
    }

    /** The receive checks in their fixed order, then the dispatch to the QP's role. */
    private void checkAndDispatch(long now) {
        if (port.down()) {
            counters.increment(Counter.RCVD_DROPPED); // the link is down: the datagram never arrived
            return;
        }
        MemorySegment rx = pkt.segment();
        int len = pkt.length();
        int srcIp = pkt.srcIp();
        PacketTap t = port.tap();
        if (t != null) {
            if (icrcOmitted && len >= Icrc.MIN_IB_LENGTH) { // the tap sees the packet the wire would have carried
                icrc.writeIpv4(srcIp, localIp, pkt.srcPort(), link.port(), pkt.ipIdHint(), pkt.buffer(), pkt.offset(),
                        len);
            }
            t.onPacket(false, rx, 0, len, srcIp, pkt.srcPort(), localIp, link.port());
        }
        counters.add(Counter.PORT_RCV_DATA, len);
        counters.increment(Counter.PORT_RCV_PACKETS);
        if (len < Bth.LENGTH + 4) {
            drop();
            return;
        }
        Opcode op = Opcode.of(Bth.opcode(rx, 0));
        if (op == null || Bth.tver(rx, 0) != 0) {
            drop();
            return;
        }
        int hdr = op.headerLength();
        int payload = len - hdr - 4 - Bth.padCount(rx, 0);
        if (payload < 0) {
            drop();
            return;
        }
        int destQpn = Bth.destQp(rx, 0);
        SoftQp qp = qps.byQpn(destQpn);
        if (qp == null && destQpn < QpTable.SPECIAL_QPS) {
            counters.increment(Counter.MAD_NO_PORT); // QP 0 or 1 with no MAD port open: no such QP now
            return;
        }
        if (qp == null || op.transport() != qp.rules.transport()) {
            drop(); // includes a UD packet for a UC or RC QP and the other way round
            return;
        }
        QpState s = qp.state;
        boolean accepting = op.isRequest()
                ? s == QpState.RTR || s == QpState.RTS || s == QpState.SQD || s == QpState.SQE
                : s == QpState.RTS || s == QpState.SQD;
        // a UD QP takes datagrams from anyone; a connected QP only from its peer
        if (!accepting || (Bth.pkey(rx, 0) & 0x7FFF) != 0x7FFF || (qp.type != QpType.UD && srcIp != qp.destIp)) {
            drop();
            return;
        }
        if (op.hasDeth() && Deth.qkey(rx, op.dethOffset()) != qp.qkey) {
            counters.increment(Counter.QKEY_VIOLATIONS); // rxe check_keys: silently dropped, qkey_viol_cntr
            return;
        }
        if (!icrcOk(QpTable.slot(qp.qpn))) {
            counters.increment(Counter.ICRC_ERR);
            return;
        }
        if (destQpn < QpTable.SPECIAL_QPS && payload != MadPort.MAD_SIZE) {
            counters.increment(Counter.MAD_LEN_DROPPED); // QP 0 and 1 take whole MADs only
            return;
        }
        counters.increment(Counter.RCVD_PKTS);
        if (op.isRequest() && qp.type != QpType.UD) {
            qp.requestArrived(); // COMM_EST on the first request reaching an RC or UC QP in RTR
        }
        if (op.isRequest()) {
            qp.responder.onRequest(op, rx, hdr, payload, srcIp, pkt.ipId(), len);
        } else { // only RC has responses
            qp.completer.onResponse(op, rx, hdr, payload, now);
        }
    }

    /**
     * The ICRC covers the IPv4 ID, which the socket API hides. jrdma sends ID 0 (DF, unconnected socket), or a
     * GSO batch's index, so the packet's hint is tried first; kernel rxe picks other IDs, so the unique ID that
     * would make the CRC match is solved for. A corrupted packet verifies under no ID except with probability
     * 2^-16, and not at all from a source known to send ID 0 ({@link IpIdPolicy}).
     */
    private boolean icrcOk(int slot) {
        int srcIp = pkt.srcIp();
        int srcPort = pkt.srcPort();
        int hint = pkt.ipIdHint();
        if (icrcOmitted) {
            pkt.verifiedUnder(hint); // memory carried it: nothing to check (ShmLink)
            return true;
        }
        if (icrc.verifyIpv4(srcIp, localIp, srcPort, link.port(), hint, pkt.buffer(), pkt.offset(), pkt.length())) {
            ipIds.verifiedWithZero(slot, IpIdPolicy.key(srcIp, srcPort)); // the ID a jrdma sender uses
            pkt.verifiedUnder(hint);
            return true;
        }
        int id = icrc.solveIpv4Id(srcIp, localIp, srcPort, link.port(), pkt.buffer(), pkt.offset(), pkt.length());
        if (id >= 0 && ipIds.acceptSolved(slot, IpIdPolicy.key(srcIp, srcPort), id)) {
            counters.increment(Counter.ICRC_ID_SOLVED);
            pkt.verifiedUnder(id);
            return true;
        }
        return false;
    }

    private void drop() {
        counters.increment(Counter.RCVD_DROPPED);
    }
}
