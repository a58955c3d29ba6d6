package io.jrdma.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Whether the machine had a core to spare lately: the idle time of all its CPUs ({@code /proc/stat}'s first line,
 * idle and iowait, in the kernel's 100 Hz clock ticks) over the span since the previous look, read through the FFM
 * API. {@link CallerBackoff} asks it before it calls the cores crowded: two pollers that ping-pong on one core while
 * the other idles wait for a core as much as pollers beside a busy process do, but there a long spin is the cure (the
 * idle core takes the thread waiting behind it), not a short one. The figure is coarse (10 ms ticks), so a look
 * comes at most every {@link #MIN_SPAN_NS} and its answer holds until the next; a span of less than that since the
 * last look, or a first look, answers {@link #UNKNOWN}. Shared by every thread of the process without locks: a lost
 * update costs one look more.
 */
final class IdleCores {

    /** {@link #spareSince}: there was at least half a core idle on average. */
    static final int SPARE = 1;
    /** {@link #spareSince}: the cores were busy (less than half a core idle). */
    static final int BUSY = 0;
    /** {@link #spareSince}: not known (no earlier look to compare with, or the figure cannot be read). */
    static final int UNKNOWN = -1;
    /** The shortest span a look compares over (five of the kernel's ticks). */
    static final long MIN_SPAN_NS = TimeUnit.MILLISECONDS.toNanos(50);
    /** A span longer than this says nothing about now: the look only takes a new baseline. */
    static final long MAX_SPAN_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(10); // USER_HZ is 100 on Linux

    private static final byte[] PATH = "/proc/stat\0".getBytes(StandardCharsets.US_ASCII);
    private static final int TEXT = 256;
    /** Per thread: the path, then the text read. */
    private static final ThreadLocal<MemorySegment> BUFFER = ThreadLocal.withInitial(() -> {
        MemorySegment b = Arena.ofAuto().allocate(32 + TEXT, 8);
        MemorySegment.copy(PATH, 0, b, ValueLayout.JAVA_BYTE, 0, PATH.length);
        return b;
    });

    private static volatile long lastLookNs;
    private static volatile long lastIdleTicks = -1;
    private static volatile int answer = UNKNOWN;

    private IdleCores() {
    }

    /**
     * Whether the cores had at least half a core idle on average over the span that ended at the last look
     * ({@link #SPARE}, {@link #BUSY} or {@link #UNKNOWN}); looks again at {@code now} when that look is older than
     * {@link #MIN_SPAN_NS}.
     */
    static int spareSince(long now) {
        long last = lastLookNs;
        if (lastIdleTicks >= 0 && now - last < MIN_SPAN_NS) {
            return answer;
        }
        long ticks = idleTicks(BUFFER.get());
        long before = lastIdleTicks;
        int a;
        if (ticks < 0) {
            a = UNKNOWN;
        } else if (before < 0 || now - last > MAX_SPAN_NS) {
            a = UNKNOWN;
        } else {
            a = spare(ticks - before, now - last);
        }
        lastLookNs = now;
        lastIdleTicks = ticks;
        answer = a;
        return a;
    }

    /** The answer for {@code idleTicks} of idle time, all cores together, over {@code spanNs}. */
    static int spare(long idleTicks, long spanNs) {
        return idleTicks * TICK_NS * 2 >= spanNs ? SPARE : BUSY;
    }

    /** The idle and iowait ticks of all CPUs, or -1. */
    private static long idleTicks(MemorySegment buf) {
        long n = ProcFile.read(buf, buf.asSlice(32, TEXT));
        return n < 0 ? -1 : idleOfFirstLine(buf, 32, n);
    }

    /**
     * The sum of the fourth and fifth numbers (idle, iowait) of the first line ({@code cpu  user nice system idle
     * iowait ...}) of the {@code length} bytes at {@code from}, or -1.
     */
    static long idleOfFirstLine(MemorySegment text, long from, long length) {
        long end = from + length;
        long i = from;
        long sum = 0;
        int field = 0; // numbers seen so far
        while (i < end && field < 5) {
            byte c = text.get(ValueLayout.JAVA_BYTE, i);
            if (c == '\n') {
                return -1;
            }
            if (c >= '0' && c <= '9' && (i == from || text.get(ValueLayout.JAVA_BYTE, i - 1) == ' ')) {
                long v = 0;
                while (i < end && (c = text.get(ValueLayout.JAVA_BYTE, i)) >= '0' && c <= '9') {
                    v = v * 10 + (c - '0');
                    i++;
                }
                field++;
                if (field >= 4) {
                    sum += v;
                }
                continue;
            }
            i++;
        }
        return field == 5 ? sum : -1;
    }
}
