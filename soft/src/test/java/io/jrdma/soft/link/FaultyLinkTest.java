package io.jrdma.soft.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fault injector on its own: a {@link FaultyLink} sends numbered fake packets to a plain UDP socket, and the
 * test looks at what arrives (which, how often, in what order, with which bytes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultyLinkTest {

    private static final String FROM = "127.0.40.1";
    private static final String TO = "127.0.40.2";
    private static final int PACKET = 24;

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private DatagramChannel sink;
    private InetSocketAddress to;
    private final ByteBuffer tx = ByteBuffer.allocateDirect(256);
    private final ByteBuffer rx = ByteBuffer.allocateDirect(256);
    private final ByteBuffer[] scratch = {ByteBuffer.allocateDirect(65536)};

    @BeforeEach
    void open() throws IOException {
        to = new InetSocketAddress(InetAddress.getByName(TO), Link.ROCE_PORT);
        sink = DatagramChannel.open(StandardProtocolFamily.INET);
        sink.bind(to);
        sink.configureBlocking(false);
    }

    @AfterEach
    void close() throws IOException {
        sink.close();
    }

    /** A fault injector over a native link ({@code nativeLink}, skipped where there is none) or an NIO one. */
    private FaultyLink link(boolean nativeLink, FaultConfig c) throws IOException {
        assumeTrue(!nativeLink || Link.nativeUnavailable() == null, Link.nativeUnavailable());
        Link inner = Link.open(InetAddress.getByName(FROM), Link.ROCE_PORT, nativeLink);
        assertEquals(nativeLink, inner.isNative());
        return new FaultyLink(inner, c, clock::get, 4096);
    }

    /** A fake IB packet: opcode, PSN = i, then i again as payload and a marker in the last bytes. */
    private ByteBuffer packet(int opcode, int i) {
        tx.clear();
        tx.put(0, (byte) opcode);
        tx.putInt(8, i & 0xFFFFFF);
        for (int k = 12; k < PACKET; k += 4) {
            tx.putInt(k, i * 31 + k);
        }
        tx.limit(PACKET);
        return tx;
    }

    private void send(FaultyLink l, int opcode, int i) {
        assertTrue(l.send(Link.ROCE_PORT, packet(opcode, i), to));
    }

    /** Moves the device clock on by {@code ns}, then lets the link look at it (a receive that finds nothing). */
    private void later(FaultyLink l, long ns) {
        clock.addAndGet(ns);
        l.receiveBatch(scratch, 1);
    }

    /** Everything that arrives within a short bounded wait, as the packet numbers. */
    private List<Integer> drain() throws IOException {
        List<Integer> got = new ArrayList<>();
        long quiet = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < quiet) {
            rx.clear();
            if (sink.receive(rx) != null) {
                got.add(rx.getInt(8) & 0xFFFFFF);
                quiet = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            } else {
                Thread.onSpinWait();
            }
        }
        return got;
    }

    @Test
    void shouldParseAndPrintTheTextForm() {
        FaultConfig c = FaultConfig.parse("seed=42, drop=0.01,dup=0.02,reorder=0.03:16,delay=0.04:2ms,corrupt=0.001,"
                + "drop_acks=0.05,drop_psn=100:0x1f,drop_opcode=RC_ACKNOWLEDGE:0x0a,times=all,rate=2M,"
                + "hold=64");
        assertEquals(42, c.seed());
        assertEquals(0.01, c.drop());
        assertEquals(0.02, c.duplicate());
        assertEquals(0.03, c.reorder());
        assertEquals(16, c.reorderWindow());
        assertEquals(0.04, c.delay());
        assertEquals(2_000_000, c.delayNs());
        assertEquals(0.001, c.corrupt());
        assertEquals(0.05, c.dropAcks());
        assertEquals(List.of(100, 31), java.util.Arrays.stream(c.dropPsns()).boxed().toList());
        assertEquals(List.of(0x11, 0x0a), java.util.Arrays.stream(c.dropOpcodes()).boxed().toList());
        assertEquals(FaultConfig.ALL, c.times());
        assertEquals(64, c.hold());
        assertEquals(2_000_000, c.rate());
        assertTrue(c.enabled());
        assertEquals(c, FaultConfig.parse(c.toString()), c.toString());
        assertEquals(100_000, FaultConfig.parse("delay=0.5").delayNs(), "default delay");
        assertEquals(250_000, FaultConfig.parse("delay=0.5:250").delayNs(), "a bare number is microseconds");
        assertEquals(1_500_000, FaultConfig.parse("rate=1.5MB/s").rate());
        assertEquals(800, FaultConfig.parse("rate=800").rate(), "a bare number is bytes a second");
        assertTrue(FaultConfig.parse("rate=1G").enabled(), "a bottleneck alone is a fault");
        assertFalse(FaultConfig.parse("none").enabled());
        assertFalse(FaultConfig.parse("").enabled());
        assertFalse(FaultConfig.parse("seed=5").enabled(), "a seed alone injects nothing");
        assertEquals("none", FaultConfig.NONE.toString());
    }

    @Test
    void shouldRejectBadSettingsBadFlow() {
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("drop=1.5"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("drop=-0.1"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("drop=NaN"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("loss=0.1"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("drop"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("reorder=0.1:0"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("drop_psn=0x1000000"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("drop_opcode=NO_SUCH_OPCODE"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("times=0"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("hold=0"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("rate=-1"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("rate=fast"));
        assertThrows(IllegalArgumentException.class, () -> FaultConfig.parse("rate=NaN"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FaultConfig.parse("seed=1,dup=x"));
        assertTrue(e.getMessage().contains("dup=x"), e.getMessage());
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldDropTheSamePacketsForTheSameSeed(boolean nativeLink) throws IOException {
        FaultConfig c = FaultConfig.builder().seed(7).drop(0.3).build();
        List<Integer> first;
        try (FaultyLink l = link(nativeLink, c)) {
            for (int i = 0; i < 200; i++) {
                send(l, 0x04, i);
            }
            first = drain();
            assertEquals(200 - first.size(), l.count(FaultyLink.Fault.DROPPED));
        }
        assertTrue(first.size() > 100 && first.size() < 180, "about 30% dropped: " + first.size());
        try (FaultyLink l = link(nativeLink, c)) {
            for (int i = 0; i < 200; i++) {
                send(l, 0x04, i);
            }
            assertEquals(first, drain(), "same seed, same faults");
        }
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().seed(8).drop(0.3).build())) {
            for (int i = 0; i < 200; i++) {
                send(l, 0x04, i);
            }
            assertNotEquals(first, drain(), "another seed, other faults");
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldDropByPsnOnlyTheFirstTimes(boolean nativeLink) throws IOException {
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().dropPsns(3, 5).times(2).build())) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 8; i++) {
                    send(l, 0x04, i);
                }
            }
            List<Integer> got = drain();
            assertEquals(List.of(0, 1, 2, 4, 6, 7, 0, 1, 2, 4, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7), got);
            assertEquals(4, l.count(FaultyLink.Fault.DROPPED));
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldDropByOpcodeAndAcksOnly(boolean nativeLink) throws IOException {
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().dropOpcodes(0x0A).times(FaultConfig.ALL).build())) {
            for (int i = 0; i < 10; i++) {
                send(l, i % 2 == 0 ? 0x0A : 0x04, i);
            }
            assertEquals(List.of(1, 3, 5, 7, 9), drain());
        }
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().dropAcks(1.0).build())) {
            int[] opcodes = {0x11, 0x12, 0x10, 0x04, 0x0D, 0x11};
            for (int i = 0; i < opcodes.length; i++) {
                send(l, opcodes[i], i);
            }
            assertEquals(List.of(2, 3, 4), drain(), "ACKNOWLEDGE and ATOMIC ACKNOWLEDGE only");
            assertEquals(3, l.count(FaultyLink.Fault.DROPPED));
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldDuplicate(boolean nativeLink) throws IOException {
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().seed(3).duplicate(0.5).build())) {
            for (int i = 0; i < 100; i++) {
                send(l, 0x04, i);
            }
            List<Integer> got = drain();
            long dups = l.count(FaultyLink.Fault.DUPLICATED);
            assertTrue(dups > 25 && dups < 75, "dups " + dups);
            assertEquals(100 + dups, got.size());
            for (int i = 0; i < 100; i++) {
                int n = i;
                long times = got.stream().filter(x -> x == n).count();
                assertTrue(times == 1 || times == 2, i + " arrived " + times + " times");
            }
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldReorderWithinTheWindowAndLoseNothing(boolean nativeLink) throws IOException {
        int window = 4;
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().seed(11).reorder(0.3, window).build())) {
            for (int i = 0; i < 200; i++) {
                send(l, 0x04, i);
            }
            assertTrue(l.held() > 0 || l.count(FaultyLink.Fault.REORDERED) > 0);
            l.await(0); // the engine going idle releases what is still held
            assertEquals(0, l.held());
            List<Integer> got = drain();
            assertEquals(200, got.size());
            assertEquals(200, got.stream().distinct().count(), "each exactly once");
            long late = 0;
            for (int pos = 0; pos < got.size(); pos++) {
                int displacement = pos - got.get(pos);
                assertTrue(displacement <= window, got.get(pos) + " arrived " + displacement + " places late");
                late += displacement > 0 ? 1 : 0;
            }
            assertTrue(late > 20, "packets arrived late: " + late);
            assertTrue(l.count(FaultyLink.Fault.REORDERED) > 30);
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldReleaseAReorderedPacketAfterEnginePassesWithoutLaterTraffic(boolean nativeLink) throws IOException {
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().reorder(1.0, 3).build())) {
            send(l, 0x04, 1);
            assertEquals(1, l.held());
            for (int pass = 0; pass < 3; pass++) {
                l.receiveBatch(scratch, 1); // an engine pass: the socket is empty
            }
            assertEquals(0, l.held());
            assertEquals(List.of(1), drain());
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldDelayByTheDeviceClock(boolean nativeLink) throws IOException {
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().delay(1.0, 50_000).build())) {
            send(l, 0x04, 1);
            send(l, 0x04, 2);
            l.receiveBatch(scratch, 1);
            assertEquals(2, l.held());
            assertEquals(List.of(), drain(), "nothing before the delay passed on the device clock");
            later(l, 49_999);
            assertEquals(2, l.held());
            later(l, 1);
            assertEquals(0, l.held());
            List<Integer> got = drain();
            got.sort(null);
            assertEquals(List.of(1, 2), got);
            assertEquals(2, l.count(FaultyLink.Fault.DELAYED));
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldLetPacketsOutInOrderAtTheRateAndDropWhatTheQueueCannotHold(boolean nativeLink) throws IOException {
        // 24 bytes a millisecond: one packet a millisecond; three hold buffers
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().rate(PACKET * 1000L).hold(3).build())) {
            for (int i = 0; i < 5; i++) {
                send(l, 0x04, i);
            }
            assertEquals(3, l.held(), "three queued");
            assertEquals(2, l.count(FaultyLink.Fault.DROPPED), "the queue was full for the last two");
            later(l, 999_999);
            assertEquals(List.of(), drain(), "nothing before its bytes' time at the rate");
            later(l, 1);
            assertEquals(List.of(0), drain());
            send(l, 0x04, 5); // leaves after the two still queued: at 4 ms
            later(l, 2_000_000);
            assertEquals(1, l.held());
            later(l, 1_000_000);
            assertEquals(0, l.held());
            assertEquals(List.of(1, 2, 5), drain(), "in the order sent");
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldSendAtOnceWhenEveryHoldBufferIsInUse(boolean nativeLink) throws IOException {
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().delay(1.0, 1_000_000_000L).hold(2).build())) {
            for (int i = 0; i < 5; i++) {
                send(l, 0x04, i);
            }
            assertEquals(2, l.held());
            assertEquals(List.of(2, 3, 4), drain());
            assertEquals(2, l.count(FaultyLink.Fault.DELAYED));
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldFlipExactlyOneBitOutsideTheMaskedByte(boolean nativeLink) throws IOException {
        try (FaultyLink l = link(nativeLink, FaultConfig.builder().seed(5).corrupt(1.0).build())) {
            for (int i = 0; i < 300; i++) {
                send(l, 0x04, i);
                // the engine's buffer is left as it was
                ByteBuffer expect = packet(0x04, i);
                rx.clear();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (sink.receive(rx) == null) {
                    assertTrue(System.nanoTime() < deadline, "packet " + i + " never arrived");
                }
                assertEquals(PACKET, rx.position());
                int bits = 0;
                for (int k = 0; k < PACKET; k++) {
                    int diff = (rx.get(k) ^ expect.get(k)) & 0xFF;
                    bits += Integer.bitCount(diff);
                    if (diff != 0) {
                        assertNotEquals(4, k, "BTH byte 4 is masked by the ICRC: flipping it is undetectable");
                    }
                }
                assertEquals(1, bits, "packet " + i);
            }
            assertEquals(300, l.count(FaultyLink.Fault.CORRUPTED));
        }
    }

    @ParameterizedTest(name = "native={0}")
    @ValueSource(booleans = {false, true})
    void shouldNotAllocatePerPacket(boolean nativeLink) throws IOException {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        FaultConfig c = FaultConfig.builder().seed(9).drop(0.1).duplicate(0.1).reorder(0.1, 8).delay(0.1, 1000)
                .corrupt(0.1).dropAcks(0.1).dropPsns(5).dropOpcodes(0x0A).build();
        try (FaultyLink l = link(nativeLink, c)) {
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 4; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 20_000; i++) {
                    l.send(Link.ROCE_PORT, packet(i % 3 == 0 ? 0x11 : 0x04, i), to);
                    if (i % 16 == 0) {
                        later(l, 700);
                    }
                    if (i % 64 == 0) {
                        drainQuietly();
                    }
                }
                long used = mx.getThreadAllocatedBytes(tid) - before;
                if (round > 0) {
                    best = Math.min(best, used);
                }
            }
            assertTrue(best < 256, "fault injection allocated " + best + " bytes for 20000 packets");
        }
    }

    private void drainQuietly() throws IOException {
        rx.clear();
        while (sink.receive(rx) != null) {
            rx.clear();
        }
    }
}
