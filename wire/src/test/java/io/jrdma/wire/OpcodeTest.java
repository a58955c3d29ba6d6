package io.jrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OpcodeTest {
    @Test
    void shouldHaveIbtaHeaderLengths() {
        assertEquals(12 + 16 + 4, Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.headerLength());
        assertEquals(12 + 4 + 8, Opcode.RC_ATOMIC_ACKNOWLEDGE.headerLength());
        assertEquals(12 + 8 + 4, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE.headerLength());
        assertEquals(40, Opcode.RC_COMPARE_SWAP.headerLength());
        assertEquals(40, Opcode.RC_FETCH_ADD.headerLength());
        assertEquals(16, Opcode.RC_SEND_ONLY_WITH_INVALIDATE.headerLength());
        assertEquals(16, Opcode.RC_SEND_LAST_WITH_INVALIDATE.headerLength());
        assertEquals(12, Opcode.RC_SEND_MIDDLE.headerLength());
        assertEquals(16, Opcode.RC_ACKNOWLEDGE.headerLength());
        assertEquals(28, Opcode.RC_RDMA_READ_REQUEST.headerLength());
        assertEquals(28, Opcode.UC_RDMA_WRITE_FIRST.headerLength());
        assertEquals(16, Opcode.RC_RDMA_READ_RESPONSE_FIRST.headerLength());
        assertEquals(12, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE.headerLength());
        assertEquals(20, Opcode.UD_SEND_ONLY.headerLength());
    }

    @Test
    void shouldPlaceExtensionHeadersInIbtaOrder() {
        Opcode w = Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
        assertEquals(12, w.rethOffset());
        assertEquals(28, w.immOffset());
        assertEquals(-1, w.aethOffset());
        Opcode aa = Opcode.RC_ATOMIC_ACKNOWLEDGE;
        assertEquals(12, aa.aethOffset());
        assertEquals(16, aa.atomicAckEthOffset());
        Opcode ud = Opcode.UD_SEND_ONLY_WITH_IMMEDIATE;
        assertEquals(12, ud.dethOffset());
        assertEquals(20, ud.immOffset());
        assertEquals(12, Opcode.RC_COMPARE_SWAP.atomicEthOffset());
        assertEquals(12, Opcode.RC_SEND_ONLY_WITH_INVALIDATE.iethOffset());
        assertEquals(12, Opcode.RC_SEND_LAST_WITH_IMMEDIATE.immOffset());
    }

    @Test
    void shouldHaveConsistentOffsetsForEveryOpcode() {
        for (Opcode op : Opcode.values()) {
            int[] offsets = {op.dethOffset(), op.rethOffset(), op.atomicEthOffset(), op.aethOffset(),
                op.atomicAckEthOffset(), op.immOffset(), op.iethOffset()};
            int[] lengths = {Deth.LENGTH, Reth.LENGTH, AtomicEth.LENGTH, Aeth.LENGTH, AtomicAckEth.LENGTH,
                ImmDt.LENGTH, Ieth.LENGTH};
            boolean[] has = {op.hasDeth(), op.hasReth(), op.hasAtomicEth(), op.hasAeth(), op.hasAtomicAckEth(),
                op.hasImm(), op.hasIeth()};
            int at = Bth.LENGTH;
            for (int i = 0; i < offsets.length; i++) {
                assertEquals(offsets[i] >= 0, has[i], op + " header " + i);
                if (has[i]) {
                    assertEquals(at, offsets[i], op + " header " + i);
                    at += lengths[i];
                }
            }
            assertEquals(at, op.headerLength(), op.name());
        }
    }

    @Test
    void shouldLookUpEveryCodeAndRejectUnknownOnes() {
        int known = 0;
        for (int code = 0; code < 256; code++) {
            Opcode op = Opcode.of(code);
            if (op != null) {
                known++;
                assertEquals(code, op.code());
                assertEquals(code & 0xE0, op.transport().prefix(), op.name());
                assertTrue(op.name().startsWith(op.transport().name() + "_"), op.name());
            }
        }
        assertEquals(Opcode.values().length, known);
        assertEquals(23 + 12 + 2, known);
        for (int code : new int[] {0x15, 0x18, 0x1C, 0x1F, 0x2C, 0x30, 0x40, 0x41, 0x63, 0x66, 0x80, 0xA0, 0xE0, 0xFF,
            -1, 256, Integer.MIN_VALUE}) {
            assertNull(Opcode.of(code), "code " + code);
        }
    }

    @Test
    void shouldClassifyRequestsAndResponses() {
        Set<Opcode> responses = EnumSet.of(Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE,
                Opcode.RC_RDMA_READ_RESPONSE_LAST, Opcode.RC_RDMA_READ_RESPONSE_ONLY, Opcode.RC_ACKNOWLEDGE,
                Opcode.RC_ATOMIC_ACKNOWLEDGE);
        for (Opcode op : Opcode.values()) {
            assertEquals(responses.contains(op), op.isResponse(), op.name());
            assertEquals(!responses.contains(op), op.isRequest(), op.name());
            assertEquals(op.name().contains("SEND"), op.isSend(), op.name());
            assertEquals(op.name().contains("RDMA_WRITE"), op.isWrite(), op.name());
            assertEquals(op.name().contains("READ_RESPONSE"), op.isReadResponse(), op.name());
            assertEquals(op.name().endsWith("READ_REQUEST"), op.isReadRequest(), op.name());
            assertEquals(op == Opcode.RC_COMPARE_SWAP || op == Opcode.RC_FETCH_ADD, op.isAtomic(), op.name());
            assertEquals(op == Opcode.RC_ACKNOWLEDGE, op.isAck(), op.name());
            assertEquals(op == Opcode.RC_ATOMIC_ACKNOWLEDGE, op.isAtomicAck(), op.name());
            assertEquals(op.isSend() || op.isWrite() || op.isReadResponse(), op.hasPayload(), op.name());
            assertEquals(op.name().contains("IMMEDIATE"), op.hasImm(), op.name());
            assertEquals(op.name().contains("INVALIDATE"), op.hasIeth(), op.name());
        }
    }

    @Test
    void shouldMarkMessagePositions() {
        for (Opcode op : Opcode.values()) {
            String n = op.name();
            boolean first = n.contains("_FIRST");
            boolean middle = n.contains("_MIDDLE");
            boolean last = n.contains("_LAST");
            boolean only = !first && !middle && !last;
            assertEquals(first, op.isFirst(), n);
            assertEquals(middle, op.isMiddle(), n);
            assertEquals(last, op.isLast(), n);
            assertEquals(only, op.isOnly(), n);
            assertEquals(first || only, op.isStart(), n);
            assertEquals(last || only, op.isEnd(), n);
        }
        assertFalse(Opcode.RC_SEND_ONLY.isLast());
        assertFalse(Opcode.RC_SEND_ONLY.isFirst());
    }

    @Test
    void shouldMarkReceiveWqeUseAsRxeRwrAndCompMasks() {
        Set<Opcode> rwr = EnumSet.of(Opcode.RC_SEND_FIRST, Opcode.RC_SEND_ONLY, Opcode.RC_SEND_ONLY_WITH_IMMEDIATE,
                Opcode.RC_SEND_ONLY_WITH_INVALIDATE, Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.UC_SEND_FIRST, Opcode.UC_SEND_ONLY,
                Opcode.UC_SEND_ONLY_WITH_IMMEDIATE, Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.UD_SEND_ONLY, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE);
        Set<Opcode> comp = EnumSet.of(Opcode.RC_SEND_LAST, Opcode.RC_SEND_LAST_WITH_IMMEDIATE, Opcode.RC_SEND_ONLY,
                Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, Opcode.RC_SEND_LAST_WITH_INVALIDATE,
                Opcode.RC_SEND_ONLY_WITH_INVALIDATE, Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.UC_SEND_LAST, Opcode.UC_SEND_LAST_WITH_IMMEDIATE,
                Opcode.UC_SEND_ONLY, Opcode.UC_SEND_ONLY_WITH_IMMEDIATE, Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.UD_SEND_ONLY, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE);
        for (Opcode op : Opcode.values()) {
            assertEquals(rwr.contains(op), op.startsReceiveWqe(), op.name());
            assertEquals(op.isSend() || rwr.contains(op), op.requiresReceiveWqe(), op.name());
            assertEquals(comp.contains(op), op.completesReceiveWqe(), op.name());
        }
    }

    @Test
    void shouldFindSendOpcodes() {
        assertSame(Opcode.RC_SEND_FIRST, Opcode.send(Transport.RC, Position.FIRST, true, false));
        assertSame(Opcode.RC_SEND_MIDDLE, Opcode.send(Transport.RC, Position.MIDDLE, false, true));
        assertSame(Opcode.RC_SEND_LAST, Opcode.send(Transport.RC, Position.LAST, false, false));
        assertSame(Opcode.RC_SEND_LAST_WITH_IMMEDIATE, Opcode.send(Transport.RC, Position.LAST, true, false));
        assertSame(Opcode.RC_SEND_LAST_WITH_INVALIDATE, Opcode.send(Transport.RC, Position.LAST, false, true));
        assertSame(Opcode.RC_SEND_ONLY, Opcode.send(Transport.RC, Position.ONLY, false, false));
        assertSame(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, Opcode.send(Transport.RC, Position.ONLY, true, false));
        assertSame(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, Opcode.send(Transport.RC, Position.ONLY, false, true));
        assertNull(Opcode.send(Transport.RC, Position.ONLY, true, true));
        assertSame(Opcode.UC_SEND_FIRST, Opcode.send(Transport.UC, Position.FIRST, false, false));
        assertSame(Opcode.UC_SEND_MIDDLE, Opcode.send(Transport.UC, Position.MIDDLE, true, false));
        assertSame(Opcode.UC_SEND_LAST_WITH_IMMEDIATE, Opcode.send(Transport.UC, Position.LAST, true, false));
        assertSame(Opcode.UC_SEND_ONLY, Opcode.send(Transport.UC, Position.ONLY, false, false));
        assertNull(Opcode.send(Transport.UC, Position.ONLY, false, true));
        assertSame(Opcode.UD_SEND_ONLY, Opcode.send(Transport.UD, Position.ONLY, false, false));
        assertSame(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, Opcode.send(Transport.UD, Position.ONLY, true, false));
        assertNull(Opcode.send(Transport.UD, Position.FIRST, false, false));
        assertNull(Opcode.send(Transport.UD, Position.LAST, true, false));
        assertNull(Opcode.send(Transport.RD, Position.ONLY, false, false));
    }

    @Test
    void shouldFindWriteAndReadResponseOpcodes() {
        assertSame(Opcode.RC_RDMA_WRITE_FIRST, Opcode.write(Transport.RC, Position.FIRST, true));
        assertSame(Opcode.RC_RDMA_WRITE_MIDDLE, Opcode.write(Transport.RC, Position.MIDDLE, false));
        assertSame(Opcode.RC_RDMA_WRITE_LAST, Opcode.write(Transport.RC, Position.LAST, false));
        assertSame(Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcode.write(Transport.RC, Position.LAST, true));
        assertSame(Opcode.RC_RDMA_WRITE_ONLY, Opcode.write(Transport.RC, Position.ONLY, false));
        assertSame(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.write(Transport.RC, Position.ONLY, true));
        assertSame(Opcode.UC_RDMA_WRITE_FIRST, Opcode.write(Transport.UC, Position.FIRST, false));
        assertSame(Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.write(Transport.UC, Position.ONLY, true));
        assertNull(Opcode.write(Transport.UD, Position.ONLY, false));
        assertSame(Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.readResponse(Position.FIRST));
        assertSame(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.readResponse(Position.MIDDLE));
        assertSame(Opcode.RC_RDMA_READ_RESPONSE_LAST, Opcode.readResponse(Position.LAST));
        assertSame(Opcode.RC_RDMA_READ_RESPONSE_ONLY, Opcode.readResponse(Position.ONLY));
        for (Transport t : new Transport[] {Transport.RC, Transport.UC}) {
            for (Position p : Position.values()) {
                for (boolean imm : new boolean[] {false, true}) {
                    Opcode w = Opcode.write(t, p, imm);
                    assertSame(t, w.transport());
                    assertSame(p, w.position());
                    assertEquals(imm && (p == Position.LAST || p == Position.ONLY), w.hasImm());
                    assertEquals(p == Position.FIRST || p == Position.ONLY, w.hasReth());
                }
            }
        }
    }
}
