package io.jrdma.tools.compare;

import io.jrdma.verbs.CompletionChannel;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The idle scenario for jrdma ({@link IdleBench} describes it): one RC QP a side, {@value #RX} receives posted,
 * 2-byte inline SENDs. Mode {@code channel}: the application waits on the receive CQ's completion channel, and the
 * server echoes every message (every 16th echo signalled); mode {@code sleep}: the application sleeps through the
 * idle interval and otherwise polls the receive CQ every millisecond, and the server does not answer: the client
 * times its SEND's completion (every client SEND is signalled), which the server device's ACK brings. The client
 * spins for its answers, except in the first half of a channel-mode warm-up, where it waits on its channel.
 */
final class JrdmaIdle {

    /** Receives posted: the sleep-mode server reposts only every millisecond, behind a back-to-back warm-up. */
    static final int RX = 1024;
    private static final int SQ = 64;
    private static final int SIZE = 2;
    private static final int SIGNAL_EVERY = 16;
    private static final int RECV_BASE = 64;
    /** The application's wait on the completion channel outside the idle interval, between looks at the control. */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(1);
    /**
     * The server's during the warm-up: shorter than the client's idle spell in it ({@link IdleBench#REHEARSAL_MS}),
     * so that a wait on the channel ends by its timeout before the idle interval, whose wait does.
     */
    private static final Duration WARM_WAIT_SLICE = Duration.ofMillis(IdleBench.REHEARSAL_MS / 2);
    /** The sleep-mode server application's polling period outside the idle interval. */
    private static final long POLL_PERIOD_NS = 1_000_000;

    private final JrdmaSide side;
    private final boolean channel;
    private final Deadline deadline;
    private final SendWr send;
    private final RecvWr recv;
    private final WorkCompletion[] one = JrdmaWrite.completions(1);
    private final WorkCompletion[] sends = JrdmaWrite.completions(16);
    private long sent;
    private long sendsDone;
    private long echoes;
    /** The client waits for echoes on its completion channel (the first half of the warm-up, channel mode). */
    private boolean waitForEcho;
    /** The server application's wait on the channel between looks: {@link #WARM_WAIT_SLICE}, then WAIT_SLICE. */
    private Duration waitSlice = WAIT_SLICE;

    private JrdmaIdle(JrdmaSide side, Params p, Deadline deadline) {
        this.side = side;
        this.channel = channelMode(p);
        this.waitForEcho = channel;
        this.deadline = deadline;
        this.send = new SendWr().opcode(WrOpcode.SEND).sg(new Sge(side.addr(0), SIZE, side.lkey()));
        this.recv = new RecvWr().sg(new Sge(0, SIZE, side.lkey()));
    }

    private static boolean channelMode(Params p) {
        String mode = p.str("mode");
        if (!mode.equals("channel") && !mode.equals("sleep")) {
            throw new IllegalArgumentException("idle mode must be channel or sleep, not " + mode);
        }
        return mode.equals("channel");
    }

    private static JrdmaSide open(Params p) {
        return JrdmaSide.open(p, RECV_BASE + (long) RX * SIZE, 1, SQ, RX, 64, channelMode(p));
    }

    /** The server: serves the warm-up, idles, serves the wake phase; reports its idle interval's CPU time. */
    static String serve(Params p, Control control, Deadline deadline) throws Exception {
        long corrupt = p.lng("corrupt", -1);
        try (JrdmaSide side = open(p)) {
            JrdmaIdle s = new JrdmaIdle(side, p, deadline);
            s.postReceives();
            side.connect(control, true, deadline.nanos());
            BooleanSupplier stopped = control::stopped;
            s.waitSlice = WARM_WAIT_SLICE;
            s.serveUntil(IdleBench.PHASE, stopped, corrupt);
            s.waitSlice = WAIT_SLICE;
            IdleBench.Interval idle = IdleBench.idle(p, s::idleUntil);
            control.send("awake");
            s.serveUntil(IdleBench.STOP, stopped, corrupt);
            s.drainEvents();
            control.send("fin");
            return idle.fields();
        }
    }

    /** The client: warm-up, its own idle interval (as the server idles), the timed wake phase. */
    static String client(Params p, Control control, Deadline deadline) throws Exception {
        try (JrdmaSide side = open(p)) {
            JrdmaIdle c = new JrdmaIdle(side, p, deadline);
            c.postReceives();
            side.connect(control, false, deadline.nanos());
            IdleBench.RoundTrip rt = new IdleBench.RoundTrip() {
                @Override
                public long run(short v) throws Exception {
                    return c.roundTrip(v);
                }

                @Override
                public void halfWarm() {
                    c.waitForEcho = false; // from now on the client spins for its answers
                }
            };
            String busy = IdleBench.warmUp(p, rt, c::idleUntil, deadline);
            IdleBench.Interval idle = IdleBench.idle(p, c::idleUntil);
            control.await("awake", deadline.nanos());
            long[] rtt = IdleBench.wakeSeries(p, rt, deadline);
            c.post(IdleBench.STOP, true);
            c.awaitSend();
            control.send(Control.STOP);
            control.await("fin", deadline.nanos(), side.context::progress);
            c.drainEvents();
            return idle.fields() + " " + busy + " " + IdleBench.wakeFields(rtt);
        }
    }

    private void postReceives() {
        for (int i = 0; i < RX; i++) {
            postReceive(i);
        }
    }

    private void postReceive(int slot) {
        recv.wrId(slot).sgList()[0].addr(side.addr(RECV_BASE + (long) slot * SIZE));
        side.qp(0).postRecv(recv);
    }

    /**
     * The client's exchange: sends {@code v} and returns when the answer came: the echo (channel mode; its SEND's
     * completion is then reaped, untimed) or the SEND's completion (sleep mode).
     */
    private long roundTrip(short v) throws Exception {
        post(v, true);
        if (!channel) {
            awaitSend();
            return System.nanoTime();
        }
        CompletionQueue cq = side.recvCq();
        while (cq.poll(one, 1) == 0) {
            if (deadline.passed()) {
                throw deadline.timeout("waiting for an echo");
            }
            if (waitForEcho) {
                cq.requestNotify(false);
                if (cq.poll(one, 1) == 1) {
                    break;
                }
                CompletionQueue ev = side.channel().awaitEvent(WAIT_SLICE);
                if (ev != null) {
                    ev.ackEvents(1);
                }
            } else {
                Thread.onSpinWait();
            }
        }
        long t1 = System.nanoTime();
        short echo = received();
        if (echo != v) {
            throw new BenchFailure("echo " + echo + ", sent " + v);
        }
        awaitSend();
        return t1;
    }

    /** Sends {@code v}, signalled or every {@value #SIGNAL_EVERY}-th; reaps send completions when the SQ is full. */
    private void post(short v, boolean signaled) throws Exception {
        while (sent - sendsDone >= SQ - SIGNAL_EVERY) {
            deadline.check("waiting for send completions");
            reapSends();
        }
        side.buf.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, v);
        boolean signal = signaled || sent % SIGNAL_EVERY == SIGNAL_EVERY - 1;
        send.wrId(sent).sendFlags(SendFlags.INLINE | (signal ? SendFlags.SIGNALED : 0));
        side.qp(0).postSend(send);
        sent++;
    }

    /** Spins until every SEND posted so far has completed (the last one is signalled). */
    private void awaitSend() throws Exception {
        while (sendsDone < sent) {
            if (deadline.passed()) {
                throw deadline.timeout("waiting for a SEND's completion");
            }
            if (reapSends() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    private int reapSends() {
        int n = side.sendCq().poll(sends);
        for (int i = 0; i < n; i++) {
            JrdmaSide.check(sends[i], "SEND");
            sendsDone = sends[i].wrId() + 1;
        }
        return n;
    }

    /** The completion in {@code one[0]}: checked, its value read, its receive posted again. */
    private short received() {
        WorkCompletion wc = one[0];
        JrdmaSide.check(wc, "RECV");
        if (wc.opcode() != WcOpcode.RECV || wc.byteLen() != SIZE) {
            throw new BenchFailure("unexpected receive completion " + wc);
        }
        int slot = (int) wc.wrId();
        short v = side.buf.get(ValueLayout.JAVA_SHORT_UNALIGNED, RECV_BASE + (long) slot * SIZE);
        postReceive(slot);
        return v;
    }

    /**
     * The server's service until {@code marker} (PHASE or STOP) arrives: every message is taken as the mode says and,
     * in channel mode, echoed (PHASE too, not STOP). The client's control {@code stop} counts as STOP.
     */
    private void serveUntil(short marker, BooleanSupplier stopped, long corrupt) throws Exception {
        while (true) {
            short v = serverReceive(stopped);
            if (v == IdleBench.STOP) {
                if (marker == IdleBench.STOP) {
                    return;
                }
                throw new IllegalStateException("the client stopped before the end of the warm-up");
            }
            if (channel) {
                post(echoes == corrupt ? (short) (v + 1) : v, false);
                echoes++;
            }
            if (v == marker) {
                return;
            }
        }
    }

    /** The server application's wait for the next message: on the completion channel, or polls 1 ms apart. */
    private short serverReceive(BooleanSupplier stopped) throws Exception {
        CompletionQueue cq = side.recvCq();
        CompletionChannel ch = side.channel();
        while (cq.poll(one, 1) == 0) {
            if (stopped.getAsBoolean()) {
                return IdleBench.STOP;
            }
            deadline.check("waiting for a message");
            if (channel) {
                cq.requestNotify(false);
                if (cq.poll(one, 1) == 1) {
                    break;
                }
                CompletionQueue ev = ch.awaitEvent(waitSlice);
                if (ev != null) {
                    ev.ackEvents(1);
                }
            } else {
                LockSupport.parkNanos(POLL_PERIOD_NS);
            }
        }
        return received();
    }

    /**
     * The idle interval's application: asleep (sleep mode), or waiting on the completion channel until
     * {@code endNs} with the receive CQ armed (channel mode). A message meanwhile fails the run.
     */
    private void idleUntil(long endNs) throws Exception {
        if (!channel) {
            IdleBench.sleepUntil(endNs);
            return;
        }
        CompletionQueue cq = side.recvCq();
        while (true) {
            cq.requestNotify(false);
            if (cq.poll(one, 1) == 1) {
                throw new IllegalStateException("a message arrived during the idle interval: " + one[0]);
            }
            long left = endNs - System.nanoTime();
            if (left <= 0) {
                return;
            }
            CompletionQueue ev = side.channel().awaitEvent(Duration.ofNanos(left));
            if (ev != null) {
                ev.ackEvents(1); // a completion of the warm-up's that raised its event late: polled above
            }
        }
    }

    /** Acknowledges the events left on the channel (a CQ armed when a poll found its completion first). */
    private void drainEvents() {
        if (channel) {
            for (CompletionQueue ev; (ev = side.channel().awaitEvent(Duration.ZERO)) != null; ) {
                ev.ackEvents(1);
            }
        }
    }
}
