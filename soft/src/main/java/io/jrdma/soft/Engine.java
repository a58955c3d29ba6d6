package io.jrdma.soft;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.AsyncEventType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The soft device's agent: its duty cycle ({@link #doWork}) takes in datagrams ({@link Receiver}), visits every QP of
 * the {@link QpTable} (flush in ERR, ACK timer, requester, responder), then flushes the {@link Transmitter}'s batch.
 * Who runs it is the {@link Threading}: callers' threads ({@link Threading#INVOKER}: a post's doorbell and a poll
 * each run a pass), its own thread ({@link Threading#DEDICATED}: idles by its {@link IdleStrategy}, sleeps on the
 * link until a datagram, a doorbell or a timer), or both ({@link Threading#ADAPTIVE}: callers while they call, the
 * thread, parked meanwhile, when they stop). Passes hold the device lock (the context's), serialising them with
 * control-path changes; posting and polling never wait for it. A post that finds it taken leaves the doorbell rung,
 * and whoever holds the lock runs another pass after releasing it when it finds the bell rung.
 */
final class Engine implements AutoCloseable {

    /** A pass over many QPs receives again after every this many, so a long pass cannot let the socket overflow. */
    private static final int RX_EVERY_QPS = 64 - 1;
    private static final long MAX_SLEEP_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The longest an invoker-mode wait polls the socket before the waiting thread runs a pass again. */
    private static final long MAX_POLL_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Adaptive mode: callers that ran a pass this recently are driving the engine, and its thread stays parked. */
    static final long CALLER_ACTIVE_NS = TimeUnit.MICROSECONDS.toNanos(50);
    /** Adaptive mode: ... and so are callers whose last one's thread is still runnable (a poller that lost its CPU). */
    static final long CALLER_RUNNABLE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Adaptive mode: the engine thread's park while callers drive grows from the first to the longest. */
    private static final long FIRST_PARK_NS = CALLER_ACTIVE_NS;
    private static final long LONGEST_PARK_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * Adaptive mode: the engine thread's park while a caller waits for an event (and drives the engine meanwhile);
     * the waiter that returns may leave the engine to the thread for this long, well within an ACK timeout.
     */
    private static final long WAITER_PARK_NS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Adaptive mode: a caller's pass records its time only when the last record is older than this. */
    private static final long CALLER_MARK_NS = TimeUnit.MICROSECONDS.toNanos(10);
    /** Adaptive mode: the longest a caller's poll waits on the socket (see {@link CallerBackoff}). */
    static final long CALLER_WAIT_NS = TimeUnit.MICROSECONDS.toNanos(50);
    /** A pass that did work and took longer than this restarts the ACK timers it armed (see {@link #doWork}). */
    private static final long LONG_PASS_NS = TimeUnit.MICROSECONDS.toNanos(50);
    /** A pass's receive: none, one that does not wait, one whose first call waits for a datagram. */
    private static final int RX_NONE = 0, RX_POLL = 1, RX_WAIT = 2;

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
    /** Dedicated mode, idle strategy not spin: on contended cores the thread sleeps once a pass finds nothing. */
    private final boolean sleepsWhenContended;
    private final IdleStrategy.Sleeper sleeper = this::sleep;
    private long passes; // passes run: where the next one starts visiting QPs

    private Thread thread;
    private volatile boolean running;
    private volatile boolean sleeping;
    /** Whether the adaptive engine thread runs under SCHED_BATCH now (only that thread reads or writes it). */
    private boolean batchPolicy;
    /** The engine thread woke on the link: it runs a pass before it may park for callers (engine thread only). */
    private boolean passFirst;
    private volatile boolean doorbellRung;
    /** A caller's thread is in, or about to enter, a receive that waits (see {@link #progressOrWait}). */
    private volatile boolean waitingInReceive;
    /** A caller's thread waits on the link ({@link Link#await}) holding the device lock, until {@link Link#wakeup}. */
    private volatile boolean waitingInPoll;
    /** Adaptive mode: a caller's thread waits for an event and drives the engine meanwhile. */
    private volatile boolean callerWaiting;
    /** Adaptive mode: when ({@link System#nanoTime}) a caller last ran, or tried to run, a pass. */
    private volatile long callerPassNs = System.nanoTime() - LONGEST_PARK_NS;
    private volatile Thread callerThread = Thread.currentThread(); // the caller that last recorded callerPassNs
    /** When the last caller's poll began: its pass and its back-off share that one read of the clock (any caller). */
    private long callerNowNs;
    /** Adaptive mode: the engine thread's next park while callers drive (its own, not shared). */
    private long parkNs = FIRST_PARK_NS;
    /** When callers' empty polls (and a channel waiter's, {@link WaitSpin}) stop spinning, to wait or sleep. */
    final CallerBackoff backoff;
    /** Dedicated mode: a caller's empty poll that sleeps until the engine thread's next pass with work. */
    private final DedicatedCallerSleep callerSleep;
    /** Adaptive mode: the caller that waits on the socket ({@link Link#awaitReadable} is for one at a time). */
    private final AtomicBoolean callerWaitTaken = new AtomicBoolean();
    /** Adaptive mode: times the engine thread took over from callers that stopped (its own; read by tests). */
    private volatile long takeovers;

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
        this.sleepsWhenContended = threading == Threading.DEDICATED && !(idle instanceof BusySpinIdle);
        this.backoff = new CallerBackoff(counters);
        this.callerSleep = new DedicatedCallerSleep(backoff);
    }

    IdleStrategy idleStrategy() {
        return idle;
    }

    /** Whether there is no engine thread: only callers run passes ({@link Threading#INVOKER}). */
    boolean invoker() {
        return threading == Threading.INVOKER;
    }

    /** Whether a thread waiting for a completion event drives the engine itself (not {@link Threading#DEDICATED}). */
    boolean waitersDrive() {
        return threading != Threading.DEDICATED;
    }

    /**
     * Whether the callers' threads are driving the engine now: always in invoker mode, in adaptive mode while one
     * waits for an event or ran a pass within {@link #CALLER_ACTIVE_NS}, or within {@link #CALLER_RUNNABLE_NS} from a
     * thread that is still runnable.
     */
    boolean callersDrive() {
        return switch (threading) {
            case INVOKER -> true;
            case DEDICATED -> false;
            case ADAPTIVE -> {
                long since = System.nanoTime() - callerPassNs;
                yield callerWaiting || callerWaitTaken.get() || since < CALLER_ACTIVE_NS
                        || since < CALLER_RUNNABLE_NS && callerThread.getState() == Thread.State.RUNNABLE;
            }
        };
    }

    /**
     * Whether a responder holds a completed receive's ACK briefly for the answer the application is about to post
     * ({@link AckQueue}): in invoker mode, and in adaptive mode while a caller waits for an event or polls in a loop.
     */
    boolean holdsAckForAnswer() {
        return threading == Threading.INVOKER
                || threading == Threading.ADAPTIVE && (callerWaiting || backoff.spinning(System.nanoTime()));
    }

    /** Ends a caller's wait in a receive or a poll, which holds the device lock: another thread needs the lock. */
    void wakeWaiter() {
        if (waitingInReceive) {
            link.wakeReceive();
        }
        if (waitingInPoll) {
            link.wakeup();
        }
    }

    /** Adaptive mode: how many times the engine thread took over from callers that had stopped driving. */
    long takeovers() {
        return takeovers;
    }

    void start(String name) {
        if (threading != Threading.INVOKER) {
            running = true;
            thread = Thread.ofPlatform().daemon().name("jrdma-engine-" + name).start(this::run);
        }
    }

    // ------------------------------------------------------------------------------------------------- progress

    /**
     * After a post: a pass on the caller's thread (invoker, adaptive) or the engine thread woken (dedicated); a lock
     * holder (another thread) finds the bell rung and runs one more pass.
     */
    void doorbell() {
        doorbellRung = true; // before trying the lock: a holder that releases it and reads false saw this post
        if (threading == Threading.DEDICATED) {
            if (sleeping) {
                link.wakeup();
            }
            backoff.worked(); // a caller that posts is not idle: its next empty poll starts a new spin
            return;
        }
        long now = System.nanoTime();
        markCaller(now);
        int work = passWhileRung(RX_NONE, now);
        if (work > 0 && threading == Threading.ADAPTIVE) {
            backoff.worked(); // a caller that posts is not idle: its next empty poll starts a new spin
        }
        if (work < 0) {
            // another thread runs the engine, and may be asleep in a receive or on the link: it sends this post once
            // it wakes, so it is woken (it reads doorbellRung after announcing the wait: one of us sees the other)
            if (waitingInReceive) {
                link.wakeReceive();
            }
            if (sleeping) {
                link.wakeup();
            }
        }
    }

    /** Records that a caller drives the engine now; a volatile write only every {@link #CALLER_MARK_NS}. */
    private void markCaller(long now) {
        if (threading == Threading.ADAPTIVE && now - callerPassNs > CALLER_MARK_NS) {
            callerThread = Thread.currentThread(); // before the time: a reader that sees the time sees this caller
            callerPassNs = now;
        }
    }

    /**
     * Passes on the calling thread while the lock is free and the doorbell rings: one, and another whenever a post
     * rang it during the last (its poster found the lock taken). A pass that only sends ({@link #RX_NONE}) is the
     * post's own. The first takes the caller's clock reading ({@code now}) where the engine's clock is the system's.
     * Returns the work done, or -1 when another thread held the lock (it sees the rung bell).
     */
    private int passWhileRung(int rx, long now) {
        int work = -1;
        long passNs = clock == NanoClock.SYSTEM ? now : clock.nanoTime();
        while (lock.tryLock()) {
            try {
                if (doorbellRung) {
                    doorbellRung = false; // read first: the poster's WQE happened before its ring
                }
                work = Math.max(work, 0) + doWork(rx, passNs);
            } finally {
                lock.unlock();
            }
            if (!doorbellRung) {
                break;
            }
            passNs = clock.nanoTime();
        }
        return work;
    }

    /**
     * After a receive is posted: a dedicated engine is woken (a QP in ERR flushes it at once), and so is an adaptive
     * one asleep on the link; callers that drive the engine run that pass in their next poll.
     */
    void recvDoorbell() {
        if (threading == Threading.DEDICATED) {
            doorbell();
        } else if (threading == Threading.ADAPTIVE && sleeping) {
            doorbellRung = true;
            link.wakeup();
        }
    }

    /** {@code Context.progress()}: a caller's pass ({@link #callerPass}), then {@link #callerIdle}'s back-off. */
    int progress() {
        int work = callerPass();
        int after = callerIdle(work, false, null);
        return Math.max(0, after >= 0 ? after : work);
    }

    /** A poll's pass on the caller's thread: the work done, -1 when none ran (dedicated, or another's pass). */
    int callerPass() {
        if (threading == Threading.DEDICATED) {
            return -1;
        }
        long now = System.nanoTime();
        callerNowNs = now;
        markCaller(now);
        return passWhileRung(RX_POLL, now);
    }

    /** A channel waiter's pass while it polls before sleeping ({@link WaitSpin}): a caller's, as a waiter's. */
    int waiterPass() {
        callerWaiting = threading == Threading.ADAPTIVE; // ACKs held for its answer; the engine thread stays parked
        try {
            return callerPass();
        } finally {
            callerWaiting = false;
        }
    }

    /**
     * After a caller's pass that did {@code work} (-1: none ran), whose poll {@code found} completions or not. Adaptive
     * mode, the passes empty for their spin budget ({@link CallerBackoff}): a wait up to {@link #CALLER_WAIT_NS} on the
     * socket, or on contended cores in a bulk transfer a {@link CallerBackoff#MODERATED_NS} sleep (interrupt
     * moderation); then a pass takes in what ended it. Returns that pass's work (or the one after a yield), else -1.
     */
    int callerIdle(int work, boolean found, SoftCq cq) {
        if (threading == Threading.DEDICATED) {
            return callerSleep.afterPoll(found, cq);
        }
        if (threading != Threading.ADAPTIVE || work < 0) {
            return -1;
        }
        long now = callerNowNs; // the poll's time (read before its pass): this one or another caller's
        if (work > 0 || found) {
            backoff.answered(now);
            return -1;
        }
        if (!backoff.shouldWait(now) || doorbellRung) {
            if (backoff.shouldYield(now)) {
                return yieldToAnswer();
            }
            return -1;
        }
        if (callerWaitTaken.compareAndSet(false, true)) {
            try {
                if (backoff.moderated(now)) {
                    LockSupport.parkNanos(CallerBackoff.MODERATED_NS);
                } else {
                    link.awaitReadable(CALLER_WAIT_NS);
                }
            } finally {
                callerWaitTaken.set(false);
            }
        } else {
            LockSupport.parkNanos(CALLER_WAIT_NS); // another caller waits on the socket
        }
        backoff.woke(System.nanoTime());
        int after = callerPass();
        backoff.waited(after, receiver.lastBytes());
        return after;
    }

    /**
     * Adaptive mode: a spin yields its core, where the answering thread may have been woken behind it (a datagram's
     * wake-up puts it on the sender's core). Peers on this host ring no sleeping thread of this device meanwhile
     * ({@link Link#yieldStarted}): what they send is this caller's, taken by a pass as it comes back (returns its
     * work).
     */
    private int yieldToAnswer() {
        link.yieldStarted();
        boolean arrived;
        try {
            Thread.yield();
        } finally {
            arrived = link.yieldEnded();
        }
        backoff.yielded(System.nanoTime());
        int work = arrived ? callerPass() : -1;
        if (work < 0 && arrived) { // the lock's holder may be asleep in a receive, or not in a pass at all
            wakeWaiter();
            if (sleeping) {
                link.wakeup();
            }
        }
        return work;
    }

    /**
     * For a thread that waits for an event up to {@code leftNs} (not dedicated): a pass, and when it finds nothing, a
     * wait on the socket. When nothing can need the engine within two kernel ticks, a receive that sleeps until the
     * first datagram, the nearest timer or the deadline and takes the datagram ({@link Link#receiveWaitLimit}); a post
     * from another thread wakes it ({@link #doorbell}), so does one that needs the lock ({@link #wakeWaiter}). Else a
     * poll of at most a millisecond. Another thread in the engine: parks briefly instead. Returns the work done.
     */
    int progressOrWait(long leftNs) {
        callerWaiting = threading == Threading.ADAPTIVE;
        try {
            callerPassNs = System.nanoTime();
            return waitInPass(leftNs);
        } finally {
            callerWaiting = false;
            callerPassNs = System.nanoTime();
        }
    }

    private int waitInPass(long leftNs) {
        // a thread queued for the lock (a control-path call) goes first: a waiter that took the lock again at once
        // would make it wait out one sleep after another
        if (lock.hasQueuedThreads() || !lock.tryLock()) {
            LockSupport.parkNanos(Math.min(leftNs, 50_000));
            return 0;
        }
        try {
            long tick = link.receiveWaitNs();
            // a wait of k ticks ends at the boundary after the k-th at the latest: it may take one tick more
            long budget = Math.min(leftNs, sleepBudgetNs());
            if (tick > 0 && budget >= 2 * tick) {
                link.receiveWaitLimit(budget - tick);
                if (doorbellRung) {
                    doorbellRung = false; // read first: the poster's WQE happened before its ring
                }
                int work = doWork(RX_NONE, clock.nanoTime()); // what a pass must send, before the engine sleeps
                if (work > 0) {
                    return work;
                }
                waitingInReceive = true; // announced before the check: a thread queuing after it wakes this one
                try {
                    return doWork(doorbellRung || lock.hasQueuedThreads() ? RX_POLL : RX_WAIT, clock.nanoTime());
                } finally {
                    waitingInReceive = false;
                }
            }
            int work = doWork(RX_POLL, clock.nanoTime());
            if (work == 0) {
                waitingInPoll = true;
                try {
                    if (!lock.hasQueuedThreads()) {
                        link.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(leftNs, MAX_POLL_WAIT_NS))));
                    }
                } finally {
                    waitingInPoll = false;
                }
            }
            return work;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The engine thread: a pass, then the idle strategy, until closed. In adaptive mode it parks instead while callers
     * drive the engine, longer each time they still do (up to {@link #LONGEST_PARK_NS}), and takes over when they
     * stopped: a rung doorbell or no caller's pass within {@link #CALLER_ACTIVE_NS}.
     */
    private void run() {
        boolean adaptive = threading == Threading.ADAPTIVE;
        boolean dedicated = threading == Threading.DEDICATED;
        boolean parked = false;
        if (adaptive) {
            EngineScheduling.normal(); // the short slice, for its first sleep on the link (EngineScheduling says why)
        }
        while (running) {
            if (adaptive && !doorbellRung && !passFirst && callersDrive()) {
                if (!batchPolicy) { // its looks while callers drive must not preempt them (EngineScheduling says why)
                    batchPolicy = EngineScheduling.batch();
                }
                LockSupport.parkNanos(callerWaiting ? WAITER_PARK_NS : parkNs);
                parkNs = Math.min(LONGEST_PARK_NS, 2 * parkNs);
                parked = true;
                continue;
            }
            passFirst = false;
            int work;
            if (adaptive) {
                if (!lock.tryLock()) { // a caller (or the control path) is in a pass: no takeover, the park goes on
                    LockSupport.parkNanos(parked ? parkNs : FIRST_PARK_NS);
                    continue;
                }
            } else {
                lock.lock();
            }
            if (parked) {
                parked = false;
                parkNs = FIRST_PARK_NS;
                takeovers++; // only this thread writes it
            }
            try {
                if (doorbellRung) {
                    doorbellRung = false; // read first: the poster's WQE happened before its ring
                }
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
            if (work > 0 && dedicated) {
                callerSleep.wake();
            }
            if (work == 0 && sleepsWhenContended && backoff.contended(System.nanoTime())) {
                sleep(); // dedicated, on contended cores: its spins and yields would take the cores its callers need
                continue;
            }
            idle.idle(work, sleeper);
        }
    }

    /**
     * The engine thread's sleep: on the link, until a datagram, a doorbell or the nearest timer. An adaptive engine
     * whose callers drive again does not sleep: it parks on its next turn.
     */
    private void sleep() {
        sleeping = true;
        if (!doorbellRung && running && !(threading == Threading.ADAPTIVE && callersDrive())) {
            if (batchPolicy) { // woken, it is the one that answers: it preempts a busy thread (EngineScheduling)
                batchPolicy = !EngineScheduling.normal();
            }
            link.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(sleepBudgetNs())));
            passFirst = true; // woken by what came in or by the nearest timer: work for this thread, not a caller's
        }
        sleeping = false;
    }

    /** How long an idle engine may sleep: until the nearest timer, at most {@link #MAX_SLEEP_NS}. */
    private long sleepBudgetNs() {
        lock.lock();
        try {
            return Math.max(0, qps.nextDeadlineNs(clock.nanoTime(), MAX_SLEEP_NS));
        } finally {
            lock.unlock();
        }
    }

    /** One pass: receive, transmit, timers. Returns the amount of work done. Lock held. */
    int doWork() {
        return doWork(RX_POLL, clock.nanoTime());
    }

    /**
     * One pass. {@link #RX_NONE} skips the socket (a post's doorbell in invoker mode: what it posted goes out at
     * once, and the poll that follows receives, one system call sooner on a request's way out); {@link #RX_WAIT}
     * lets its first receive wait for a datagram (see {@link #progressOrWait}).
     */
    private int doWork(int rx, long now) {
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
            work += serve(qp, now, receive);
        }
        transmitter.flush();
        if (work > 0) { // a pass whose thread lost the CPU halfway sent its packets late: their timers run from then
            long end = clock.nanoTime();
            if (end - now > LONG_PASS_NS) {
                qps.passEnded(now, end);
            }
        }
        return work;
    }

    /**
     * One QP's turn in a pass: flush in ERR (and SQE), the ACK timer, requester output, responder output. The timer
     * is looked at only in a pass that received ({@code received}) first: the ACK it waits for may be in the socket,
     * arrived while nobody drove the engine, and a post's transmit-only pass would time out a peer that answered.
     */
    private int serve(SoftQp qp, long now, boolean received) {
        if (qp.state == QpState.ERR) {
            return qp.hasUnflushed() ? qp.flush() : 0;
        }
        int work = 0;
        if (qp.state == QpState.SQE && qp.sqConsumer != qp.sqProducer) {
            work += qp.flushSend(); // IBA 10.3.1: sends posted in SQE complete in error; receives go on
        }
        try {
            if (received) {
                work += qp.completer.checkTimer(now);
            }
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
            LockSupport.unpark(thread);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        link.close();
    }
}
