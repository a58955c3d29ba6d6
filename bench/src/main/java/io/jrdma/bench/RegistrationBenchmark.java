package io.jrdma.bench;

import io.jrdma.soft.SoftDevice;
import io.jrdma.soft.Threading;
import io.jrdma.verbs.Access;
import io.jrdma.verbs.CompletionQueue;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.ProtectionDomain;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpInitAttr;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What creating verbs resources costs on a soft device, in ns per operation: {@code registerMemory} + close of a
 * segment of {@code bytes} (allocated once in setup), and, independent of any size, allocPd + close and an RC
 * createQp + destroy. The baselines touch the same memory: {@link MemorySegment#fill} of the segment, and an
 * {@link Arena} allocation of the same size (which zeroes it) and its release, so {@code register / baseline} says
 * what registration costs relative to touching the memory once.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RegistrationBenchmark {

    /** The access rights every benchmarked region gets. */
    static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    /** A device with a PD and a segment of {@link #bytes} to register. */
    @State(Scope.Thread)
    public static class Memory {
        /** Segment size: 4 KiB, 64 KiB, 1 MiB, 16 MiB. */
        @Param({"4096", "65536", "1048576", "16777216"})
        public int bytes;
        /** Address of the device. */
        static final String ADDRESS = "127.0.51.5";

        Context context;
        ProtectionDomain pd;
        Arena arena;
        MemorySegment segment;
        private byte fill;

        /** Opens the device, allocates the PD and the segment. */
        @Setup
        public void setup() {
            arena = Arena.ofShared(); // the soft device refuses memory of confined arenas
            try {
                segment = arena.allocate(bytes, 4096);
                context = SoftDevice.builder().name("jmh-mr").address(ADDRESS).threading(Threading.INVOKER).build()
                        .open();
                pd = context.allocPd();
            } catch (RuntimeException e) {
                tearDown();
                throw e;
            }
        }

        /** Releases the PD, the device and the memory. */
        @TearDown
        public void tearDown() {
            RcPair.closeAll(pd, context, arena);
        }
    }

    /** A device with a PD and a CQ, for the size-independent resources. */
    @State(Scope.Thread)
    public static class Device {
        /** Address of the device. */
        static final String ADDRESS = "127.0.51.6";

        Context context;
        ProtectionDomain pd;
        CompletionQueue cq;
        QpInitAttr qpAttr;

        /** Opens the device, allocates a PD and a CQ, and builds the QP attributes. */
        @Setup
        public void setup() {
            context = SoftDevice.builder().name("jmh-res").address(ADDRESS).threading(Threading.INVOKER).build()
                    .open();
            try {
                pd = context.allocPd();
                cq = context.createCq(RcPair.QUEUE_DEPTH);
            } catch (RuntimeException e) {
                tearDown();
                throw e;
            }
            qpAttr = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq)
                    .cap(new QpCap(RcPair.QUEUE_DEPTH, RcPair.QUEUE_DEPTH, 1, 1, RcPair.MAX_INLINE));
        }

        /** Releases the CQ, the PD and the device. */
        @TearDown
        public void tearDown() {
            RcPair.closeAll(cq, pd, context);
        }
    }

    /** registerMemory of the whole segment, then close (deregister). Returns the region's lkey. */
    @Benchmark
    public int registerDeregister(Memory m) {
        MemoryRegion mr = m.pd.registerMemory(m.segment, ACCESS);
        int lkey = mr.lkey();
        mr.close();
        return lkey;
    }

    /** Baseline: writes every byte of the segment once. */
    @Benchmark
    public MemorySegment baselineFill(Memory m) {
        return m.segment.fill(++m.fill);
    }

    /** Baseline: allocates a zeroed segment of the same size from a fresh arena, and frees it. */
    @Benchmark
    public byte baselineAllocateZeroed(Memory m) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(m.bytes, 4096);
            return s.get(ValueLayout.JAVA_BYTE, m.bytes - 1);
        }
    }

    /** allocPd, then close. Returns whether the PD belonged to the device. */
    @Benchmark
    public boolean allocPdClose(Device d) {
        ProtectionDomain pd = d.context.allocPd();
        boolean ok = pd.context() == d.context;
        pd.close();
        return ok;
    }

    /** An RC createQp (64 send and receive WRs), then destroy. Returns the QP number. */
    @Benchmark
    public int createQpDestroy(Device d) {
        QueuePair qp = d.pd.createQp(d.qpAttr);
        int qpn = qp.qpNum();
        qp.close();
        return qpn;
    }
}
