package io.jrdma.soft;

import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.SharedReceiveQueue;
import io.jrdma.verbs.SrqAttr;
import io.jrdma.verbs.VerbsException;
import io.jrdma.soft.link.Link;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An open soft device: owns the engine and the resource tables, and enforces libibverbs' destruction order
 * (a resource in use cannot be destroyed: EBUSY).
 */
public final class SoftContext implements Context {

    final SoftDevice device;
    /** Serialises engine passes with control-path changes; posting and polling never take it. */
    final DeviceLock lock = new DeviceLock();
    final Counters counters = new Counters();
    final Link link;
    final QpTable qps = new QpTable();
    final SendShares shares;
    final Transmitter transmitter;
    final CompletionTally completions = new CompletionTally();
    final Engine engine;
    private final PortFlags portFlags;
    private final FailureLog failures = new FailureLog();
    final MrTable mrs = new MrTable(SoftLimits.MAX_MR, SoftLimits.MAX_MW);
    final AsyncEvents events;
    private final List<SoftPd> pds = new ArrayList<>();
    private final List<SoftCq> cqs = new ArrayList<>();
    private final List<SoftChannel> channels = new ArrayList<>();
    private int nextQpSlot;
    private int qpCount;
    private int srqCount;
    private int pdHandles;
    private boolean closed;

    /**
     * Assembles the device's engine over {@code link}: the receive path, the transmit path and the agent that drives
     * them, sharing this context's lock, counters and QP table. The engine thread (dedicated mode) starts with
     * {@link #start}.
     */
    SoftContext(SoftDevice device, Link link, NanoClock clock, Threading threading, PacketTap tap,
            IdleStrategy idle) {
        this.device = device;
        this.link = link;
        this.portFlags = new PortFlags(tap);
        this.shares = new SendShares(link.receiveBufferBytes());
        this.transmitter = new Transmitter(link, counters, portFlags);
        boolean callerDriven = threading != Threading.DEDICATED; // polls run passes: a ping-pong's datagram comes alone
        Receiver receiver = new Receiver(link, qps, counters, portFlags, failures, completions, callerDriven);
        this.engine = new Engine(lock, link, receiver, transmitter, qps, shares, counters, failures, clock,
                threading, idle);
        lock.wakes(engine);
        this.events = new AsyncEvents(engine, counters);
    }

    /** Starts the engine thread of a dedicated- or adaptive-mode device. */
    void start(String name) {
        engine.start(name);
    }

    /** The dedicated engine thread's idle strategy. */
    IdleStrategy idleStrategy() {
        return engine.idleStrategy();
    }

    /** Whether a completed receive's ACK waits for the application's answer ({@link Engine#holdsAckForAnswer}). */
    boolean holdsAckForAnswer() {
        return engine.holdsAckForAnswer();
    }

    /** The device's IPv4 address, as an int. */
    int localIp() {
        return link.localIp();
    }

    /** The device's counters (rxe's hw_counters and the port counters). */
    public Counters counters() {
        return counters;
    }

    /** The last unexpected exception the engine caught (and counted), or null: for diagnosing engine bugs. */
    public RuntimeException lastEngineFailure() {
        return failures.last();
    }

    /** The tap that sees every packet now (the program's joined with the capture and trace options'), or null. */
    PacketTap currentTap() {
        return portFlags.tap();
    }

    /** Sets (or clears, with null) the tap that sees every packet sent and received. */
    public void tap(PacketTap tap) {
        portFlags.tap(device.withOptionTaps(tap)); // capture and trace options keep their taps
    }

    @Override
    public Device device() {
        return device;
    }

    Mtu portActiveMtu() {
        return device.activeMtu();
    }

    @Override
    public DeviceAttr queryDevice() {
        return DeviceAttributes.device(device);
    }

    @Override
    public PortAttr queryPort(int port) {
        return DeviceAttributes.port(device, port, portFlags.state());
    }

    /**
     * Takes port 1 down or brings it back up, as pulling and replugging the link under a kernel rxe device would
     * (rxe follows its netdev's carrier): for testing how applications ride out link loss. While the port is
     * {@link PortState#DOWN}, {@link #queryPort} reports it so, and the device sends and receives nothing: packets
     * are discarded (counted in {@link Counter#PORT_XMIT_DISCARDS} and {@link Counter#RCVD_DROPPED}), so QPs see ACK
     * timeouts and retransmit, recovering when the port comes back within their retry budget and failing with
     * RETRY_EXC_ERR otherwise. QPs keep their state. A change raises {@code PORT_ERR} or {@code PORT_ACTIVE} (port
     * 1) once; setting the current state again does nothing.
     *
     * @param state {@link PortState#DOWN} or {@link PortState#ACTIVE}
     * @throws IllegalArgumentException for any other state
     */
    public void setPortState(PortState state) {
        if (state != PortState.DOWN && state != PortState.ACTIVE) {
            throw new IllegalArgumentException("a soft port can be set DOWN or ACTIVE, not " + state);
        }
        lock.lock();
        try {
            checkOpen();
            if (state == portFlags.state()) {
                return;
            }
            portFlags.state(state);
            boolean down = state == PortState.DOWN;
            if (down) {
                counters.increment(Counter.LINK_DOWNED);
            }
            events.raise(AsyncEvent.ofPort(down ? AsyncEventType.PORT_ERR : AsyncEventType.PORT_ACTIVE, 1));
        } finally {
            lock.unlock();
        }
        engine.doorbell();
    }

    @Override
    public Gid queryGid(int port, int index) {
        return DeviceAttributes.gid(device, port, index);
    }

    // ------------------------------------------------------------------------------------------------- resources

    @Override
    public ProtectionDomain allocPd() {
        lock.lock();
        try {
            checkOpen();
            if (pds.size() >= SoftLimits.MAX_PD) {
                throw new VerbsException(Errno.ENOMEM, "too many protection domains (max " + SoftLimits.MAX_PD + ")");
            }
            SoftPd pd = new SoftPd(this, ++pdHandles);
            pds.add(pd);
            return pd;
        } finally {
            lock.unlock();
        }
    }

    void deallocPd(SoftPd pd) {
        lock.lock();
        try {
            if (pd.closed) {
                return;
            }
            if (pd.users.count() > 0) {
                throw new VerbsException(Errno.EBUSY, "protection domain still has " + pd.users.count()
                        + " memory region(s), window(s), QP(s), SRQ(s) or address handle(s)");
            }
            pd.markClosed();
            pds.remove(pd);
        } finally {
            lock.unlock();
        }
    }

    MemoryRegion register(SoftPd pd, MemorySegment segment, int access) {
        lock.lock();
        try {
            checkOpen();
            if (pd.closed) {
                throw new VerbsException(Errno.EINVAL, "protection domain is deallocated");
            }
            int key = mrs.allocateKey();
            if (key < 0) {
                throw new VerbsException(Errno.ENOMEM, "too many memory regions (max " + SoftLimits.MAX_MR + ")");
            }
            SoftMr mr = new SoftMr(pd, segment, key, access);
            mrs.put(mr);
            pd.users.retain();
            return mr;
        } finally {
            lock.unlock();
        }
    }

    void deregister(SoftMr mr) {
        lock.lock();
        try {
            if (!mr.valid()) {
                return;
            }
            if (mr.boundWindows() > 0) {
                // rxe_dereg_mr (IBA 10.6.7.2.6): a region with bound windows cannot be deregistered
                throw new VerbsException(Errno.EINVAL, "memory region " + mr + " still has " + mr.boundWindows()
                        + " memory window(s) bound to it; unbind, invalidate or deallocate them first");
            }
            mr.invalidate();
            mrs.remove(mr);
            mr.pd.users.release();
        } finally {
            lock.unlock();
        }
    }

    MemoryWindow allocMw(SoftPd pd, MwType type) {
        lock.lock();
        try {
            checkOpen();
            if (pd.closed) {
                throw new VerbsException(Errno.EINVAL, "protection domain is deallocated");
            }
            int key = mrs.allocateMwKey();
            if (key < 0) {
                throw new VerbsException(Errno.ENOMEM, "too many memory windows (max " + SoftLimits.MAX_MW + ")");
            }
            SoftMw mw = new SoftMw(pd, type, key);
            mrs.put(mw);
            pd.users.retain();
            return mw;
        } finally {
            lock.unlock();
        }
    }

    /** ibv_dealloc_mw: the window's rkey dies at once, bound or not (rxe_mw_cleanup). */
    void deallocMw(SoftMw mw) {
        lock.lock();
        try {
            if (mw.closed) {
                return;
            }
            mw.markClosed();
            mw.unbind();
            mrs.remove(mw);
            mw.pd.users.release();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        lock.lock();
        try {
            checkOpen();
            SoftChannel ch = new SoftChannel(this);
            channels.add(ch);
            return ch;
        } finally {
            lock.unlock();
        }
    }

    void destroyChannel(SoftChannel ch) {
        lock.lock();
        try {
            if (ch.closed) {
                return;
            }
            if (ch.users.count() > 0) {
                throw new VerbsException(Errno.EBUSY, "completion channel still has " + ch.users.count() + " CQ(s)");
            }
            ch.markClosed();
            channels.remove(ch);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel) {
        if (cqe < 1 || cqe > SoftLimits.MAX_CQE) {
            throw new VerbsException(Errno.EINVAL, "cqe " + cqe + " is out of range [1, " + SoftLimits.MAX_CQE + "]");
        }
        lock.lock();
        try {
            checkOpen();
            SoftChannel ch = null;
            if (channel != null) {
                if (!(channel instanceof SoftChannel sc) || sc.context != this || sc.closed) {
                    throw new VerbsException(Errno.EINVAL, "completion channel is not open on this context");
                }
                ch = sc;
            }
            if (cqs.size() >= SoftLimits.MAX_CQ) {
                throw new VerbsException(Errno.ENOMEM, "too many CQs (max " + SoftLimits.MAX_CQ + ")");
            }
            SoftCq cq = new SoftCq(this, cqe, ch);
            if (ch != null) {
                ch.users.retain();
            }
            cqs.add(cq);
            return cq;
        } finally {
            lock.unlock();
        }
    }

    void destroyCq(SoftCq cq) {
        lock.lock();
        try {
            if (cq.closed) {
                return;
            }
            if (cq.users.count() > 0) {
                throw new VerbsException(Errno.EBUSY, "completion queue is still used by " + cq.users.count()
                        + " QP(s)");
            }
            cq.markClosed();
            cqs.remove(cq);
            if (cq.channel != null) {
                cq.channel.users.release();
            }
        } finally {
            lock.unlock();
        }
    }

    QueuePair createQp(SoftPd pd, QpInitAttr attr) {
        return createQp(pd, attr, -1);
    }

    /** ibv_create_qp; {@code special} 0 or 1 creates that special QP ({@link MadPort}; EBUSY if it exists). */
    SoftQp createQp(SoftPd pd, QpInitAttr attr, int special) {
        QpAttrChecks.caps(attr);
        lock.lock();
        try {
            checkOpen();
            if (pd.closed) {
                throw new VerbsException(Errno.EINVAL, "protection domain is deallocated");
            }
            for (CompletionQueue c : new CompletionQueue[] {attr.sendCq(), attr.recvCq()}) {
                if (!(c instanceof SoftCq sc) || sc.context != this || sc.closed) {
                    throw new VerbsException(Errno.EINVAL, "the QP's CQs must be open CQs of the same context");
                }
            }
            SoftSrq srq = checkSrqFor(pd, attr.srq());
            if (qpCount >= SoftLimits.MAX_QP) {
                throw new VerbsException(Errno.ENOMEM, "too many QPs (max " + SoftLimits.MAX_QP + ")");
            }
            if (special >= 0 && qps.byQpn(special) != null) {
                throw new VerbsException(Errno.EBUSY, "QP " + special + " is in use (a MAD port is open)");
            }
            while (special < 0 && !qps.slotFree(nextQpSlot)) {
                nextQpSlot = (nextQpSlot + 1) % SoftLimits.MAX_QP;
            }
            int qpn = special >= 0 ? special : SoftLimits.QPN_BASE + nextQpSlot;
            nextQpSlot = special >= 0 ? nextQpSlot : (nextQpSlot + 1) % SoftLimits.MAX_QP;
            Arena arena = Arena.ofShared();
            SoftQp qp = new SoftQp(this, pd, qpn, attr, arena);
            qpCount++;
            pd.users.retain();
            qp.sendCq.users.retain();
            qp.recvCq.users.retain();
            if (srq != null) {
                srq.users.retain();
            }
            qps.add(qp);
            return qp;
        } finally {
            lock.unlock();
        }
    }

    /**
     * ibv_create_ah: RoCE needs a global route (is_global, a dgid) on port 1; this device reaches IPv4-mapped GIDs
     * only, as {@link SoftQp} checks for a connected QP's address vector.
     */
    AddressHandle createAh(SoftPd pd, AhAttr attr) {
        if (attr == null) {
            throw new VerbsException(Errno.EINVAL, "ah_attr is missing");
        }
        if (!attr.isGlobal() || attr.dgid() == null || attr.dgid().isZero()) {
            throw new VerbsException(Errno.EINVAL, "RoCE needs a global route in ah_attr (is_global and dgid)");
        }
        if (!attr.dgid().isIpv4Mapped()) {
            throw new VerbsException(Errno.EINVAL, "dgid " + attr.dgid()
                    + " is not an IPv4-mapped GID; this device speaks RoCEv2 over IPv4 (use GID index 1)");
        }
        if (attr.portNum() != 1) {
            throw new VerbsException(Errno.EINVAL, "ah_attr port_num " + attr.portNum()
                    + " does not exist (the device has port 1)");
        }
        if (attr.sgidIndex() < 0 || attr.sgidIndex() >= SoftLimits.GID_TABLE_LENGTH) {
            throw new VerbsException(Errno.EINVAL, "sgid_index " + attr.sgidIndex() + " is out of range [0, "
                    + (SoftLimits.GID_TABLE_LENGTH - 1) + "]");
        }
        lock.lock();
        try {
            checkOpen();
            if (pd.closed) {
                throw new VerbsException(Errno.EINVAL, "protection domain is deallocated");
            }
            SoftAh ah = new SoftAh(pd, attr);
            pd.users.retain();
            return ah;
        } finally {
            lock.unlock();
        }
    }

    void destroyAh(SoftAh ah) {
        lock.lock();
        try {
            if (ah.closed) {
                return;
            }
            ah.markClosed();
            ah.pd.users.release();
        } finally {
            lock.unlock();
        }
    }

    void destroyQp(SoftQp qp) {
        lock.lock();
        try {
            if (qp.closed) {
                return;
            }
            qp.responder.sendWaitingAck();
            transmitter.flush();
            link.releaseSourcePort(qp.srcPort); // its send socket closes with its last QP
            qp.markClosed();
            qps.remove(qp);
            qpCount--;
            qp.pd.users.release();
            qp.sendCq.users.release();
            qp.recvCq.users.release();
            if (qp.srq != null) {
                qp.srq.users.release();
            }
            qp.arena.close();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The SRQ a new QP of {@code pd} is to use, or null. An SRQ of another protection domain is refused with EINVAL,
     * as an invalid argument: the QP's responder checks the SRQ's lkeys against the QP's PD, so such a QP could
     * never place a message (kernel rxe accepts it and fails each receive with a protection error instead).
     */
    private SoftSrq checkSrqFor(SoftPd pd, SharedReceiveQueue s) {
        if (s == null) {
            return null;
        }
        if (!(s instanceof SoftSrq srq) || srq.context != this || srq.closed) {
            throw new VerbsException(Errno.EINVAL, "the QP's SRQ must be an open SRQ of the same context");
        }
        if (srq.pd != pd) {
            throw new VerbsException(Errno.EINVAL, "the SRQ belongs to another protection domain than the QP");
        }
        return srq;
    }

    SharedReceiveQueue createSrq(SoftPd pd, SrqAttr attr) {
        if (attr == null) {
            throw new VerbsException(Errno.EINVAL, "create_srq needs attributes");
        }
        // rxe_srq_chk_init: 1 <= max_wr <= max_srq_wr, max_sge <= max_srq_sge (0 is raised to 1)
        if (attr.maxWr() <= 0 || attr.maxWr() > SoftLimits.MAX_SRQ_WR) {
            throw new VerbsException(Errno.EINVAL, "max_wr " + attr.maxWr() + " is out of range [1, "
                    + SoftLimits.MAX_SRQ_WR + "]");
        }
        if (attr.maxSge() < 0 || attr.maxSge() > SoftLimits.MAX_SRQ_SGE) {
            throw new VerbsException(Errno.EINVAL, "max_sge " + attr.maxSge() + " is out of range [0, "
                    + SoftLimits.MAX_SRQ_SGE + "]");
        }
        // rxe_srq_from_init arms the limit given at creation (libibverbs documents it as ignored there)
        SoftSrq.checkLimit(attr.srqLimit(), attr.maxWr());
        lock.lock();
        try {
            checkOpen();
            if (pd.closed) {
                throw new VerbsException(Errno.EINVAL, "protection domain is deallocated");
            }
            if (srqCount >= SoftLimits.MAX_SRQ) {
                throw new VerbsException(Errno.ENOMEM, "too many SRQs (max " + SoftLimits.MAX_SRQ + ")");
            }
            SoftSrq srq = new SoftSrq(this, pd, attr.maxWr(), Math.max(1, attr.maxSge()), attr.srqLimit());
            srqCount++;
            pd.users.retain();
            return srq;
        } finally {
            lock.unlock();
        }
    }

    void destroySrq(SoftSrq srq) {
        lock.lock();
        try {
            if (srq.closed) {
                return;
            }
            if (srq.users.count() > 0) {
                throw new VerbsException(Errno.EBUSY, "shared receive queue is still used by " + srq.users.count()
                        + " QP(s)");
            }
            srq.markClosed();
            srqCount--;
            srq.pd.users.release();
        } finally {
            lock.unlock();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "device context is closed");
        }
    }

    @Override
    public AsyncEvent awaitAsyncEvent(Duration timeout) {
        return events.await(timeout);
    }

    @Override
    public int progress() {
        return engine.progress();
    }

    /** True in {@link Threading#INVOKER} mode, the one without an engine thread. */
    @Override
    public boolean needsProgress() {
        return engine.invoker();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (qpCount > 0 || !pds.isEmpty() || !cqs.isEmpty() || !channels.isEmpty()) {
                throw new VerbsException(Errno.EBUSY, "device context still has " + qpCount + " QP(s), "
                        + pds.size() + " PD(s), " + cqs.size() + " CQ(s), " + channels.size() + " channel(s)");
            }
            closed = true;
        } finally {
            lock.unlock();
        }
        engine.close();
        device.closed(this);
    }
}
