package io.jrdma.soft;

import io.jrdma.verbs.AsyncEvent;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.VerbsException;
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
    final Engine engine;
    final MrTable mrs = new MrTable(SoftLimits.MAX_MR);
    final AsyncEvents events;
    private final List<SoftPd> pds = new ArrayList<>();
    private final List<SoftCq> cqs = new ArrayList<>();
    private final List<SoftChannel> channels = new ArrayList<>();
    private int nextQpSlot;
    private int qpCount;
    private int pdHandles;
    private boolean closed;

    SoftContext(SoftDevice device, Engine engine) {
        this.device = device;
        this.engine = engine;
        this.events = new AsyncEvents(engine);
    }

    /** The device's counters (rxe's hw_counters and the port counters). */
    public Counters counters() {
        return engine.counters;
    }

    /** The last unexpected exception the engine caught (and counted), or null: for diagnosing engine bugs. */
    public RuntimeException lastEngineFailure() {
        return engine.lastFailure;
    }

    /** Sets (or clears, with null) the tap that sees every packet sent and received. */
    public void tap(PacketTap tap) {
        engine.tap = device.withOptionTaps(tap); // capture and trace options keep their taps
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
        return new DeviceAttr("0.1.0", device.guid(), device.guid(), SoftLimits.MAX_MR_SIZE, 0xFFFFF000L,
                SoftLimits.VENDOR_ID, SoftLimits.VENDOR_PART_ID, 0, SoftLimits.MAX_QP, SoftLimits.MAX_QP_WR, 0,
                SoftLimits.MAX_SGE, SoftLimits.MAX_SGE, SoftLimits.MAX_CQ, SoftLimits.MAX_CQE, SoftLimits.MAX_MR,
                SoftLimits.MAX_PD, SoftLimits.MAX_RD_ATOMIC, SoftLimits.MAX_RD_ATOMIC,
                SoftLimits.MAX_RD_ATOMIC * SoftLimits.MAX_QP, AtomicCap.NONE, 0, 0, 0, 0, 0, 1, 15, 1,
                SoftLimits.MAX_INLINE);
    }

    @Override
    public PortAttr queryPort(int port) {
        checkPort(port);
        Mtu active = device.activeMtu();
        return new PortAttr(PortState.ACTIVE, Mtu.MTU_4096, active, SoftLimits.GID_TABLE_LENGTH, 0,
                SoftLimits.MAX_MSG_SIZE, 1, 0, 0, 0, 1, 0, 1, 1, 5, LinkLayer.ETHERNET);
    }

    @Override
    public Gid queryGid(int port, int index) {
        checkPort(port);
        return switch (index) {
            case 0 -> device.linkLocalGid();
            case 1 -> device.ipv4Gid();
            default -> throw new VerbsException(Errno.EINVAL, "GID index " + index + " is out of range [0, "
                    + (SoftLimits.GID_TABLE_LENGTH - 1) + "]");
        };
    }

    private static void checkPort(int port) {
        if (port != 1) {
            throw new VerbsException(Errno.EINVAL, "port " + port + " does not exist (the device has port 1)");
        }
    }

    // ------------------------------------------------------------------------------------------------- resources

    @Override
    public ProtectionDomain allocPd() {
        engine.lock.lock();
        try {
            checkOpen();
            if (pds.size() >= SoftLimits.MAX_PD) {
                throw new VerbsException(Errno.ENOMEM, "too many protection domains (max " + SoftLimits.MAX_PD + ")");
            }
            SoftPd pd = new SoftPd(this, ++pdHandles);
            pds.add(pd);
            return pd;
        } finally {
            engine.lock.unlock();
        }
    }

    void deallocPd(SoftPd pd) {
        engine.lock.lock();
        try {
            if (pd.closed) {
                return;
            }
            if (pd.users > 0) {
                throw new VerbsException(Errno.EBUSY, "protection domain still has " + pd.users
                        + " memory region(s) or QP(s)");
            }
            pd.closed = true;
            pds.remove(pd);
        } finally {
            engine.lock.unlock();
        }
    }

    MemoryRegion register(SoftPd pd, MemorySegment segment, int access) {
        engine.lock.lock();
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
            pd.users++;
            return mr;
        } finally {
            engine.lock.unlock();
        }
    }

    void deregister(SoftMr mr) {
        engine.lock.lock();
        try {
            if (!mr.valid()) {
                return;
            }
            mr.invalidate();
            mrs.remove(mr);
            mr.pd.users--;
        } finally {
            engine.lock.unlock();
        }
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        engine.lock.lock();
        try {
            checkOpen();
            SoftChannel ch = new SoftChannel(this);
            channels.add(ch);
            return ch;
        } finally {
            engine.lock.unlock();
        }
    }

    void destroyChannel(SoftChannel ch) {
        engine.lock.lock();
        try {
            if (ch.closed) {
                return;
            }
            if (ch.users > 0) {
                throw new VerbsException(Errno.EBUSY, "completion channel still has " + ch.users + " CQ(s)");
            }
            ch.closed = true;
            channels.remove(ch);
        } finally {
            engine.lock.unlock();
        }
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel) {
        if (cqe < 1 || cqe > SoftLimits.MAX_CQE) {
            throw new VerbsException(Errno.EINVAL, "cqe " + cqe + " is out of range [1, " + SoftLimits.MAX_CQE + "]");
        }
        engine.lock.lock();
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
                ch.users++;
            }
            cqs.add(cq);
            return cq;
        } finally {
            engine.lock.unlock();
        }
    }

    void destroyCq(SoftCq cq) {
        engine.lock.lock();
        try {
            if (cq.closed) {
                return;
            }
            if (cq.users > 0) {
                throw new VerbsException(Errno.EBUSY, "completion queue is still used by " + cq.users + " QP(s)");
            }
            cq.closed = true;
            cqs.remove(cq);
            if (cq.channel != null) {
                cq.channel.users--;
            }
        } finally {
            engine.lock.unlock();
        }
    }

    QueuePair createQp(SoftPd pd, QpInitAttr attr) {
        SoftQp.checkCaps(attr);
        engine.lock.lock();
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
            if (qpCount >= SoftLimits.MAX_QP) {
                throw new VerbsException(Errno.ENOMEM, "too many QPs (max " + SoftLimits.MAX_QP + ")");
            }
            while (!engine.slotFree(nextQpSlot)) {
                nextQpSlot = (nextQpSlot + 1) % SoftLimits.MAX_QP;
            }
            int qpn = SoftLimits.QPN_BASE + nextQpSlot;
            nextQpSlot = (nextQpSlot + 1) % SoftLimits.MAX_QP;
            Arena arena = Arena.ofShared();
            SoftQp qp = new SoftQp(this, pd, qpn, attr, arena);
            qp.arena = arena;
            qpCount++;
            pd.users++;
            qp.sendCq.users++;
            qp.recvCq.users++;
            engine.add(qp);
            return qp;
        } finally {
            engine.lock.unlock();
        }
    }

    void destroyQp(SoftQp qp) {
        engine.lock.lock();
        try {
            if (qp.closed) {
                return;
            }
            qp.closed = true;
            engine.remove(qp);
            qpCount--;
            qp.pd.users--;
            qp.sendCq.users--;
            qp.recvCq.users--;
            qp.arena.close();
        } finally {
            engine.lock.unlock();
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

    @Override
    public void close() {
        engine.lock.lock();
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
            engine.lock.unlock();
        }
        engine.close();
        device.closed(this);
    }
}
