package io.jrdma.soft;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Grh;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A user-space MAD port of a soft device, as libibumad's umad is for a kernel one: it sends and receives 256-byte
 * management datagrams on QP 1, the GSI, for a connection manager or any other GSI agent.
 *
 * <p>QP 1 exists while a MAD port is open: {@link #open} creates it as a real UD QP of the device (QPN 1, Q_Key
 * {@link #GSI_QKEY}, P_Key index 0, send PSNs from 0) with its own protection domain, completion queues, completion
 * channel and a pool of registered receive buffers, so a MAD travels as an ordinary RoCEv2 UD SEND ONLY packet
 * through the engine, with source QP 1 in its DETH, as kernel rxe sends it. While no port is open, packets to QP 1
 * are dropped and counted in {@link Counter#MAD_NO_PORT}; packets to QP 1 whose payload is not one MAD are dropped
 * and counted in {@link Counter#MAD_LEN_DROPPED}, and those with a wrong Q_Key in {@link Counter#QKEY_VIOLATIONS}.
 * A context has at most one open MAD port; {@link #close} destroys QP 1 and its resources, and the next
 * {@link #open} creates them afresh. Close the port before its context (the context counts its resources).
 *
 * <p>Threads: one thread at a time receives ({@link #receive}, {@link #poll}). {@link #send} may be called from any
 * thread, the receiving one included; sends are serialised. {@link #close} is for when no other thread is in
 * {@code send} or {@code receive} (the receiving thread may close it).
 */
public final class MadPort implements AutoCloseable {

    /** Bytes of a MAD. */
    public static final int MAD_SIZE = 256;
    /** The GSI's QP number. */
    public static final int GSI_QPN = 1;
    /** The GSI's well-known Q_Key. */
    public static final int GSI_QKEY = 0x8001_0000;

    /**
     * Receive buffers kept posted, as kernel ib_mad keeps (IB_MAD_QP_RECV_SIZE): a peer ending 100 connections sends
     * 100 DREQs at once, and with 64 the rest were dropped (out_of_buffer) until their retransmission seconds later.
     */
    static final int RECV_BUFFERS = 512;
    /** Destinations whose address handles are kept. */
    static final int AH_CACHE = 16;
    /** A receive buffer: the 40-byte GRH area, then the MAD. */
    private static final int SLOT = Grh.LENGTH + MAD_SIZE;
    /** The IPv4 source address's offset in a RoCEv2 GRH area: the IPv4 header fills its last 20 bytes. */
    private static final int GRH_IPV4_SRC = Grh.LENGTH - Grh.IPV4_HEADER + 12;
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long SEND_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    private final SoftContext context;
    private final int portNum;
    private final Resources resources;
    private final ProtectionDomain pd;
    private final CompletionChannel channel;
    private final CompletionQueue recvCq;
    private final CompletionQueue sendCq;
    private final MemoryRegion mr;
    private final SoftQp qp;
    private final AhCache ahs;
    private final MemorySegment sendBuffer;
    private final WorkCompletion[] recvWc = {new WorkCompletion()};
    private final WorkCompletion[] sendWc = {new WorkCompletion()};
    private final Sge recvSge = new Sge();
    private final RecvWr recvWr = new RecvWr().sg(recvSge);
    private final SendWr sendWr;
    private final Object sendLock = new Object();
    private volatile boolean closed;

    private MadPort(SoftContext context, int portNum, Resources r) {
        this.context = context;
        this.portNum = portNum;
        this.resources = r;
        this.pd = r.pd;
        this.channel = r.channel;
        this.recvCq = r.recvCq;
        this.sendCq = r.sendCq;
        this.mr = r.mr;
        this.qp = r.qp;
        this.ahs = new AhCache(pd, AH_CACHE);
        this.sendBuffer = mr.segment().asSlice((long) RECV_BUFFERS * SLOT, MAD_SIZE);
        this.sendWr = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sg(new Sge(mr.address() + (long) RECV_BUFFERS * SLOT, MAD_SIZE, mr.lkey()));
    }

    /**
     * Opens the MAD port of {@code ctx}'s port {@code portNum}: creates QP 1 and starts receiving MADs for it.
     *
     * @throws IllegalArgumentException for a port other than 1, the device's one
     * @throws VerbsException           EBUSY when the context already has an open MAD port; EINVAL when it is
     *                                  closed; what creating the resources fails with
     */
    public static MadPort open(SoftContext ctx, int portNum) {
        Objects.requireNonNull(ctx, "ctx");
        if (portNum != 1) {
            throw new IllegalArgumentException("port " + portNum + " does not exist (the soft device has port 1)");
        }
        Resources r = new Resources();
        try {
            r.create(ctx);
        } catch (RuntimeException e) {
            r.destroy();
            throw e;
        }
        MadPort port = new MadPort(ctx, portNum, r);
        for (int i = 0; i < RECV_BUFFERS; i++) {
            port.repost(i);
        }
        return port;
    }

    /** The context this port belongs to. */
    public SoftContext context() {
        return context;
    }

    /** The port number (1). */
    public int portNum() {
        return portNum;
    }

    /**
     * Sends a MAD: one UD SEND ONLY from QP 1, returning once the device has sent it (a datagram: nothing says it
     * arrived). The address handle for the destination is cached ({@value #AH_CACHE} destinations at most).
     *
     * @param mad the MAD, exactly {@value #MAD_SIZE} bytes (copied before this returns)
     * @param to  the destination, e.g. {@link MadAddress#gsi} or the address {@link #receive} returned
     * @throws IllegalArgumentException when {@code mad} is not {@value #MAD_SIZE} bytes
     * @throws IllegalStateException    when the port is closed
     * @throws VerbsException           EIO when the device failed the send or did not send it within 5 s
     */
    public void send(MemorySegment mad, MadAddress to) {
        Objects.requireNonNull(mad, "mad");
        Objects.requireNonNull(to, "to");
        if (mad.byteSize() != MAD_SIZE) {
            throw new IllegalArgumentException("a MAD is " + MAD_SIZE + " bytes, not " + mad.byteSize());
        }
        synchronized (sendLock) {
            checkOpen();
            MemorySegment.copy(mad, 0, sendBuffer, 0, MAD_SIZE);
            qp.postSend(sendWr.ud(ahs.get(to.gid()), to.qpn(), to.qkey()));
            awaitSent();
            context.counters.addAtomic(Counter.MAD_SENT, 1);
        }
    }

    /**
     * Counts a MAD this port's agent received and dropped as bad, in the device's {@code mad_agent_dropped} (shown by
     * {@code jrdma stat} with the device's other counters). Any thread may call it.
     */
    public void countDropped() {
        context.counters.addAtomic(Counter.MAD_AGENT_DROPPED, 1);
    }

    /** Waits for the one send in flight; on failure, returns QP 1 from SQE to RTS for the next send. */
    private void awaitSent() {
        long deadline = System.nanoTime() + SEND_TIMEOUT_NS;
        while (sendCq.poll(sendWc, 1) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new VerbsException(Errno.EIO, "the device did not send the MAD within 5 s");
            }
            Thread.onSpinWait(); // a UD send completes within an engine pass; polling drives a caller-driven one
        }
        WcStatus status = sendWc[0].status();
        if (status != WcStatus.SUCCESS) {
            if (qp.state() == QpState.SQE) {
                qp.modify(new QpAttr().qpState(QpState.RTS), EnumSet.of(QpAttrMask.STATE));
            }
            throw new VerbsException(Errno.EIO, "sending the MAD failed: " + status);
        }
    }

    /**
     * Receives a MAD: copies the next one into {@code into} and returns its sender, waiting up to {@code timeout}
     * for one (on QP 1's completion channel, which drives the device in every {@link Threading} mode).
     *
     * @param into    where the MAD goes: at least {@value #MAD_SIZE} bytes (the first {@value #MAD_SIZE} are written)
     * @param timeout how long to wait; zero polls once without waiting
     * @return the sender (IPv4-mapped GID from the packet's IP header, source QP, P_Key index, and
     *         {@link #GSI_QKEY} as the Q_Key a reply uses), or null when no MAD came within the timeout
     * @throws IllegalArgumentException when {@code into} is smaller than a MAD or the timeout is negative
     * @throws IllegalStateException    when the port is closed
     * @throws VerbsException           EIO when QP 1 failed (a receive completed in error)
     */
    public MadAddress receive(MemorySegment into, Duration timeout) {
        Objects.requireNonNull(into, "into");
        if (into.byteSize() < MAD_SIZE) {
            throw new IllegalArgumentException("a MAD is " + MAD_SIZE + " bytes; the buffer has " + into.byteSize());
        }
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("negative timeout " + timeout);
        }
        long wait = timeout.compareTo(Duration.ofDays(1)) > 0 ? TimeUnit.DAYS.toNanos(1) : timeout.toNanos();
        long deadline = System.nanoTime() + wait;
        while (true) {
            checkOpen();
            MadAddress from = take(into);
            long left = deadline - System.nanoTime();
            if (from != null || left <= 0) {
                return from;
            }
            recvCq.requestNotify(false);
            from = take(into); // one that completed before the CQ was armed raises no event
            if (from != null) {
                return from;
            }
            if (channel.awaitEvent(Duration.ofNanos(left)) != null) {
                recvCq.ackEvents(1);
            }
        }
    }

    /** {@link #receive} without waiting: the next MAD already received, or null. */
    public MadAddress poll(MemorySegment into) {
        return receive(into, Duration.ZERO);
    }

    /** The next completed receive's MAD and sender, re-posting its buffer; null when none has completed. */
    private MadAddress take(MemorySegment into) {
        if (recvCq.poll(recvWc, 1) == 0) {
            return null;
        }
        WorkCompletion wc = recvWc[0];
        int slot = (int) wc.wrId();
        if (wc.status() != WcStatus.SUCCESS) {
            throw new VerbsException(Errno.EIO, "QP 1 failed: a receive completed with " + wc.status());
        }
        // the receive path passes QP 1 whole MADs only (Counter.MAD_LEN_DROPPED)
        MemorySegment buf = mr.segment().asSlice((long) slot * SLOT, SLOT);
        MemorySegment.copy(buf, Grh.LENGTH, into, 0, MAD_SIZE);
        int srcIp = buf.get(BE32, GRH_IPV4_SRC);
        MadAddress from = new MadAddress(Gid.of(0, 0xFFFF_0000_0000L | (srcIp & 0xFFFF_FFFFL)), wc.srcQp(),
                GSI_QKEY, wc.pkeyIndex());
        repost(slot);
        context.counters.addAtomic(Counter.MAD_RCVD, 1);
        return from;
    }

    private void repost(int slot) {
        recvSge.set(mr.address() + (long) slot * SLOT, SLOT, mr.lkey());
        qp.postRecv(recvWr.wrId(slot));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the MAD port is closed");
        }
    }

    /** Destroys QP 1 and the port's resources; packets to QP 1 are dropped (and counted) again. Idempotent. */
    @Override
    public void close() {
        synchronized (sendLock) {
            if (closed) {
                return;
            }
            closed = true;
            ahs.clear();
            resources.destroy();
        }
    }

    @Override
    public String toString() {
        return "MadPort[" + context.device().name() + " port " + portNum + (closed ? " closed]" : "]");
    }

    /** QP 1 and what it needs, built in order and destroyed in reverse (also after a partial build). */
    private static final class Resources {
        ProtectionDomain pd;
        CompletionChannel channel;
        CompletionQueue recvCq;
        CompletionQueue sendCq;
        MemoryRegion mr;
        SoftQp qp;
        Arena arena;

        void create(SoftContext ctx) {
            pd = ctx.allocPd();
            channel = ctx.createCompletionChannel();
            recvCq = ctx.createCq(RECV_BUFFERS, channel);
            sendCq = ctx.createCq(4);
            arena = Arena.ofShared();
            mr = pd.registerMemory(arena.allocate((long) RECV_BUFFERS * SLOT + MAD_SIZE, 64), Access.LOCAL_WRITE);
            QpCap cap = new QpCap().maxSendWr(2).maxRecvWr(RECV_BUFFERS).maxSendSge(1).maxRecvSge(1);
            qp = ctx.createQp((SoftPd) pd, new QpInitAttr().qpType(QpType.UD).sendCq(sendCq).recvCq(recvCq)
                    .cap(cap), GSI_QPN);
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(GSI_QKEY),
                    EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            qp.modify(new QpAttr().qpState(QpState.RTR), EnumSet.of(QpAttrMask.STATE));
            // ib_mad moves QP 1 to RTS with send PSN 0 (IB_MAD_SEND_Q_PSN), as the kernel CM's first MAD shows
            qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0), EnumSet.of(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
        }

        void destroy() {
            if (qp != null) {
                qp.close();
            }
            if (mr != null) {
                mr.close();
            }
            if (arena != null) {
                arena.close();
            }
            if (sendCq != null) {
                sendCq.close();
            }
            if (recvCq != null) {
                recvCq.close();
            }
            if (channel != null) {
                channel.close();
            }
            if (pd != null) {
                pd.close();
            }
        }
    }
}
