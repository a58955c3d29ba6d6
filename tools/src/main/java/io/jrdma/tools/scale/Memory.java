package io.jrdma.tools.scale;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * What the process holds, for measuring what QPs cost: the live heap after garbage collection (settled over
 * repeated collections), the class histogram of live objects, direct buffers, the native memory the JVM allocates for
 * Java code (Native Memory Tracking's "Other" category: {@code Unsafe.allocateMemory}, which backs both direct buffers
 * and {@code Arena} segments — JDK 25 counts arena segments in no buffer pool), and the open file descriptors.
 */
final class Memory {

    private static final int MAX_GCS = 12;
    private static final long SETTLED_BYTES = 8 * 1024;
    private static final Pattern HISTO_LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
    /** The collector's fillers of dead space (jdk.internal.vm.FillerObject, FillerElement[]): not objects. */
    private static final String FILLER = "jdk.internal.vm.Filler";
    private static final Pattern NMT_OTHER = Pattern.compile("-\\s+Other \\(reserved=(\\d+), committed=(\\d+)\\)");

    /** Live instances and bytes of one class. */
    record ClassUse(long instances, long bytes) {
    }

    /**
     * A class histogram in arrays sized before it is filled, keyed by a 64-bit hash of the class name. Filling it
     * allocates nothing that stays live except the name strings, which are made after the JVM counted the live
     * objects, and only when names are kept (not for a baseline, whose strings would count in the next snapshot).
     */
    static final class Histogram {
        private static final int CAPACITY = 1 << 15;
        private final long[] keys = new long[CAPACITY];
        private final long[] instances = new long[CAPACITY];
        private final long[] bytes = new long[CAPACITY];
        private final String[] names; // null: a baseline, whose name strings would outlive its own count
        private long total = -1;

        Histogram(boolean keepNames) {
            names = keepNames ? new String[CAPACITY] : null;
        }

        /** Bytes of all live objects, or -1 when the JVM has no class histogram. */
        long total() {
            return total;
        }

        /** Instances and bytes of {@code name} (zero when absent). */
        ClassUse get(String name) {
            int at = slot(hash(name));
            return keys[at] == 0 ? new ClassUse(0, 0) : new ClassUse(instances[at], bytes[at]);
        }

        /** The class names (none for a histogram that keeps no names). */
        List<String> names() {
            List<String> out = new ArrayList<>();
            for (int i = 0; names != null && i < CAPACITY; i++) {
                if (names[i] != null) {
                    out.add(names[i]);
                }
            }
            return out;
        }

        /** Fills this from the GC.class_histogram diagnostic command (a full collection first). */
        void fill() {
            String text = diagnosticCommand("gcClassHistogram");
            if (text == null) {
                return;
            }
            long sum = 0;
            for (String line : text.split("\n")) {
                Matcher m = HISTO_LINE.matcher(line);
                if (m.find() && !m.group(3).contains(FILLER)) {
                    long h = hash(m.group(3));
                    int at = slot(h);
                    if (keys[at] == 0) {
                        keys[at] = h;
                        if (names != null) {
                            names[at] = m.group(3);
                        }
                    }
                    instances[at] += Long.parseLong(m.group(1));
                    long b = Long.parseLong(m.group(2));
                    bytes[at] += b;
                    sum += b;
                }
            }
            total = sum;
        }

        private int slot(long h) {
            int at = (int) (h ^ (h >>> 32)) & (CAPACITY - 1);
            while (keys[at] != 0 && keys[at] != h) {
                at = (at + 1) & (CAPACITY - 1); // a JVM has far fewer classes than slots
            }
            return at;
        }

        /** FNV-1a of the name, never 0 (0 marks a free slot). */
        private static long hash(String name) {
            long h = 0xcbf29ce484222325L;
            for (int i = 0; i < name.length(); i++) {
                h = (h ^ name.charAt(i)) * 0x100000001b3L;
            }
            return h == 0 ? 1 : h;
        }
    }

    /**
     * One measurement.
     *
     * @param heap      heap used after the collections settled, bytes
     * @param gcs       collections it took
     * @param classes   the class histogram of live objects
     * @param direct    bytes of direct buffers
     * @param nmtOther  bytes of Native Memory Tracking's "Other" category, or -1 when tracking is off
     * @param fds       open file descriptors
     * @param reserved  a baseline's histogram for the next snapshot (null in others)
     */
    record Snapshot(long heap, int gcs, Histogram classes, long direct, long nmtOther, long fds,
            Histogram reserved) {

        /** Whether native memory tracking was on. */
        boolean nmt() {
            return nmtOther >= 0;
        }

        /** Bytes of live objects (class histogram), or -1 when there is no histogram. */
        long liveBytes() {
            return classes.total();
        }

        /** Bytes one instance of {@code className} takes (from the histogram), or -1 when none is live. */
        long instanceSize(String className) {
            ClassUse u = classes.get(className);
            return u.instances() == 0 ? -1 : u.bytes() / u.instances();
        }
    }

    private Memory() {
    }

    /**
     * The baseline. The arrays of its histogram and of the next snapshot's are allocated first, so both are live in
     * every figure of both snapshots and cancel out of the difference; its own histogram keeps no class names.
     */
    static Snapshot baseline() {
        Histogram mine = new Histogram(false);
        Histogram next = new Histogram(true);
        long[] settled = settledHeap();
        mine.fill();
        return new Snapshot(settled[0], (int) settled[1], mine, direct(), nmtOther(), openFds(), next);
    }

    /** The snapshot to compare with {@code baseline}: the heap figure, then the histogram the baseline reserved. */
    static Snapshot measure(Snapshot baseline) {
        long[] settled = settledHeap();
        Histogram h = baseline.reserved();
        h.fill();
        return new Snapshot(settled[0], (int) settled[1], h, direct(), nmtOther(), openFds(), null);
    }

    /** Collects until two readings of the used heap differ by less than 8 KiB (at most 12 collections). */
    private static long[] settledHeap() {
        long prev = -1;
        int gcs = 0;
        while (true) {
            System.gc();
            gcs++;
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if ((prev >= 0 && Math.abs(used - prev) < SETTLED_BYTES) || gcs >= MAX_GCS) {
                return new long[] {used, gcs};
            }
            prev = used;
        }
    }

    private static long direct() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }

    /** NMT's "Other" committed bytes, or -1 when the JVM was started without -XX:NativeMemoryTracking. */
    private static long nmtOther() {
        String text = diagnosticCommand("vmNativeMemory", "summary", "scale=B");
        if (text == null) {
            return -1;
        }
        Matcher m = NMT_OTHER.matcher(text);
        if (m.find()) {
            return Long.parseLong(m.group(2));
        }
        // tracking is on but "Other" is below the summary's 1 KB cut-off, or tracking is off
        return text.contains("Native Memory Tracking:") ? 0 : -1;
    }

    /** Open file descriptors of this process. */
    static long openFds() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            return unix.getOpenFileDescriptorCount();
        }
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The process's file descriptor limit, or -1 when unknown. */
    static long maxFds() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : -1;
    }

    /** A HotSpot flag's value, or {@code fallback} when this VM has no such flag. */
    static String vmOption(String name, String fallback) {
        try {
            return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(name).getValue();
        } catch (IllegalArgumentException | NullPointerException e) {
            return fallback;
        }
    }

    private static String diagnosticCommand(String operation, String... args) {
        try {
            Object r = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), operation, new Object[] {args},
                    new String[] {String[].class.getName()});
            return r instanceof String s ? s : null;
        } catch (JMException | RuntimeException e) {
            return null;
        }
    }
}
