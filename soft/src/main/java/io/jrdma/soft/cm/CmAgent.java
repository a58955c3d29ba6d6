package io.jrdma.soft.cm;

import io.jrdma.soft.MadAddress;
import io.jrdma.soft.MadPort;
import io.jrdma.soft.SoftContext;
import io.jrdma.soft.SoftDevice;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.VerbsException;
import io.jrdma.wire.Mad;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The CM agent of one soft device, as the kernel's ib_cm has one per port: it opens the device's context (or
 * shares the application's), opens its {@link MadPort}, and runs one daemon thread that receives MADs (handing them
 * to {@link CmDispatcher}) and fires the timers of its ids (retransmissions, timewait). Its state lives under the
 * {@link CmRegistry}'s lock.
 */
final class CmAgent implements AutoCloseable {

    /** How long the thread waits for a MAD when no timer is due sooner. */
    private static final long IDLE_WAIT_MS = 50;

    private final CmRegistry registry;
    private final SoftDevice device;
    private final SoftContext context;
    private final boolean ownsContext;
    private final MadPort port;
    private final Gid gid;
    private final Mtu mtu;
    private final int tidHigh;
    private final AtomicLongArray counters = new AtomicLongArray(CmCounter.values().length);
    /** Ids with a running timer (retransmission or timewait); under the registry's lock. */
    private final Set<SoftCmId> timed = new LinkedHashSet<>();
    private final Thread thread;
    private final CmDispatcher dispatcher;
    private volatile boolean closed;

    CmAgent(CmRegistry registry, SoftDevice device) {
        this.registry = registry;
        this.device = device;
        SoftContext shared = device.openedContext();
        this.ownsContext = shared == null;
        this.context = shared != null ? shared : device.open();
        try {
            this.port = MadPort.open(context, 1);
        } catch (RuntimeException e) {
            if (ownsContext) {
                context.close();
            }
            throw e;
        }
        this.gid = context.queryGid(1, 1);
        this.mtu = context.queryPort(1).activeMtu();
        this.tidHigh = 1 + (int) ((System.nanoTime() ^ device.guid()) & 0xFF); // ib_mad: a small agent number
        this.dispatcher = new CmDispatcher(registry, this);
        this.thread = Thread.ofPlatform().daemon().name("jrdma-cm-" + device.name()).unstarted(this::run);
        thread.start();
    }

    SoftDevice device() {
        return device;
    }

    SoftContext context() {
        return context;
    }

    long guid() {
        return device.guid();
    }

    Gid gid() {
        return gid;
    }

    Mtu mtu() {
        return mtu;
    }

    int tidHigh() {
        return tidHigh;
    }

    boolean isClosed() {
        return closed;
    }

    void count(CmCounter c) {
        counters.incrementAndGet(c.ordinal());
        MadPort p = port;
        if (c.dropped() && p != null) {
            p.countDropped(); // the device's mad_agent_dropped: what jrdma stat shows
        }
    }

    /** The agent's counters by lower-case name, as the device's counters are shown. */
    Map<String, Long> counters() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (CmCounter c : CmCounter.values()) {
            out.put("cm_" + c.name().toLowerCase(java.util.Locale.ROOT), counters.get(c.ordinal()));
        }
        return out;
    }

    long counter(CmCounter c) {
        return counters.get(c.ordinal());
    }

    /** Ids with a running timer now (for leak checks). */
    int timedCount() {
        synchronized (registry) {
            return timed.size();
        }
    }

    /** Starts watching {@code id}'s timer (under the registry's lock). */
    void watch(SoftCmId id) {
        timed.add(id);
    }

    void unwatch(SoftCmId id) {
        timed.remove(id);
    }

    /** Sends a MAD to the GSI of {@code to}; a failure is counted, as a lost datagram would be. */
    void send(MemorySegment mad, MadAddress to) {
        if (closed) {
            return;
        }
        try {
            port.send(mad, to);
            count(CmCounter.MADS_SENT);
        } catch (VerbsException | IllegalStateException e) {
            // a datagram: the peer's retries or ours cover for it
        }
    }

    private void run() {
        MemorySegment buf = MemorySegment.ofArray(new byte[Mad.MAD_SIZE]);
        while (!closed) {
            long wait = IDLE_WAIT_MS;
            synchronized (registry) {
                long now = System.nanoTime();
                for (SoftCmId id : timed) {
                    wait = Math.min(wait, Math.max(0, (id.deadline() - now) / 1_000_000));
                }
            }
            MadAddress from;
            try {
                from = port.receive(buf, Duration.ofMillis(Math.max(1, wait)));
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                from = null;
            }
            if (from != null) {
                count(CmCounter.MADS_RECEIVED);
                dispatcher.dispatch(buf, from);
            }
            fireTimers();
        }
    }

    private void fireTimers() {
        synchronized (registry) {
            long now = System.nanoTime();
            for (SoftCmId id : timed.toArray(new SoftCmId[0])) {
                if (id.deadline() - now <= 0) {
                    id.timerFired();
                }
            }
        }
    }

    /** Stops the thread, closes the MAD port and, if the agent opened it, the context. */
    @Override
    public void close() {
        closed = true;
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (registry) {
            timed.clear();
        }
        port.close();
        if (ownsContext) {
            context.close();
        }
    }

    @Override
    public String toString() {
        return "CmAgent[" + device.name() + "]";
    }
}
