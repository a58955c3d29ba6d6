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
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The send-lat scenario for jrdma, ib_send_lat style: RC SEND ping-pong of {@code size}-byte messages (inline),
 * the client timing each round trip. Each side keeps {@value #RX} receives posted and signals every
 * {@value #SIGNAL_EVERY}-th SEND. Busy mode polls the receive CQ in a loop; blocking mode arms it and sleeps on its
 * completion channel (poll, req_notify, poll again, get_cq_event), as ib_send_lat -e. The 2-byte payload is the
 * round-trip number (mod 0xFFFF), checked on the echo; 0xFFFF tells the server to stop.
 */
final class JrdmaPingPong {

    static final int RX = 64;
    private static final int SQ = 64;
    private static final int SIGNAL_EVERY = 16;
    private static final int RECV_BASE = 64;
    private static final short STOP = (short) 0xFFFF;
    private static final Duration WAIT_SLICE = Duration.ofMillis(50);

    private final JrdmaSide side;
    private final int size;
    private final boolean blocking;
    private final Deadline deadline;
    private final SendWr send;
    private final RecvWr recv;
    private final WorkCompletion[] one = JrdmaWrite.completions(1);
    private final WorkCompletion[] sends = JrdmaWrite.completions(16);
    private long sent;
    private long sendsDone;

    private JrdmaPingPong(JrdmaSide side, Params p, Deadline deadline) {
        this.side = side;
        this.size = p.integer("size");
        this.blocking = p.str("mode").equals("blocking");
        this.deadline = deadline;
        this.send = new SendWr().opcode(WrOpcode.SEND).sg(new Sge(side.addr(0), size, side.lkey()));
        this.recv = new RecvWr().sg(new Sge(0, size, side.lkey()));
    }

    private static JrdmaSide open(Params p) {
        int size = p.integer("size");
        if (size < 2 || size > 64) {
            throw new IllegalArgumentException("ping-pong messages must be 2..64 bytes, not " + size);
        }
        return JrdmaSide.open(p, RECV_BASE + (long) RX * size, 1, SQ, RX, 64, p.str("mode").equals("blocking"));
    }

    /** The client: warm-up, then round trips until the sample buffer is full or the duration is over. */
    static String ping(Params p, Control control, Deadline deadline) throws Exception {
        try (JrdmaSide side = open(p)) {
            JrdmaPingPong pp = new JrdmaPingPong(side, p, deadline);
            pp.postReceives();
            side.connect(control, false, deadline.nanos());
            Latencies lat = new Latencies(p.integer("iters"));
            Measured m = new Measured(p, System.nanoTime());
            BooleanSupplier never = () -> false;
            for (long i = 0; ; i++) {
                short v = (short) (i % 0xFFFF);
                long t0 = System.nanoTime();
                pp.post(v);
                short echo = pp.receive(never);
                long t1 = System.nanoTime();
                if (echo != v) {
                    throw new BenchFailure("round trip " + i + ": echo " + echo + ", sent " + v);
                }
                if (m.measures(t0) && (!lat.add(t1 - t0) || m.over(t1))) {
                    break;
                }
            }
            pp.post(STOP);
            control.send(Control.STOP);
            control.await("fin", deadline.nanos(), side.context::progress);
            return lat.fields() + m.field();
        }
    }

    /** The server: echoes every message until the stop message or the client's stop. */
    static String pong(Params p, Control control, Deadline deadline) throws Exception {
        long corrupt = p.lng("corrupt", -1);
        try (JrdmaSide side = open(p)) {
            JrdmaPingPong pp = new JrdmaPingPong(side, p, deadline);
            pp.postReceives();
            side.connect(control, true, deadline.nanos());
            BooleanSupplier stopped = control::stopped;
            for (long i = 0; ; i++) {
                short v = pp.receive(stopped);
                if (v == STOP) {
                    break;
                }
                pp.post(i == corrupt ? (short) (v + 1) : v);
            }
            control.send("fin");
            return "echoed=1";
        }
    }

    private void postReceives() {
        for (int i = 0; i < RX; i++) {
            postReceive(i);
        }
    }

    private void postReceive(int slot) {
        recv.wrId(slot).sgList()[0].addr(side.addr(RECV_BASE + (long) slot * size));
        side.qp(0).postRecv(recv);
    }

    /**
     * Sends {@code v} (the rest of the message is zero). Send completions are reaped only when the SQ needs room, as
     * ib_send_lat polls its send CQ only for a signaled send: never between a receive and the answer to it.
     */
    private void post(short v) throws Exception {
        while (sent - sendsDone >= SQ - SIGNAL_EVERY) {
            deadline.check("waiting for send completions");
            reapSends();
        }
        side.buf.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, v);
        send.wrId(sent).sendFlags(SendFlags.INLINE | (sent % SIGNAL_EVERY == SIGNAL_EVERY - 1 ? SendFlags.SIGNALED
                : 0));
        side.qp(0).postSend(send);
        sent++;
    }

    private void reapSends() {
        int n = side.sendCq().poll(sends);
        for (int i = 0; i < n; i++) {
            JrdmaSide.check(sends[i], "SEND");
            sendsDone = sends[i].wrId() + 1;
        }
    }

    /** Waits for the next receive; returns its first 2 bytes, or {@link #STOP} when {@code stop} says so. */
    private short receive(BooleanSupplier stop) throws Exception {
        CompletionQueue cq = side.recvCq();
        CompletionChannel channel = side.channel();
        while (cq.poll(one, 1) == 0) {
            if (stop.getAsBoolean()) {
                return STOP;
            }
            deadline.check("waiting for a receive");
            if (blocking) {
                cq.requestNotify(false);
                if (cq.poll(one, 1) == 1) {
                    break;
                }
                CompletionQueue ev = channel.awaitEvent(WAIT_SLICE);
                if (ev != null) {
                    ev.ackEvents(1);
                }
            } else {
                Thread.onSpinWait();
            }
        }
        WorkCompletion wc = one[0];
        JrdmaSide.check(wc, "RECV");
        if (wc.opcode() != WcOpcode.RECV || wc.byteLen() != size) {
            throw new BenchFailure("unexpected receive completion " + wc);
        }
        int slot = (int) wc.wrId();
        MemorySegment buf = side.buf;
        short v = buf.get(ValueLayout.JAVA_SHORT_UNALIGNED, RECV_BASE + (long) slot * size);
        postReceive(slot);
        return v;
    }
}
