package io.jrdma.soft;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The soft device's agent: its duty cycle ({@link #doWork}) takes in datagrams through the {@link Receiver}, then
 * visits every QP of the {@link QpTable} (flush in ERR, ACK timer, requester, responder) and ends by flushing the
 * {@link Transmitter}'s batch. It runs either on the callers' threads ({@link Threading#INVOKER}: a post's doorbell
 * and a poll each run a pass) or on its own thread ({@link Threading#DEDICATED}), which idles between passes as its
 * {@link IdleStrategy} says and sleeps on the link until a datagram, a doorbell or a timer.
 *
 * <p>Passes hold the device lock (the context's), which serialises them with control-path changes (modify,
 * create, destroy, deregister); posting and polling never take it.
 */
final class Engine implements AutoCloseable {

    /** A pass over many QPs receives again after every this many, so a long pass cannot let the socket overflow. */
    private static final int RX_EVERY_QPS = 64 - 1;
    private static final long MAX_SLEEP_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The longest an invoker-mode wait polls the socket before the waiting thread runs a pass again. */
    private static final long MAX_POLL_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A pass's receive: none, one that does not wait, one whose first call waits for a datagram. */
    private static final int RX_NONE = 0;
    private static final int RX_POLL = 1;
    private static final int RX_WAIT = 2;

    private final ReentrantLock lock;
    private final Link link;
    private final Receiver receiver;
    private final Transmitter transmitter;
    private final QpTable qps;
    private final SendShares shares;
    private final Counters counters;
    private final FailureLog failures;
    private final NanoClock clock;
    private final Threading threading;
    private final IdleStrategy idle;
    private final IdleStrategy.Sleeper sleeper = this::sleep;
    private long passes; // passes run: where the next one starts visiting QPs

    private Thread thread;
    private volatile boolean running;
    private volatile boolean sleeping;
    private volatile boolean doorbellRung;
    /** An invoker-mode thread is in, or about to enter, a receive that waits (see {@link #progressOrWait}). */
    private volatile boolean waitingInReceive;

    Engine(ReentrantLock lock, Link link, Receiver receiver, Transmitter transmitter, QpTable qps,
            SendShares shares, Counters counters, FailureLog failures, NanoClock clock, Threading threading,
            IdleStrategy idle) {
        this.lock = lock;
        this.link = link;
        this.receiver = receiver;
        this.transmitter = transmitter;
        this.qps = qps;
        this.shares = shares;
        this.counters = counters;
        this.failures = failures;
        this.clock = clock;
        this.threading = threading;
        this.idle = idle;
    }

    IdleStrategy idleStrategy() {
        return idle;
    }

    boolean invoker() {
        return threading == Threading.INVOKER;
    }

    void start(String name) {
        if (threading == Threading.DEDICATED) {
            running = true;
            thread = Thread.ofPlatform().daemon().name("jrdma-engine-" + name).start(this::run);
        }
    }

    // ------------------------------------------------------------------------------------------------- progress

    /** Rings the doorbell after a post: runs the engine now (invoker) or wakes its thread (dedicated). */
    void doorbell() {
        if (threading == Threading.INVOKER) {
            if (lock.tryLock()) {
                try {
                    doWork(RX_NONE); // sends what was posted; the next poll receives
                } finally {
                    lock.unlock();
                }
            } else {
                // another thread runs the engine, and may be asleep in a receive: it sends this post once it
                // wakes, so it is woken (it reads doorbellRung after announcing the wait: one of us sees the other)
                doorbellRung = true;
                if (waitingInReceive) {
                    link.wakeReceive();
                }
            }
        } else {
            doorbellRung = true;
            if (sleeping) {
                link.wakeup();
            }
        }
    }

    /**
     * After a receive is posted: a dedicated engine is woken (a QP in ERR flushes it at once); an invoker engine
     * waits for the next call, since only a poll can observe what the pass would do, and it runs a pass first.
     */
    void recvDoorbell() {
        if (threading != Threading.INVOKER) {
            doorbell();
        }
    }

    /** One engine pass on the calling thread, unless another thread is in one (invoker mode only). */
    int progress() {
        if (threading != Threading.INVOKER || !lock.tryLock()) {
            return 0;
        }
        try {
            return doWork();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Invoker mode, for a thread that waits for an event up to {@code leftNs}: a pass, and when it finds nothing to
     * do, a wait on the socket. When nothing can need the engine within two kernel ticks (no timer is due, the
     * caller waits that long), the wait is a receive that sleeps until the first datagram and takes it in the same
     * call ({@link Link#receiveWaitNs}); a post from another thread meanwhile wakes it ({@link #doorbell}).
     * Otherwise a poll of at most a millisecond, and the caller's next pass receives. Another thread in the
     * engine: parks briefly instead.
     *
     * @return the work done (0 after a wait that ended without work)
     */
    int progressOrWait(long leftNs) {
        if (!lock.tryLock()) {
            LockSupport.parkNanos(Math.min(leftNs, 50_000));
            return 0;
        }
        try {
            long tick = link.receiveWaitNs();
            // such a wait ends at the second tick boundary at the latest: it may take up to two ticks
            if (tick > 0 && leftNs >= 2 * tick && sleepBudgetNs() >= 2 * tick) {
                if (doorbellRung) {
                    doorbellRung = false; // read first: the poster's WQE happened before its ring
                }
                int work = doWork(RX_NONE); // what a pass must send, before the engine sleeps
                if (work > 0) {
                    return work;
                }
                waitingInReceive = true;
                try {
                    return doWork(doorbellRung ? RX_POLL : RX_WAIT);
                } finally {
                    waitingInReceive = false;
                }
            }
            int work = doWork(RX_POLL);
            if (work == 0) {
                link.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(leftNs, MAX_POLL_WAIT_NS))));
            }
            return work;
        } finally {
            lock.unlock();
        }
    }

    /** The dedicated engine thread: a pass, then the idle strategy, until closed. */
    private void run() {
        while (running) {
            int work;
            lock.lock();
            try {
                doorbellRung = false;
                work = doWork();
            } catch (RuntimeException | Error e) {
                // a failure outside any QP's turn and any packet's checks (those are caught there), such as the link's
                // receive: whatever the pass was taking in is lost, counted as dropped; kept for lastEngineFailure
                counters.increment(Counter.RCVD_DROPPED);
                failures.record(e instanceof RuntimeException r ? r : new IllegalStateException(e));
                work = 0;
            } finally {
                lock.unlock();
            }
            idle.idle(work, sleeper);
        }
    }

    /** The dedicated thread's sleep: on the link, until a datagram, a doorbell or the nearest timer. */
    private void sleep() {
        sleeping = true;
        if (!doorbellRung && running) {
            link.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(sleepBudgetNs())));
        }
        sleeping = false;
    }

    /** How long an idle engine may sleep: until the nearest timer, at most {@link #MAX_SLEEP_NS}. */
    private long sleepBudgetNs() {
        long now = clock.nanoTime();
        long budget = MAX_SLEEP_NS;
        lock.lock();
        try {
            for (int i = 0; i < qps.count(); i++) {
                budget = Math.min(budget, qps.at(i).requester.nextDeadlineNs(now));
            }
        } finally {
            lock.unlock();
        }
        return Math.max(0, budget);
    }

    /** One pass: receive, transmit, timers. Returns the amount of work done. Lock held. */
    int doWork() {
        return doWork(RX_POLL);
    }

    /**
     * One pass. {@link #RX_NONE} skips the socket (a post's doorbell in invoker mode: what it posted goes out at
     * once, and the poll that follows receives, one system call sooner on a request's way out); {@link #RX_WAIT}
     * lets its first receive wait for a datagram (see {@link #progressOrWait}).
     */
    private int doWork(int rx) {
        long now = clock.nanoTime();
        boolean receive = rx != RX_NONE;
        int work = receive ? receiver.receive(now, rx == RX_WAIT) : 0;
        int count = qps.count();
        int sending = 0; // counted before any QP transmits, so a burst of posts to many QPs shares from the start
        int unacked = 0;
        for (int i = 0; i < count; i++) {
            SoftQp qp = qps.at(i);
            if (qp.sqConsumer != qp.sqProducer) {
                sending++;
                if (qp.type == QpType.RC) {
                    unacked += qp.requester.unacknowledged();
                }
            }
        }
        shares.beginPass(sending, unacked);
        int first = count == 0 ? 0 : (int) (passes++ % count);
        for (int k = 0; k < count; k++) {
            int i = first + k < count ? first + k : first + k - count;
            SoftQp qp = qps.at(i);
            if (receive && (k & RX_EVERY_QPS) == RX_EVERY_QPS) {
                work += receiver.receive(now, false); // a long pass keeps the socket drained and takes ACKs in
            }
            work += serve(qp, now);
        }
        transmitter.flush();
        return work;
    }

    /** One QP's turn in a pass: flush in ERR (and SQE), the ACK timer, requester output, responder output. */
    private int serve(SoftQp qp, long now) {
        if (qp.state == QpState.ERR) {
            return qp.hasUnflushed() ? qp.flush() : 0;
        }
        int work = 0;
        if (qp.state == QpState.SQE && qp.sqConsumer != qp.sqProducer) {
            work += qp.flushSend(); // IBA 10.3.1: sends posted in SQE complete in error; receives go on
        }
        try {
            work += qp.completer.checkTimer(now);
            int requests = qp.requester.transmit(now); // first: an answer may precede a held ACK
            work += requests;
            work += qp.responder.transmit(now, requests > 0);
            qp.checkSqDrained();
        } catch (RuntimeException e) {
            // an engine bug must not stop the device: this QP fails (its WRs flush), the others go on
            counters.increment(Counter.QP_FATAL);
            failures.record(e);
            boolean wasError = qp.state == QpState.ERR;
            qp.enterError();
            if (!wasError) {
                qp.raise(AsyncEventType.QP_FATAL); // once: a QP already in ERR had its event
            }
        }
        return work;
    }

    @Override
    public void close() {
        running = false;
        if (waitingInReceive) {
            link.wakeReceive(); // an invoker-mode waiter asleep in a receive returns now, not after a tick
        }
        if (thread != null) {
            link.wakeup();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        link.close();
    }
}
