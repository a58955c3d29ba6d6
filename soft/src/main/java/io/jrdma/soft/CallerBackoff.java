package io.jrdma.soft;

import java.util.concurrent.TimeUnit;

/**
 * Adaptive mode: when a caller's poll that found nothing stops spinning and waits on the socket (the kernel's NAPI
 * busy-poll budget, then the interrupt). On idle cores a spinning poll costs nobody anything and answers at once,
 * so it spins for {@link #SPIN_NS}. On shared cores the same spin takes the CPU the peer (or this process's other
 * threads) needs to produce what the poll waits for: a requester spinning for ACKs keeps its own peer from sending
 * them. So while the cores look contended the budget is {@link #CONTENDED_SPIN_NS}.
 *
 * <p>Contended means: between two empty polls of a spin more than {@link #SUSPECT_NS} passed, and the kernel counts
 * an involuntary context switch of the caller's thread since it last looked ({@link Preemptions}: a thread that
 * spins is switched out only when another runnable thread wants its core); where that count cannot be read, a gap
 * of more than {@link #PREEMPTED_NS} is taken for one. It stays so for {@link #CONTENDED_NS}; then the spin is tried
 * again. (A caller that does its own work between polls for that long, and was preempted meanwhile, is taken for
 * contended too: its polls then wait a little sooner, which costs it nothing it was spinning for.)
 *
 * <p>The fields are hints shared by the callers of one device without synchronisation: a lost update costs one
 * spin more or less, never correctness (a wait ends at the first datagram, and after {@link Engine#CALLER_WAIT_NS}).
 */
final class CallerBackoff {

    /** Spin budget of an idle caller on idle cores. */
    static final long SPIN_NS = TimeUnit.MICROSECONDS.toNanos(500);
    /** Spin budget while the cores look contended. */
    static final long CONTENDED_SPIN_NS = TimeUnit.MICROSECONDS.toNanos(5);
    /** A gap this long between two empty polls of one spin: the caller may have been switched out; ask the kernel. */
    static final long SUSPECT_NS = TimeUnit.MICROSECONDS.toNanos(10);
    /** Without the kernel's count: a gap this long between two empty polls of one spin means it was switched out. */
    static final long PREEMPTED_NS = TimeUnit.MICROSECONDS.toNanos(200);
    /** How long one sign of contention keeps the short budget. */
    static final long CONTENDED_NS = TimeUnit.MILLISECONDS.toNanos(50);

    /** A contended caller's wait while datagrams come in bulk: a timed sleep, not ended by a datagram. */
    static final long MODERATED_NS = TimeUnit.MICROSECONDS.toNanos(100);
    /** A wait after which the pass took in at least this many bytes: the datagrams come in bulk. */
    static final int BULK_BYTES = 32 * 1024;
    /** A wait after which the pass did this much work (datagrams in, packets out): a bulk transfer too. */
    static final int BULK_WORK = 16;

    /** Since when callers' polls have found nothing to do (0: the last found or did work). */
    private long idleSinceNs;
    /** When the last empty poll went on spinning (0: none since the last work or wait). */
    private long lastSpinNs;
    /** Until when the cores count as contended. */
    private long contendedUntilNs;
    /** Signs of contention seen (read by tests and counters). */
    private long contentions;
    /** Whether the pass after the last wait moved data in bulk ({@link #waited}). */
    private boolean bulk;

    /** A caller's pass or poll did work, or a post was sent: the next empty poll starts a new spin. */
    void worked() {
        idleSinceNs = 0;
        lastSpinNs = 0;
    }

    /**
     * An empty poll at {@code now}: whether the caller should now wait on the socket (true) or poll again (false).
     */
    boolean shouldWait(long now) {
        long since = idleSinceNs;
        if (since == 0) {
            idleSinceNs = now;
            lastSpinNs = now;
            return false;
        }
        long last = lastSpinNs;
        if (last != 0 && now - last > SUSPECT_NS && preempted(now - last)) {
            contendedUntilNs = now + CONTENDED_NS;
            contentions++;
        }
        long budget = contended(now) ? CONTENDED_SPIN_NS : SPIN_NS;
        if (now - since <= budget) {
            lastSpinNs = now;
            return false;
        }
        lastSpinNs = 0; // the wait that follows is not a gap in a spin
        return true;
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
     * ends: on contended cores, while the datagrams come in bulk. A ping-pong's waits each end with one small
     * datagram, so it keeps waking at once.
     */
    boolean moderated(long now) {
        return bulk && contended(now);
    }

    /** Whether a gap of {@code gapNs} in a spin was the calling thread being switched out. */
    private static boolean preempted(long gapNs) {
        long switches = Preemptions.sinceLast();
        return switches < 0 ? gapNs > PREEMPTED_NS : switches > 0;
    }

    /** Whether the cores count as contended at {@code now}. */
    boolean contended(long now) {
        return now - contendedUntilNs < 0;
    }

    /** Signs of contention seen so far. */
    long contentions() {
        return contentions;
    }
}
