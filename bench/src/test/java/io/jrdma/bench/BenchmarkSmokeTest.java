package io.jrdma.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.wire.Aeth;
import io.jrdma.wire.AethSyndrome;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Icrc;
import io.jrdma.wire.Opcode;
import io.jrdma.wire.Reth;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs every benchmark's setup and one invocation, and checks the result, so a benchmark cannot silently measure a
 * broken path: encoded packets verify and decode back to their fields, the WRITEs and SENDs land in the remote
 * buffer, registrations yield keys and their close releases them. Binds 127.0.51.1 to 127.0.51.6 only.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BenchmarkSmokeTest {

    @Test
    void headerEncodersWriteWhatTheDecoderReads() {
        WireHeaderBenchmark b = new WireHeaderBenchmark();
        b.setup();

        int psn = b.encodeWriteFirst();
        assertEquals(1, psn);
        assertEquals(Opcode.RC_RDMA_WRITE_FIRST, Opcode.of(Bth.opcode(b.packet, 0)));
        assertEquals(psn, Bth.psn(b.packet, 0));
        assertEquals(WireHeaderBenchmark.DEST_QP, Bth.destQp(b.packet, 0));
        assertEquals(0xFFFF, Bth.pkey(b.packet, 0));
        assertEquals(WireHeaderBenchmark.VA + psn, Reth.va(b.packet, Bth.LENGTH));
        assertEquals(WireHeaderBenchmark.RKEY, Reth.rkey(b.packet, Bth.LENGTH));
        assertEquals(WireHeaderBenchmark.DMA_LENGTH, Reth.dmaLength(b.packet, Bth.LENGTH));

        psn = b.encodeWriteMiddle();
        assertEquals(2, psn);
        assertEquals(Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.of(Bth.opcode(b.packet, 0)));
        assertEquals(psn, Bth.psn(b.packet, 0));

        psn = b.encodeAck();
        assertEquals(Opcode.RC_ACKNOWLEDGE, Opcode.of(Bth.opcode(b.packet, 0)));
        assertEquals(psn, Bth.psn(b.packet, 0));
        assertTrue(AethSyndrome.isAck(Aeth.syndrome(b.packet, Bth.LENGTH)));
        assertEquals(psn, Aeth.msn(b.packet, Bth.LENGTH));

        for (int i = 0; i < 2 * WireHeaderBenchmark.DECODE_PACKETS; i++) {
            WireHeaderBenchmark.Decoded d = b.decodeWriteFirst();
            int expectedPsn = i % WireHeaderBenchmark.DECODE_PACKETS;
            assertEquals(Opcode.RC_RDMA_WRITE_FIRST, d.opcode);
            assertEquals(expectedPsn, d.psn);
            assertEquals(WireHeaderBenchmark.DEST_QP, d.destQp);
            assertEquals(WireHeaderBenchmark.VA + expectedPsn, d.va);
            assertEquals(WireHeaderBenchmark.RKEY, d.rkey);
            assertEquals(WireHeaderBenchmark.DMA_LENGTH, d.dmaLength);
        }

        b.baselineCopyHeader();
        assertEquals(-1L, b.template.mismatch(b.packet.asSlice(0, WireHeaderBenchmark.WRITE_FIRST_HEADERS)));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 64, 1024, 4096})
    void packetsVerifyAndDecodeBack(int payload) {
        IcrcBenchmark b = new IcrcBenchmark();
        b.payload = payload;
        b.setup();
        assertEquals(IcrcBenchmark.HEADERS + payload + Icrc.LENGTH, b.ibLength);

        assertTrue(b.icrcVerify(), "the setup's packet verifies");
        b.icrcWrite();
        assertTrue(b.icrcVerify(), "the ICRC written again still verifies");

        int psn = b.txPacket();
        assertEquals(1, psn);
        assertTrue(new Icrc().verifyIpv4(IcrcBenchmark.SRC_IP, IcrcBenchmark.DST_IP, IcrcBenchmark.SRC_PORT,
                IcrcBenchmark.DST_PORT, 0, b.txBuffer, 0, b.ibLength), "the built packet verifies");
        MemorySegment tx = MemorySegment.ofBuffer(b.txBuffer);
        assertEquals(Opcode.RC_RDMA_WRITE_ONLY, Opcode.of(Bth.opcode(tx, 0)));
        assertEquals(psn, Bth.psn(tx, 0));
        assertTrue(Bth.ackReq(tx, 0));
        assertEquals(payload, Reth.dmaLength(tx, Bth.LENGTH));
        assertEquals(-1L, tx.asSlice(IcrcBenchmark.HEADERS, payload).mismatch(b.source.asSlice(0, payload)));

        assertEquals(IcrcBenchmark.RX_PSN, b.rxPacket());
        assertEquals(-1L, b.received.asSlice(0, payload).mismatch(b.source.asSlice(0, payload)));

        byte[] bytes = new byte[b.ibLength - Icrc.LENGTH];
        b.packet.get(0, bytes);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        assertEquals(crc.getValue(), b.baselineCrc32());
        assertEquals(crc.getValue(), b.baselineCrc32(), "the baseline starts over on every call");

        // a flipped bit must be caught, or the verify benchmarks would measure nothing
        int at = IcrcBenchmark.HEADERS + payload - 1;
        b.packet.put(at, (byte) (b.packet.get(at) ^ 0x10));
        assertFalse(b.icrcVerify());
        assertEquals(-1, b.rxPacket());
    }

    @Test
    void writesAndSendsLandInTheRemoteBuffer() {
        PostPollBenchmark bench = new PostPollBenchmark();
        PostPollBenchmark.Pair p = new PostPollBenchmark.Pair();
        p.setup();
        try {
            int bytes = PostPollBenchmark.BATCH * PostPollBenchmark.MESSAGE;
            MemorySegment src = p.pair.a.buffer.asSlice(0, bytes);
            MemorySegment dst = p.pair.b.buffer;
            assertFalse(allZero(src), "the source has a pattern");

            assertEquals(PostPollBenchmark.BATCH - 1, bench.writeInline(p));
            assertEquals(-1L, dst.asSlice(0, bytes).mismatch(src));

            dst.fill((byte) 0);
            assertEquals(PostPollBenchmark.BATCH - 1, bench.write(p));
            assertEquals(-1L, dst.asSlice(0, bytes).mismatch(src));

            dst.fill((byte) 0);
            assertEquals(bytes, bench.sendRecv(p));
            assertEquals(-1L, dst.asSlice(PostPollBenchmark.RECV_OFFSET, bytes).mismatch(src));
            assertTrue(allZero(dst.asSlice(0, bytes)), "SENDs land only where the receives point");

            // the chains are reusable: a second round works as the first (JMH calls each many times)
            assertEquals(bytes, bench.sendRecv(p));
            assertEquals(PostPollBenchmark.BATCH - 1, bench.write(p));
        } finally {
            p.tearDown();
        }
    }

    @Test
    void theUdpBaselineMovesEveryDatagram() throws IOException {
        PostPollBenchmark.Udp u = new PostPollBenchmark.Udp();
        u.setup();
        try {
            int expected = PostPollBenchmark.BATCH * PostPollBenchmark.MESSAGE;
            assertEquals(expected, new PostPollBenchmark().baselineUdp(u));
            assertEquals(expected, new PostPollBenchmark().baselineUdp(u));
            byte[] got = new byte[PostPollBenchmark.MESSAGE];
            u.in.flip().get(got);
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, got);
        } finally {
            u.tearDown();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {4096, 1 << 20})
    void registrationsGetKeysAndCloseReleasesThem(int size) {
        RegistrationBenchmark bench = new RegistrationBenchmark();
        RegistrationBenchmark.Memory m = new RegistrationBenchmark.Memory();
        m.bytes = size;
        m.setup();
        try {
            int lkey = bench.registerDeregister(m);
            assertTrue(lkey >= 0, "lkey " + lkey);
            // one more than the device holds: each close must have released its region
            int maxMr = m.context.queryDevice().maxMr();
            assertTrue(maxMr <= 1 << 20, "max_mr " + maxMr + " too large to prove release in a test");
            for (int i = 0; i <= maxMr; i++) {
                bench.registerDeregister(m);
            }

            MemorySegment filled = bench.baselineFill(m);
            assertEquals(size, filled.byteSize());
            assertEquals(1, filled.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(1, filled.get(ValueLayout.JAVA_BYTE, size - 1));
            assertEquals(0, bench.baselineAllocateZeroed(m));
        } finally {
            m.tearDown();
        }
    }

    @Test
    void pdsAndQpsAreCreatedAndReleased() {
        RegistrationBenchmark bench = new RegistrationBenchmark();
        RegistrationBenchmark.Device d = new RegistrationBenchmark.Device();
        d.setup();
        try {
            assertTrue(bench.allocPdClose(d));
            assertTrue(bench.createQpDestroy(d) > 1, "an RC QP number (0 and 1 are special)");
            int maxPd = d.context.queryDevice().maxPd();
            int maxQp = d.context.queryDevice().maxQp();
            assertTrue(maxPd <= 1 << 16 && maxQp <= 1 << 16, "limits too large to prove release in a test");
            for (int i = 0; i <= maxPd; i++) {
                assertTrue(bench.allocPdClose(d));
            }
            for (int i = 0; i <= maxQp; i++) {
                bench.createQpDestroy(d);
            }
        } finally {
            d.tearDown();
        }
    }

    private static boolean allZero(MemorySegment s) {
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != 0) {
                return false;
            }
        }
        return true;
    }
}
