package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jrdma.wire.Icrc;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link FaultyLink} over a {@link NativeLink} with GSO batches, as the engine sends them: a batch no fault hits
 * goes out as one GSO send (the receiver gets a GRO run), one that a fault hits goes out packet by packet, each
 * ICRC checked under its index in the batch and written again for IPv4 ID 0. A native receiver checks every
 * packet as the engine does: under the ID of its place in the run it arrived in.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultyGsoLinkTest {

    private static final String FROM = "127.0.40.5";
    private static final String TO = "127.0.40.6";
    private static final int PACKETS = 8;
    private static final int SIZE = 1000;

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final Icrc icrc = new Icrc();
    private final ByteBuffer batch = ByteBuffer.allocateDirect(PACKETS * SIZE);
    private final long base = MemorySegment.ofBuffer(batch).address();
    private final long[] addresses = new long[2 * PACKETS];
    private final int[] lengths = new int[2 * PACKETS];
    private final ByteBuffer[] bufs = new ByteBuffer[Link.RX_BATCH];
    private Link sink;
    private int fromIp;
    private int toIp;

    /** One packet as the receiver saw it. */
    private record Got(int psn, int runIndex, boolean runOfMany, boolean icrcOk) { }

    @BeforeEach
    void open() throws IOException {
        assumeTrue(Link.nativeUnavailable() == null, Link.nativeUnavailable());
        sink = Link.open(InetAddress.getByName(TO), Link.ROCE_PORT, true);
        assertTrue(sink.isNative());
        fromIp = Link.ipv4(InetAddress.getByName(FROM));
        toIp = Link.ipv4(InetAddress.getByName(TO));
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = ByteBuffer.allocateDirect(65536);
        }
    }

    @AfterEach
    void close() {
        if (sink != null) {
            sink.close();
        }
    }

    private FaultyLink link(FaultConfig c) throws IOException {
        Link inner = Link.open(InetAddress.getByName(FROM), Link.ROCE_PORT, true);
        assertTrue(inner.isNative() && inner.maxSegments() >= PACKETS);
        return new FaultyLink(inner, c, clock::get, 4096);
    }

    /**
     * Builds a batch of {@link #PACKETS} packets with PSNs {@code psn0 + k}, each with its ICRC for IPv4 ID k (the
     * engine's GSO staging), in two I/O-vector pieces each (header, rest); packet {@code wrongAt} gets its ICRC for
     * another ID (none: -1).
     */
    private int build(int psn0, int wrongAt) {
        for (int k = 0; k < PACKETS; k++) {
            int off = k * SIZE;
            batch.put(off, (byte) 0x0A); // RC RDMA WRITE MIDDLE
            batch.put(off + 1, (byte) 0);
            batch.putShort(off + 2, (short) 0xFFFF);
            batch.putInt(off + 4, 0x11);
            batch.putInt(off + 8, (psn0 + k) & 0xFFFFFF);
            for (int i = 12; i < SIZE - Icrc.LENGTH; i++) {
                batch.put(off + i, (byte) (k * 7 + i));
            }
            icrc.writeIpv4(fromIp, toIp, Link.ROCE_PORT, Link.ROCE_PORT, k == wrongAt ? 0x777 : k, batch, off, SIZE);
            addresses[2 * k] = base + off;
            lengths[2 * k] = 12;
            addresses[2 * k + 1] = base + off + 12;
            lengths[2 * k + 1] = SIZE - 12;
        }
        return 2 * PACKETS;
    }

    private boolean send(FaultyLink l, int count) {
        return l.sendSegments(Link.ROCE_PORT, toIp, Link.ROCE_PORT, addresses, lengths, count, SIZE);
    }

    /** Every packet that arrives within a short bounded wait, in order, checked as the engine checks. */
    private List<Got> drain() {
        List<Got> got = new ArrayList<>();
        long quiet = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < quiet) {
            int n = sink.receiveBatch(bufs, bufs.length);
            for (int i = 0; i < n; i++) {
                int total = sink.batchLength(i);
                int segment = sink.batchSegmentSize(i);
                int size = segment > 0 && segment < total ? segment : total;
                for (int off = 0, k = 0; off < total; off += size, k++) {
                    int len = Math.min(size, total - off);
                    boolean ok = icrc.verifyIpv4(sink.batchSenderIp(i), sink.localIp(), sink.batchSenderPort(i),
                            sink.port(), k, bufs[i], off, len);
                    got.add(new Got(bufs[i].getInt(off + 8) & 0xFFFFFF, k, size < total, ok));
                }
            }
            if (n > 0) {
                quiet = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            } else {
                sink.await(10);
            }
        }
        return got;
    }

    private static List<Integer> psns(List<Got> got) {
        return got.stream().map(Got::psn).toList();
    }

    @Test
    void shouldPassABatchThatNoFaultHitsAsOneGsoSend() throws IOException {
        try (FaultyLink l = link(FaultConfig.builder().dropPsns(1000).build())) {
            assertTrue(send(l, build(0, -1)));
            List<Got> got = drain();
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), psns(got));
            for (Got g : got) {
                assertTrue(g.runOfMany() && g.icrcOk(), g.toString()); // one GRO run, each ICRC for its index
            }
            assertEquals(1, l.wholeBatches());
            assertEquals(0, l.splitBatches());
        }
    }

    @Test
    void shouldSendTheRestOfAHitBatchOneByOneResealedForIdZero() throws IOException {
        try (FaultyLink l = link(FaultConfig.builder().dropPsns(3).build())) {
            assertTrue(send(l, build(0, -1)));
            List<Got> got = drain();
            assertEquals(List.of(0, 1, 2, 4, 5, 6, 7), psns(got));
            for (Got g : got) {
                assertTrue(!g.runOfMany() && g.runIndex() == 0 && g.icrcOk(), g.toString());
            }
            assertEquals(0, l.wholeBatches());
            assertEquals(1, l.splitBatches());
            assertEquals(1, l.count(FaultyLink.Fault.DROPPED));
            assertEquals(0, l.icrcMismatches());
        }
    }

    @Test
    void shouldCountAPacketWhoseIcrcWasNotWrittenForItsPlaceInTheBatchBadFlow() throws IOException {
        try (FaultyLink l = link(FaultConfig.builder().dropPsns(3).build())) {
            send(l, build(0, 5));
            List<Got> got = drain();
            assertEquals(List.of(0, 1, 2, 4, 5, 6, 7), psns(got));
            assertEquals(1, l.icrcMismatches());
            for (Got g : got) {
                assertEquals(g.psn() != 5, g.icrcOk(), "sent as it came, not resealed: " + g);
            }
        }
    }

    @Test
    void shouldReleaseHeldPacketsOfABatchSealedForASingleSend() throws IOException {
        try (FaultyLink l = link(FaultConfig.builder().seed(4).reorder(0.5, 3).delay(0.3, 10_000).build())) {
            assertTrue(send(l, build(100, -1)));
            clock.addAndGet(10_000);
            l.await(0); // idle: the reordered ones go; the delayed ones are due on the device clock
            assertEquals(0, l.held());
            List<Got> got = drain();
            assertEquals(PACKETS, got.size(), got.toString());
            assertEquals(PACKETS, got.stream().map(Got::psn).distinct().count());
            assertTrue(l.count(FaultyLink.Fault.REORDERED) + l.count(FaultyLink.Fault.DELAYED) > 0);
            assertFalse(psns(got).equals(List.of(100, 101, 102, 103, 104, 105, 106, 107)), "reordered: " + got);
            for (Got g : got) {
                assertTrue(!g.runOfMany() && g.icrcOk(), g.toString());
            }
        }
    }

    @Test
    void shouldCorruptOnlyAfterResealingSoTheReceiverRejectsIt() throws IOException {
        try (FaultyLink l = link(FaultConfig.builder().seed(6).corrupt(1.0).build())) {
            send(l, build(0, -1));
            List<Got> got = drain();
            assertEquals(PACKETS, l.count(FaultyLink.Fault.CORRUPTED));
            assertEquals(0, l.icrcMismatches());
            for (Got g : got) { // a flipped PSN bit may rename the packet; none verifies
                assertFalse(g.icrcOk(), g.toString());
            }
        }
    }

    @Test
    void shouldNotAllocatePerBatch() throws IOException {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        FaultConfig c = FaultConfig.builder().seed(9).drop(0.02).duplicate(0.02).reorder(0.02, 8).delay(0.02, 1000)
                .corrupt(0.02).dropPsns(5).build();
        int count = build(0, -1);
        try (FaultyLink l = link(c)) {
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 4; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 2_000; i++) {
                    send(l, count);
                    if (i % 4 == 0) {
                        clock.addAndGet(700);
                        l.receiveBatch(bufs, bufs.length);
                        while (sink.receiveBatch(bufs, bufs.length) > 0) {
                            Thread.onSpinWait(); // keeps the receive buffer from filling
                        }
                    }
                }
                long used = mx.getThreadAllocatedBytes(tid) - before;
                if (round > 0) {
                    best = Math.min(best, used);
                }
            }
            assertTrue(l.wholeBatches() > 0 && l.splitBatches() > 0, "both paths taken");
            assertEquals(0, l.icrcMismatches());
            assertTrue(best < 256, "fault injection allocated " + best + " bytes for 2000 batches");
        }
    }
}
