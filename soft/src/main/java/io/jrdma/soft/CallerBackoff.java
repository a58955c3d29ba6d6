package io.jrdma.soft;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.LongToIntFunction;

/**
 * Adaptive mode: when a caller's poll that found nothing stops spinning and waits (the kernel's NAPI busy-poll budget,
 * then the interrupt), and what kind of wait. On idle cores a spinning poll costs nobody anything and answers at once,
 * so it spins for {@link #SPIN_NS}, far longer than the kernel's migration cost (500 µs): a caller that sleeps sooner
 * is what keeps two processes that ping-pong on one core. The datagram that ends a caller's wait is sent from the
 * peer's core, and the kernel wakes the sleeper there (a sync wake-up expects the waker to sleep soon), so after one
 * stall of either side (a compiler thread, the hypervisor) both can end up on one core while the other idles: one
 * spins, the other waits behind it until the spin gives up and sleeps, and then the roles swap. Each ran less than the
 * migration cost ago, so both stay cache-hot to the scheduler and the idle core never pulls one over. With a 500 µs
 * budget, every message then cost a budget: the 280 - 520 µs iterations of a third of the default {@code ib_send_lat}
 * runs (seen with {@code perf sched}: both threads on core 0, wake-ups aimed at core 0, core 1 idle). A thread that
 * waits behind a longer spin goes cold, the idle core takes it, and two pollers that spin on two cores never wake each
 * other again. The same wake-up puts a thread that the datagram of a poller back from being away wakes (a sleeping
 * peer's engine thread, a channel waiter) behind that poller's spin, where it would wait about a millisecond for the
 * idle core: so that first spin yields the core, 5 µs in and every 25 µs after ({@link #shouldYield}). On shared
 * cores the same spin takes the CPU the peer (or this process's other threads) needs to produce what the poll waits
 * for: a requester spinning for ACKs keeps its own peer from sending them. So while the cores are contended the
 * budget is {@link #CONTENDED_SPIN_NS}, and a bulk transfer's waits are timed sleeps ({@link #moderated}) rather than
 * waits the next datagram ends.
 *
 * <p>Contended means: callers spinning here spent more than a {@link #CONTENDED_SHARE} of their spinning time
 * switched out (time they slept or worked between polls of their own accord is not spinning time). A gap of more
 * than {@link #SUSPECT_NS} between two empty polls of one spin counts as switched out when the kernel counts an
 * involuntary context switch of the caller's thread since it last looked ({@link Preemptions}: a spinning thread is
 * switched out only when another runnable thread wants its core; where that count cannot be read, a gap of more
 * than {@link #PREEMPTED_NS} counts). The share is taken over every {@link #SAMPLE_NS} of spinning. A weaker verdict,
 * crowded, cuts the spin the same way and stops its yields but keeps the waits that a datagram ends. Its sign: a spin
 * of {@link #LONG_SPIN_NS} or more that ends switched out, seen by the next empty poll or by the poll that finds the
 * answer (another thread waited for this core while it spun; the kernel ends such a spin only with the time slice,
 * milliseconds, and since a wake-up does not preempt a thread early in its slice, the thread waiting behind it is
 * often the one whose answer the spin waits for: beside one busy process, the default {@code ib_send_lat}'s p99 was
 * such slices, 2 ms). The sign does not count while the machine had half a core or more idle lately
 * ({@link IdleCores}): two pollers of a ping-pong that ended up on one core show it too, and for them the long spin
 * is the cure (behind it the waiting one goes cold and the idle core takes it). Either verdict holds for
 * {@link #CONTENDED_NS} after its last sign, then the spin is tried again: a crowded ping-pong's short spins are
 * seldom preempted, so at most one slice every {@link #CONTENDED_NS} renews it. (Renewing it from the caller's run
 * delay too, {@code /proc/thread-self/schedstat}, kept it on for good: on two cores, two pollers' short spins and
 * waits make their own run delay, and a quiet busy ping-pong's p99 went from 2 to 50 µs.) An occasional preemption
 * of short spins (a kernel worker, a compiler thread, the engine thread looking in) is no sign: two pollers spinning
 * on two cores keep spinning.
 *
 * <p>The fields are hints shared by the callers of one device without synchronisation: a lost update costs one
 * spin more or less, never correctness (every wait is bounded by {@link Engine#CALLER_WAIT_NS} or
 * {@link #MODERATED_NS}).
 */
final class CallerBackoff {

    /** Spin budget of an idle caller on idle cores. */
    static final long SPIN_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /** A caller whose last empty poll is older than this was away (asleep, computing) before the current spin. */
    static final long AWAY_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The first spin after being away yields the core after this long without an answer... */
    static final long YIELD_AFTER_NS = TimeUnit.MICROSECONDS.toNanos(5);
    /** ... and again every this long while it lasts. */
    static final long YIELD_EVERY_NS = TimeUnit.MICROSECONDS.toNanos(25);
    /** Spin budget while the cores are contended. */
    static final long CONTENDED_SPIN_NS = TimeUnit.MICROSECONDS.toNanos(30);
    /** A gap this long between two empty polls of one spin: the caller may have been switched out; ask the kernel. */
    static final long SUSPECT_NS = TimeUnit.MICROSECONDS.toNanos(10);
    /** Without the kernel's count: a gap this long between two empty polls of one spin means it was switched out. */
    static final long PREEMPTED_NS = TimeUnit.MICROSECONDS.toNanos(200);
    /** Spinning time over which the switched-out share is taken. */
    static final long SAMPLE_NS = TimeUnit.MICROSECONDS.toNanos(500);
    /**
     * A spin that went on this long before the caller was switched out involuntarily makes the cores contended at
     * once: another thread waited for this core while it spun (on an idle core nobody does), and it waited for the
     * rest of a time slice, perhaps the very thread whose answer the spin was waiting for.
     */
    static final long LONG_SPIN_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * A caller that polled this recently polls in a loop ({@link #spinning}): the ACK of a message its pass takes in
     * may wait for the answer it is about to post (as long as {@link AckQueue#ACK_HOLD_NS}, in passes).
     */
    static final long SPINNING_NS = AckQueue.ACK_HOLD_NS;
    /** The share of spinning time switched out above which the cores are contended (one fifth). */
    static final int CONTENDED_SHARE = 5;
    /** How long a contended verdict holds. */
    static final long CONTENDED_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A contended caller's wait while the data moves in bulk: a timed sleep, not ended by a datagram. */
    static final long MODERATED_NS = TimeUnit.MICROSECONDS.toNanos(100);
    /** A wait after which the pass took in at least this many bytes: the data moves in bulk. */
    static final int BULK_BYTES = 32 * 1024;
    /** A wait after which the pass did this much work (datagrams in, packets out): a bulk transfer too. */
    static final int BULK_WORK = 16;

    private final Counters counters;
    /** The calling thread's involuntary context switches since it last asked, or -1 ({@link Preemptions}). */
    private final LongSupplier switches;
    /** Whether the machine had a core to spare lately ({@link IdleCores}). */
    private final LongToIntFunction spareCores;

    /** Since when callers' polls have found nothing to do (0: the last found or did work). */
    private long idleSinceNs;
    /** When the last empty poll went on spinning (0: none since the last work or wait). */
    private long lastSpinNs;
    /** Spinning time in the current sample, and how much of it the callers were switched out. */
    private long sampleNs;
    private long switchedOutNs;
    /** Until when the cores count as contended. */
    private long contendedUntilNs;
    /** Until when the cores count as crowded (a short spin, no more; see {@link #crowded}). */
    private long crowdedUntilNs;
    /** Whether the pass after the last wait moved data in bulk ({@link #waited}). */
    private boolean bulk;
    /** When a caller's poll last ended, empty or not, a wait included (0: never). */
    private long lastPollNs;
    /** As of when a caller's passes count as a loop's ({@link #spinning}; 0: not). */
    private long loopNs;
    /** Whether the current wait began in a loop of polls ({@link #woke}). */
    private boolean waitInLoop;
    /** When the last empty poll was, and when the current spin yields its core (0: it does not). */
    private long lastEmptyPollNs;
    private long yieldAtNs;

    CallerBackoff(Counters counters) {
        this(counters, Preemptions::sinceLast, IdleCores::spareSince);
    }

    /**
     * With the count of involuntary context switches taken from {@code switches} and the spare cores from
     * {@code spareCores} (tests).
     */
    CallerBackoff(Counters counters, LongSupplier switches, LongToIntFunction spareCores) {
        this.counters = counters;
        this.switches = switches;
        this.spareCores = spareCores;
    }

    /**
     * Whether a caller polls in a loop at {@code now}: it polled within {@link #SPINNING_NS}, or it is back from a
     * wait that a poll within that time before it began (a ping-pong on contended cores waits in each poll, and its
     * answer follows at once: an ACK sent ahead of it wakes the peer once more, about 50 us a message beside a busy
     * process). A caller that polls now and then (every millisecond) may not come back for long, and an ACK held for
     * its answer then waited for the engine thread's next look, up to its longest park (10 ms): the idle bench's
     * sleeping server took in the client's SEND in such a poll and its ACK left 0.1 - 1.1 ms later.
     */
    boolean spinning(long now) {
        long loop = loopNs;
        return loop != 0 && now - loop < SPINNING_NS;
    }

    /** A caller's wait (on the socket, or moderated) ended at {@code now}: its pass counts as a loop's if the wait's did. */
    void woke(long now) {
        loopNs = waitInLoop ? now : 0;
        lastPollNs = now;
    }

    /** A caller's pass or poll did work, or a post was sent: the next empty poll starts a new spin. */
    void worked() {
        idleSinceNs = 0;
        lastSpinNs = 0;
    }

    /**
     * A caller's poll at {@code now} found what it spun for: the spin ends ({@link #worked}). When the poll came after
     * a long gap in a long spin, and the caller was switched out in it, the answer came while it was off its core: the
     * thread that sent it had waited for that core ({@link #LONG_SPIN_NS}), and the cores are crowded. The gap's end
     * is seen by this poll alone, so {@link #shouldWait} never sees it.
     */
    void answered(long now) {
        lastPollNs = now;
        loopNs = now;
        long last = lastSpinNs;
        long since = idleSinceNs;
        if (last != 0 && since != 0 && last - since >= LONG_SPIN_NS && now - last > SUSPECT_NS
                && switchedOut(now - last)) {
            crowd(now);
        }
        worked();
    }

    /**
     * An empty poll at {@code now}: whether the caller should now wait (true) or poll again (false).
     */
    boolean shouldWait(long now) {
        long since = idleSinceNs;
        long lastEmpty = lastEmptyPollNs;
        lastEmptyPollNs = now;
        long lastPoll = lastPollNs;
        waitInLoop = lastPoll != 0 && now - lastPoll < SPINNING_NS; // read by woke() if this poll waits
        lastPollNs = now;
        loopNs = now;
        if (since == 0) {
            idleSinceNs = now;
            lastSpinNs = now;
            yieldAtNs = lastEmpty == 0 || now - lastEmpty > AWAY_NS ? now + YIELD_AFTER_NS : 0;
            return false;
        }
        long last = lastSpinNs;
        if (last != 0) {
            sample(now, now - last, since);
        }
        // contended and moving data in bulk: no spin at all. The peer that must answer (ACK a window, take in a
        // burst) needs the core this spin would hold, and the wait that follows is a moderated one anyway
        long budget = contended(now) ? (bulk ? 0 : CONTENDED_SPIN_NS) : crowded(now) ? CONTENDED_SPIN_NS : SPIN_NS;
        if (now - since <= budget) {
            lastSpinNs = now;
            return false;
        }
        lastSpinNs = 0; // the wait that follows is not a gap in a spin
        return true;
    }

    /**
     * After {@link #shouldWait} said spin on at {@code now}: whether the caller should first yield its core, in the
     * first spin after it was away ({@link #AWAY_NS}): {@link #YIELD_AFTER_NS} into it, then every
     * {@link #YIELD_EVERY_NS}. A caller that comes back, sends and spins for the answer wakes the thread that answers
     * it on the same host behind itself (a sync wake-up: a sleeping peer's engine thread, a channel waiter), and an
     * engine thread under SCHED_BATCH does not preempt it: it runs when the spin yields. The first yield may come
     * before the datagram has arrived, hence the later ones (one yield at 50 us: the idle bench's ACK round trip
     * 81 - 143 µs p50, 240 - 2,489 µs p99; these: 35 - 61 µs, 236 - 2,079 µs, same window). A ping-pong's callers are
     * never away, so their spins do not yield: a yield keeps the thread behind the spin cache-hot, and two pollers
     * sharing a core would then alternate on it instead of the idle core taking one.
     */
    boolean shouldYield(long now) {
        long at = yieldAtNs;
        if (at == 0 || now - at < 0 || crowded(now)) {
            return false;
        }
        yieldAtNs = now + YIELD_EVERY_NS;
        return true;
    }

    /** The yield {@link #shouldYield} asked for returned at {@code now}: its time is no gap in the spin. */
    void yielded(long now) {
        if (lastSpinNs != 0) {
            lastSpinNs = now;
        }
    }

    /**
     * A completion channel's waiter polled in vain from {@code now - gapNs} to {@code now}, in polls that began at
     * {@code since} ({@link WaitSpin}): a step of a caller's spin, for the verdicts.
     */
    void spun(long now, long gapNs, long since) {
        sample(now, gapNs, since);
    }

    /**
     * Adds one step of a spin that began at {@code since}, {@code gapNs} long and ending at {@code now}, to the
     * sample; ends the sample with a verdict when it is full. A long step in which the thread was not switched out
     * involuntarily (it slept or did its own work between polls) is no spinning time, and is left out.
     */
    private void sample(long now, long gapNs, long since) {
        if (gapNs > SUSPECT_NS) {
            if (!switchedOut(gapNs)) {
                return;
            }
            switchedOutNs += gapNs;
            if (now - gapNs - since >= LONG_SPIN_NS) {
                crowd(now);
            }
        }
        sampleNs += gapNs;
        if (sampleNs >= SAMPLE_NS) {
            if (switchedOutNs * CONTENDED_SHARE > sampleNs) {
                contend(now);
            }
            sampleNs = 0;
            switchedOutNs = 0;
        }
    }

    /** The cores count as contended from {@code now} for {@link #CONTENDED_NS}; counted when they did not before. */
    private void contend(long now) {
        if (!contended(now)) {
            counters.addAtomic(Counter.CALLER_CONTENDED, 1);
        }
        contendedUntilNs = now + CONTENDED_NS;
    }

    /**
     * The cores count as crowded from {@code now} for {@link #CONTENDED_NS} (counted when they did not before), unless
     * half a core or more idled lately ({@link IdleCores}): then the thread that waited for this caller's core was
     * its partner on a core the two share while another idles, and a long spin lets the idle core take it.
     */
    private void crowd(long now) {
        if (spareCores.applyAsInt(now) == IdleCores.SPARE) {
            return;
        }
        if (!crowded(now)) {
            counters.addAtomic(Counter.CALLER_CROWDED, 1);
        }
        crowdedUntilNs = now + CONTENDED_NS;
    }

    /** Whether a gap of {@code gapNs} in a spin was the calling thread being switched out. */
    private boolean switchedOut(long gapNs) {
        long n = switches.getAsLong();
        return n < 0 ? gapNs > PREEMPTED_NS : n > 0;
    }

    /**
     * A wait ended, and the pass after it did {@code work} and took in {@code bytes}: a requester woken by an ACK
     * that lets it send a window's worth, or a receiver woken by a window's worth of data, moves data in bulk.
     */
    void waited(int work, int bytes) {
        bulk = bytes >= BULK_BYTES || work >= BULK_WORK;
    }

    /**
     * Whether a wait at {@code now} should be a timed sleep ({@link #MODERATED_NS}) rather than one the next datagram
     * ends: on contended cores, while the data moves in bulk (a NIC's interrupt moderation: a receiver woken by every
     * datagram would take the CPU from its sender after each one). A ping-pong's waits each end with one small
     * datagram, so it keeps waking at once.
     */
    boolean moderated(long now) {
        if (bulk && contended(now)) {
            counters.addAtomic(Counter.CALLER_MODERATED_WAITS, 1);
            return true;
        }
        return false;
    }

    /**
     * Dedicated mode, an empty poll at {@code now}: whether the caller should sleep until the engine thread works
     * (counted as a moderated wait): on contended cores, once the spin has gone on for its contended budget.
     */
    boolean shouldSleep(long now) {
        if (!shouldWait(now) || !contended(now)) {
            return false;
        }
        counters.addAtomic(Counter.CALLER_MODERATED_WAITS, 1);
        return true;
    }

    /** Whether the cores count as contended at {@code now}. */
    boolean contended(long now) {
        return now - contendedUntilNs < 0;
    }

    /**
     * Whether the cores count as crowded at {@code now}: contended, or a sign that a thread waited for a core while
     * a caller spun (a long spin preempted). A crowded caller's spin is {@link #CONTENDED_SPIN_NS} and does not
     * yield, but its waits stay the ones a datagram ends: two processes that move data in bulk on two cores crowd
     * them too, and with such signs making the cores contended (timed waits) the quiet 64 KiB WRITE of
     * {@code jrdma bench} lost a fifth to a third (3,583 - 3,673 MB/s against 4,286 - 5,073, same window).
     */
    boolean crowded(long now) {
        return now - crowdedUntilNs < 0 || contended(now);
    }
}
