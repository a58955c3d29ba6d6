package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What {@link AdaptiveThreadingTest} runs on: peers and extra QPs, SEND ping-pongs driven by polling, bounded waits,
 * the quiet counters, and what it measures of the engine threads (their sleeps and CPU time, the callers' context
 * switches, who handled each packet), with test threads whose failures fail the test.
 */
abstract class AdaptiveThreadingBase {

    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);
    static final int RECVS = 16;
    static final long SEND_AT = 4096; // 64 rotating 64-byte send slots; receives at 0..RECVS*64
    static final String ENGINE_THREAD = "jrdma-engine-"; // 13 characters: Linux keeps 15 of a name
    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    static Peer peer(String ip, Threading threading, long bytes) {
        return new Peer(ip, threading, NanoClock.SYSTEM, bytes, Peer.ALL_ACCESS, Peer.defaultCap());
    }

    static QueuePair qp(Peer p, CompletionQueue sendCq, CompletionQueue recvCq) {
        return p.pd.createQp(new QpInitAttr().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq)
                .cap(Peer.defaultCap()));
    }

    static void connect(Peer pa, QueuePair qa, Peer pb, QueuePair qb) {
        connect(pa, qa, pb, qb, new Peer.Link()); // ACK timeout 67 ms
    }

    static void connect(Peer pa, QueuePair qa, Peer pb, QueuePair qb, Peer.Link link) {
        Peer.connect(qa, qb.qpNum(), pb.ctx.queryGid(1, 1), link);
        Peer.connect(qb, qa.qpNum(), pa.ctx.queryGid(1, 1), link);
    }

    static Sge sge(Peer p, long offset, int length) {
        return new Sge(p.addr(offset), length, p.mr.lkey());
    }

    static SendWr send(Peer p, long wrId, long offset) {
        return new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sg(sge(p, offset, 8));
    }

    static WorkCompletion[] wcs(int n) {
        WorkCompletion[] w = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            w[i] = new WorkCompletion();
        }
        return w;
    }

    /** What an {@link #exchange} side does besides it: told of each poll and of each message it got. */
    interface ExchangeHook {
        /** A poll of the CQ returned at {@code now}. */
        void polled(long now);

        /** The {@code received}-th message came, before this side sends its next (or its echo). */
        void answered(long received);
    }

    private static final ExchangeHook NO_HOOK = new ExchangeHook() {
        @Override
        public void polled(long now) {
        }

        @Override
        public void answered(long received) {
        }
    };

    /**
     * {@code n} round trips of an 8-byte SEND on {@code qp}, driven by polling its peer's CQ: the initiator sends
     * i and waits for i back, the other side echoes what it gets. Receives rotate over the {@link #RECVS} slots
     * {@link #prepost} posted (before either side starts: no RNR NAK).
     */
    static long exchange(Peer p, QueuePair qp, int n, boolean initiator) {
        return exchange(p, qp, n, initiator, NO_HOOK);
    }

    /** {@link #exchange(Peer, QueuePair, int, boolean)}, telling {@code hook} of each poll and each message. */
    static long exchange(Peer p, QueuePair qp, int n, boolean initiator, ExchangeHook hook) {
        WorkCompletion[] wcs = wcs(8);
        long deadline = System.nanoTime() + WAIT_NS;
        long last = System.nanoTime();
        long longest = 0;
        long received = 0;
        long sent = 0;
        long sendsDone = 0;
        if (initiator) {
            sent = sendNext(p, qp, 0, sent);
        }
        while (received < n || sendsDone < sent) {
            int k = p.cq.poll(wcs);
            hook.polled(System.nanoTime());
            for (int j = 0; j < k; j++) {
                WorkCompletion wc = wcs[j];
                if (wc.status() != WcStatus.SUCCESS) {
                    throw new AssertionError(wc + "; " + p.ctx.counters());
                }
                if (wc.opcode() == WcOpcode.RECV) {
                    long seq = p.buf.get(ValueLayout.JAVA_LONG, wc.wrId() * 64);
                    assertEquals(received, seq, "messages in order, each once");
                    received++;
                    qp.postRecv(new RecvWr().wrId(wc.wrId()).sg(sge(p, wc.wrId() * 64, 64)));
                    hook.answered(received);
                    if (!initiator || received < n) {
                        sent = sendNext(p, qp, initiator ? received : seq, sent);
                    }
                    long now = System.nanoTime();
                    longest = Math.max(longest, now - last);
                    last = now;
                    deadline = now + WAIT_NS; // a stall fails, a slow run on a loaded host does not
                } else {
                    sendsDone++;
                }
            }
            if (k == 0 && System.nanoTime() > deadline) {
                throw new AssertionError("round trip " + received + " of " + n + " stalled for 20 s; "
                        + p.ctx.counters());
            }
        }
        return longest;
    }

    static void prepost(Peer p, QueuePair qp) {
        for (int s = 0; s < RECVS; s++) {
            qp.postRecv(new RecvWr().wrId(s).sg(sge(p, s * 64L, 64)));
        }
    }

    /** Sends {@code seq} from the next of 64 send slots; returns the count of sends posted. */
    static long sendNext(Peer p, QueuePair qp, long seq, long sent) {
        long off = SEND_AT + (sent & 63) * 64;
        p.buf.set(ValueLayout.JAVA_LONG, off, seq);
        qp.postSend(send(p, seq, off));
        return sent + 1;
    }

    static WorkCompletion awaitOne(Peer p, CompletionQueue cq) {
        WorkCompletion[] wcs = wcs(1);
        long deadline = System.nanoTime() + WAIT_NS;
        while (cq.poll(wcs) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 20 s; " + p.ctx.counters());
            }
        }
        assertEquals(WcStatus.SUCCESS, wcs[0].status(), wcs[0]::toString);
        return wcs[0];
    }

    static void expect(Peer p, long wrId, WcOpcode opcode) {
        WorkCompletion wc = awaitOne(p, p.cq);
        assertEquals(wrId, wc.wrId());
        assertEquals(opcode, wc.opcode());
    }

    static void expectAny(Peer p, int n) {
        for (int i = 0; i < n; i++) {
            awaitOne(p, p.cq);
        }
        assertEquals(0, p.cq.poll(wcs(1)), "no extra completion");
    }

    /** Nothing was sent twice, nothing timed out or went missing, and the engine caught no failure. */
    static void assertQuiet(Peer p) {
        Counters c = p.ctx.counters();
        for (Counter k : new Counter[] {Counter.RETRANSMITTED_PKTS, Counter.COMPLETER_RETRY_ERR,
                Counter.RCVD_SEQ_ERR, Counter.OUT_OF_SEQ_REQUEST, Counter.DUPLICATE_REQUEST, Counter.RCVD_RNR_ERR,
                Counter.SEND_RNR_ERR, Counter.RETRY_EXCEEDED_ERR, Counter.QP_FATAL, Counter.CQ_OVERRUN}) {
            assertEquals(0, c.get(k), () -> k.rxeName() + " on " + p.ctx.device().name() + ": " + c);
        }
        assertNull(p.ctx.lastEngineFailure());
    }

    /**
     * Waits until {@code t} is asleep in a receive that waits for a datagram (the completion-channel wait): a waiting
     * {@code recvmmsg}, or with a shared-memory ring's doorbell in use, the {@code ppoll} of the socket and the doorbell.
     */
    static void awaitInReceive(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            StackTraceElement[] stack = t.getStackTrace();
            boolean receiving = Arrays.stream(stack).anyMatch(e -> e.getMethodName().equals("receiveBatchWaiting"));
            for (StackTraceElement e : stack) {
                if (e.getMethodName().equals("recvmmsgWait") || receiving && e.getMethodName().equals("ppoll")) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "the waiter never slept in the receive");
            Thread.sleep(0, 200_000);
        }
    }

    /** Waits until the engine thread {@code t} parks in its loop (callers drive the engine). */
    static void awaitParked(Thread t) throws InterruptedException {
        // a bound, not a timing: on a machine this busy (two emulated guests and a build) 5 s was seen to pass
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            StackTraceElement[] stack = t.getStackTrace();
            boolean parked = Arrays.stream(stack).anyMatch(e -> e.getMethodName().equals("parkNanos"))
                    && Arrays.stream(stack).anyMatch(e -> e.getClassName().equals(Engine.class.getName())
                            && e.getMethodName().equals("run"));
            if (parked) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the engine thread never parked");
            Thread.sleep(1);
        }
    }

    /**
     * How many times this process's engine threads went to sleep (their voluntary context switches, from Linux's
     * /proc): a parked engine thread wakes at most every 10 ms, one that runs or spins-and-parks far more often.
     */
    static long engineSleeps() throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith(ENGINE_THREAD)) {
                        sum += contextSwitches(task.resolve("status"), true);
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return sum;
    }

    static Thread engineThread(Peer p) {
        String name = ENGINE_THREAD + p.ctx.device().name();
        Thread t = Thread.getAllStackTraces().keySet().stream().filter(x -> x.getName().equals(name)).findFirst()
                .orElse(null);
        assertNotNull(t, name);
        return t;
    }

    static long cpu(Thread... threads) {
        long sum = 0;
        for (Thread t : threads) {
            sum += THREADS.getThreadCpuTime(t.threadId());
        }
        return sum;
    }

    /** Runs both on their own threads; returns the CPU time they took together and their context switches. */
    static long[] runBoth(Runnable first, Runnable second) throws Exception {
        long[][] took = new long[2][];
        Worker w1 = Worker.start("first", () -> took[0] = measured(first));
        Worker w2 = Worker.start("second", () -> took[1] = measured(second));
        w1.join();
        w2.join();
        return new long[] {took[0][0] + took[1][0], took[0][1] + took[1][1]};
    }

    /** Runs {@code r}; returns the CPU time it took on this thread and this thread's context switches meanwhile. */
    static long[] measured(Runnable r) throws IOException {
        Path self = Path.of("/proc/thread-self/status");
        boolean proc = Files.isReadable(self);
        long switches = proc ? contextSwitches(self, false) : 0;
        long cpu = THREADS.getCurrentThreadCpuTime();
        r.run();
        return new long[] {THREADS.getCurrentThreadCpuTime() - cpu, proc ? contextSwitches(self, false) - switches
                : 0};
    }

    /** A thread's context switches from its /proc status: voluntary ones (sleeps), or all. */
    static long contextSwitches(Path status, boolean voluntaryOnly) throws IOException {
        long sum = 0;
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("voluntary_ctxt_switches:")
                    || !voluntaryOnly && line.startsWith("nonvoluntary_ctxt_switches:")) {
                sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return sum;
    }

    /** A SEND of {@code seq} from its own one of 64 send slots. */
    static SendWr sendAt(Peer p, long seq) {
        long off = SEND_AT + (seq & 63) * 64;
        p.buf.set(ValueLayout.JAVA_LONG, off, seq);
        return send(p, seq, off);
    }

    /** Counts the packets a device sends and receives by the kind of thread whose pass handled them. */
    static final class PassThreads implements PacketTap {
        final LongAdder engine = new LongAdder();
        final LongAdder callers = new LongAdder();

        @Override
        public void onPacket(boolean transmit, MemorySegment packet, long offset, int length, int srcIp,
                int srcPort, int dstIp, int dstPort) {
            (Thread.currentThread().getName().startsWith(ENGINE_THREAD) ? engine : callers).increment();
        }
    }

    /** A test thread whose failure fails the test when joined. */
    static final class Worker {
        final Thread thread;
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        private Worker(String name, Body body) {
            thread = new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, name);
        }

        static Worker start(String name, Body body) {
            Worker w = new Worker(name, body);
            w.thread.setDaemon(true);
            w.thread.start();
            return w;
        }

        void join() throws Exception {
            thread.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(thread.isAlive(), thread.getName() + " did not finish");
            Throwable t = failure.get();
            if (t instanceof Error e) {
                throw e;
            } else if (t instanceof Exception e) {
                throw e;
            }
        }
    }

    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }
}
