package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PacketFormatterTest {
    private static MemorySegment packet(Opcode op, int payload) {
        int pad = -payload & 3;
        MemorySegment s = MemorySegment.ofArray(new byte[op.headerLength() + payload + pad + Icrc.LENGTH]);
        Bth.write(s, 0, op.code(), false, false, pad, 0xFFFF, 0x11, true, 1234);
        return s;
    }

    @Test
    void shouldDescribeTheBthAndPayloadLength() {
        MemorySegment s = packet(Opcode.RC_SEND_FIRST, 1024);
        s.set(Layouts.INT_LE, s.byteSize() - 4, 0x1A2B3C4D);
        assertEquals("RC_SEND_FIRST qp=0x000011 psn=1234 ack=1 se=0 pad=0 len=1024 icrc=0x1a2b3c4d",
                PacketFormatter.describe(s, 0, (int) s.byteSize()));
        MemorySegment last = packet(Opcode.RC_SEND_LAST, 453);
        assertTrue(PacketFormatter.describe(last, 0, (int) last.byteSize()).contains(" pad=3 len=453 "));
    }

    @Test
    void shouldDescribeExtensionHeaders() {
        MemorySegment w = packet(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 8);
        Reth.write(w, 12, 0x7F00_1234_5000L, 0x731, 4096);
        ImmDt.setImm(w, 28, 0x5E000001);
        assertTrue(PacketFormatter.describe(w, 0, (int) w.byteSize())
                .contains(" len=8 reth[va=0x00007f0012345000 rkey=0x00000731 len=4096] imm=0x5e000001 icrc="));

        MemorySegment ack = packet(Opcode.RC_ACKNOWLEDGE, 0);
        Aeth.write(ack, 12, AethSyndrome.ack(AethSyndrome.ACK_UNLIMITED), 5);
        String text = PacketFormatter.describe(ack, 0, (int) ack.byteSize());
        assertTrue(text.contains(" aeth[ACK credit=31 msn=5]"), text);
        assertFalse(text.contains(" len="), text);
        Aeth.write(ack, 12, AethSyndrome.nak(NakCode.PSN_SEQUENCE_ERROR), 6);
        assertTrue(PacketFormatter.describe(ack, 0, 20).contains(" aeth[NAK PSN_SEQUENCE_ERROR msn=6]"));
        Aeth.write(ack, 12, AethSyndrome.rnrNak(14), 7);
        assertTrue(PacketFormatter.describe(ack, 0, 20).contains(" aeth[RNR timer=14 msn=7]"));
        Aeth.write(ack, 12, 0x7F, 8);
        assertTrue(PacketFormatter.describe(ack, 0, 20).contains(" aeth[NAK code=31 msn=8]"));

        MemorySegment ud = packet(Opcode.UD_SEND_ONLY, 4);
        Deth.write(ud, 12, 0x11111111, 0x1A);
        assertTrue(PacketFormatter.describe(ud, 0, (int) ud.byteSize())
                .contains(" deth[qkey=0x11111111 src_qp=0x00001a]"));

        MemorySegment cas = packet(Opcode.RC_COMPARE_SWAP, 0);
        AtomicEth.write(cas, 12, 0x1000, 9, 2, 1);
        assertTrue(PacketFormatter.describe(cas, 0, (int) cas.byteSize()).contains(
                " atomic[va=0x0000000000001000 rkey=0x00000009 swap=0x0000000000000002 compare=0x0000000000000001]"));

        MemorySegment aa = packet(Opcode.RC_ATOMIC_ACKNOWLEDGE, 0);
        AtomicAckEth.setOrigData(aa, 16, 0xABL);
        assertTrue(PacketFormatter.describe(aa, 0, (int) aa.byteSize())
                .contains(" atomic_ack[orig=0x00000000000000ab]"));

        MemorySegment inv = packet(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, 0);
        Ieth.setRkey(inv, 12, 0x1234);
        assertTrue(PacketFormatter.describe(inv, 0, (int) inv.byteSize()).contains(" ieth[rkey=0x00001234]"));
    }

    @Test
    void shouldReportMalformedPacketsBadFlow() {
        MemorySegment s = packet(Opcode.RC_RDMA_READ_REQUEST, 0);
        assertTrue(PacketFormatter.describe(s, 0, 20).contains("malformed"), "RETH cut short");
        assertTrue(PacketFormatter.describe(s, 0, 5).startsWith("malformed"), "BTH cut short");
        assertTrue(PacketFormatter.describe(s, 30, 20).startsWith("malformed"), "beyond the segment");
        assertTrue(PacketFormatter.describe(s, -1, 20).startsWith("malformed"));
        assertTrue(PacketFormatter.describe(s, 0, -1).startsWith("malformed"));
        assertTrue(PacketFormatter.describe(null, 0, 20).startsWith("malformed"));
        Bth.setPadCount(s, 0, 3);
        assertTrue(PacketFormatter.describe(s, 0, 32).contains("malformed"), "pad in a packet without payload");
        MemorySegment send = packet(Opcode.RC_SEND_ONLY, 0);
        Bth.setPadCount(send, 0, 2);
        assertTrue(PacketFormatter.describe(send, 0, 16).contains("malformed: pad 2 exceeds the payload"));
        Bth.setOpcode(send, 0, 0x15);
        assertTrue(PacketFormatter.describe(send, 0, 16).startsWith("unknown opcode 0x15 qp=0x000011"));
        MemorySegment closed;
        try (Arena arena = Arena.ofConfined()) {
            closed = arena.allocate(32);
        }
        assertTrue(PacketFormatter.describe(closed, 0, 32).startsWith("malformed"), "closed arena");
    }

    @Test
    void shouldNeverThrowOnGarbageBadFlow() {
        Random rnd = new Random(42);
        byte[] buf = new byte[256];
        StringBuilder sb = new StringBuilder();
        MemorySegment seg = MemorySegment.ofArray(buf);
        int described = 0;
        for (int i = 0; i < 100_000; i++) {
            rnd.nextBytes(buf);
            if (i % 3 == 0) {
                buf[0] = (byte) Opcode.values()[rnd.nextInt(Opcode.values().length)].code();
            }
            int off = rnd.nextInt(300) - 20;
            int len = rnd.nextInt(300) - 20;
            sb.setLength(0);
            PacketFormatter.describe(seg, off, len, sb);
            assertFalse(sb.isEmpty());
            if (!sb.toString().startsWith("malformed")) {
                described++;
            }
        }
        assertTrue(described > 10_000, "garbage that fits should still be described: " + described);
        sb.setLength(0);
        PacketFormatter.describe(ByteBuffer.allocateDirect(16), 0, 16, sb);
        assertTrue(sb.toString().startsWith("RC_SEND_FIRST qp=0x000000 psn=0"), sb.toString());
    }
}
