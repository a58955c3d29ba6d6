package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class FlyweightTest {
    private static final int OFF = 3;

    private static MemorySegment seg(int size) {
        return MemorySegment.ofArray(new byte[size + OFF + 5]);
    }

    private static String hex(MemorySegment s, int len) {
        return HexFormat.of().formatHex(s.asSlice(OFF, len).toArray(Layouts.BYTE));
    }

    @Test
    void shouldWriteWholeBthBigEndian() {
        MemorySegment s = seg(Bth.LENGTH);
        Bth.write(s, OFF, 0x0B, true, true, 3, 0xFFFF, 0x123456, true, 0xABCDEF);
        assertEquals("0bf0ffff00123456" + "80abcdef", hex(s, 12));
        assertEquals(0x0B, Bth.opcode(s, OFF));
        assertTrue(Bth.solicited(s, OFF));
        assertTrue(Bth.migReq(s, OFF));
        assertEquals(3, Bth.padCount(s, OFF));
        assertEquals(0, Bth.tver(s, OFF));
        assertEquals(0xFFFF, Bth.pkey(s, OFF));
        assertEquals(0, Bth.resv8a(s, OFF));
        assertEquals(0x123456, Bth.destQp(s, OFF));
        assertTrue(Bth.ackReq(s, OFF));
        assertEquals(0xABCDEF, Bth.psn(s, OFF));
        assertEquals(0, s.get(Layouts.BYTE, 0), "nothing before the header touched");
        assertEquals(0, s.get(Layouts.BYTE, OFF + 12), "nothing after the header touched");
        Bth.write(s, OFF, 0x11, false, false, 0, 0x8001, 0xFF_FFFFFF, false, -1);
        assertEquals("1100800100ffffff00ffffff", hex(s, 12), "24-bit fields masked");
    }

    @Test
    void shouldSetBthFieldsWithoutTouchingNeighbours() {
        MemorySegment s = seg(Bth.LENGTH);
        s.asSlice(OFF, 12).fill((byte) 0xFF);
        Bth.setPadCount(s, OFF, 1);
        assertEquals(0xDF, s.get(Layouts.BYTE, OFF + 1) & 0xFF);
        Bth.setSolicited(s, OFF, false);
        Bth.setTver(s, OFF, 2);
        assertEquals(0x52, s.get(Layouts.BYTE, OFF + 1) & 0xFF);
        Bth.setDestQp(s, OFF, 0x000102);
        assertEquals(0xFF, Bth.resv8a(s, OFF), "byte 4 kept");
        assertEquals(0x000102, Bth.destQp(s, OFF));
        Bth.setPsn(s, OFF, 5);
        assertTrue(Bth.ackReq(s, OFF), "AckReq kept");
        assertEquals(5, Bth.psn(s, OFF));
        Bth.setAckReq(s, OFF, false);
        assertEquals(0x7F, s.get(Layouts.BYTE, OFF + 8) & 0xFF, "Resv7 kept");
        assertEquals(5, Bth.psn(s, OFF));
        Bth.setOpcode(s, OFF, 0x64);
        Bth.setPkey(s, OFF, 0x1234);
        Bth.setResv8a(s, OFF, 0x80);
        Bth.setMigReq(s, OFF, false);
        assertEquals("6412123480000102" + "7f000005", hex(s, 12));
    }

    @Test
    void shouldRoundTripExtensionHeaders() {
        MemorySegment s = seg(64);
        Reth.write(s, OFF, 0x0102030405060708L, 0xA1B2C3D4, 0x80000000);
        assertEquals("0102030405060708a1b2c3d480000000", hex(s, 16));
        assertEquals(0x0102030405060708L, Reth.va(s, OFF));
        assertEquals(0xA1B2C3D4, Reth.rkey(s, OFF));
        assertEquals(0x80000000L, Integer.toUnsignedLong(Reth.dmaLength(s, OFF)));

        s.fill((byte) 0);
        AtomicEth.write(s, OFF, -2L, 7, 0x1111111122222222L, 0x3333333344444444L);
        assertEquals("fffffffffffffffe00000007" + "1111111122222222" + "3333333344444444", hex(s, 28));
        assertEquals(-2L, AtomicEth.va(s, OFF));
        assertEquals(7, AtomicEth.rkey(s, OFF));
        assertEquals(0x1111111122222222L, AtomicEth.swapAdd(s, OFF));
        assertEquals(0x3333333344444444L, AtomicEth.compare(s, OFF));

        s.fill((byte) 0);
        Aeth.write(s, OFF, AethSyndrome.nak(NakCode.REMOTE_ACCESS_ERROR), 0x1234567);
        assertEquals("62234567", hex(s, 4));
        Aeth.setMsn(s, OFF, 9);
        assertEquals(0x62, Aeth.syndrome(s, OFF), "syndrome kept");
        Aeth.setSyndrome(s, OFF, AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        assertEquals("1f000009", hex(s, 4));
        assertEquals(9, Aeth.msn(s, OFF));

        s.fill((byte) 0);
        AtomicAckEth.setOrigData(s, OFF, 0x8877665544332211L);
        assertEquals("8877665544332211", hex(s, 8));
        assertEquals(0x8877665544332211L, AtomicAckEth.origData(s, OFF));

        ImmDt.setImm(s, OFF, 0x5E000001);
        assertEquals("5e000001", hex(s, 4));
        assertEquals(0x5E000001, ImmDt.imm(s, OFF));
        Ieth.setRkey(s, OFF, 0x0000ABCD);
        assertEquals(0xABCD, Ieth.rkey(s, OFF));

        s.fill((byte) 0xEE);
        Deth.write(s, OFF, 0x80010000, 0xFF000001);
        assertEquals("8001000000000001", hex(s, 8), "reserved byte zeroed, QPN masked");
        assertEquals(0x80010000, Deth.qkey(s, OFF));
        assertEquals(1, Deth.srcQp(s, OFF));
    }

    @Test
    void shouldEncodeAethSyndromes() {
        assertEquals(0x1F, AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED));
        assertEquals(0x2E, AethSyndrome.rnrNak(14));
        assertEquals(0x60, AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR));
        assertEquals(0x64, AethSyndrome.nak(NakCode.INVALID_RD_REQUEST));
        assertTrue(AethSyndrome.isAck(0x1F));
        assertTrue(AethSyndrome.isRnrNak(0x2E));
        assertTrue(AethSyndrome.isNak(0x63));
        assertFalse(AethSyndrome.isAck(0x40));
        assertFalse(AethSyndrome.isNak(0x40));
        assertFalse(AethSyndrome.isRnrNak(0x40));
        assertEquals(14, AethSyndrome.value(0x2E));
        assertSame(NakCode.REMOTE_OPERATIONAL_ERROR, AethSyndrome.nakCode(0x63));
        assertNull(AethSyndrome.nakCode(0x23));
        assertNull(AethSyndrome.nakCode(0x65));
        for (NakCode c : NakCode.values()) {
            assertSame(c, NakCode.of(c.code()));
            assertEquals(c.ordinal(), c.code());
        }
        assertNull(NakCode.of(5));
        assertNull(NakCode.of(-1));
    }

    @Test
    void shouldMapRnrTimerCodesToIbtaDelays() {
        long[] micros10 = {65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024,
            1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};
        long[] ns = new long[32];
        for (int c = 0; c < 32; c++) {
            ns[c] = RnrTimer.delayNs(c);
        }
        long[] expected = new long[32];
        for (int c = 0; c < 32; c++) {
            expected[c] = micros10[c] * 10_000L;   // table unit: 0.01 ms
        }
        assertArrayEquals(expected, ns);
        assertEquals(655_360_000L, RnrTimer.delayNs(0));
        assertEquals(491_520_000L, RnrTimer.delayNs(31));
        assertEquals(1_280_000L, RnrTimer.delayNs(14));
        assertThrows(IllegalArgumentException.class, () -> RnrTimer.delayNs(32));
        assertThrows(IllegalArgumentException.class, () -> RnrTimer.delayNs(-1));
    }
}
