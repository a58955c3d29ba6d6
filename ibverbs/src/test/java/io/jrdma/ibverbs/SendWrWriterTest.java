package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.WrStructs.SEND_WR;
import static io.jrdma.ibverbs.WrStructs.SGE;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Java work request chains into native ibv_send_wr / ibv_recv_wr chains, read back field by field. */
class SendWrWriterTest {

    private final Arena arena = Arena.ofAuto();

    private static long wr(int slot, long field) {
        return slot * SEND_WR.byteSize() + field;
    }

    @Test
    @SuppressWarnings("restricted") // reads back the gather list the writer points at
    void shouldWriteAChainWithItsUnionsNextPointersAndGatherLists() {
        SendWriterFixture f = new SendWriterFixture(arena, 8, 2);
        SendWr atomic = new SendWr().wrId(3).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sg(new Sge(0x3000, 8, 0x33))
                .remote(0xAAA8, 0x44).compareAdd(5).swap(6).signaled(true);
        SendWr write = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x01020304)
                .sg(new Sge(0x2000, 100, 0x22), new Sge(0x2100, 50, 0x22)).remote(0xBBBB, 0x55).next(atomic);
        SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(0x99)
                .sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED).sg(new Sge(0x1000, 10, 0x11)).next(write);
        SendWrWriter w = f.writer;
        assertEquals(3, w.write(send));
        assertNull(w.rest);
        assertNull(w.refusal);
        MemorySegment s = w.wrs;
        long base = s.address();
        assertEquals(1, s.get(JAVA_LONG, wr(0, WrStructs.SWR_WR_ID)));
        assertEquals(base + SEND_WR.byteSize(), s.get(JAVA_LONG, wr(0, WrStructs.SWR_NEXT)));
        assertEquals(base + 2 * SEND_WR.byteSize(), s.get(JAVA_LONG, wr(1, WrStructs.SWR_NEXT)));
        assertEquals(0, s.get(JAVA_LONG, wr(2, WrStructs.SWR_NEXT)), "the chain ends");
        assertEquals(WrOpcode.SEND_WITH_INV.code(), s.get(JAVA_INT, wr(0, WrStructs.SWR_OPCODE)));
        assertEquals(SendFlags.SIGNALED | SendFlags.SOLICITED, s.get(JAVA_INT, wr(0, WrStructs.SWR_SEND_FLAGS)));
        assertEquals(0x99, s.get(JAVA_INT, wr(0, WrStructs.SWR_INVALIDATE_RKEY)));
        // imm_data is __be32: the value's bytes go big-endian into memory
        assertEquals(1, s.get(JAVA_BYTE, wr(1, WrStructs.SWR_IMM_DATA)));
        assertEquals(4, s.get(JAVA_BYTE, wr(1, WrStructs.SWR_IMM_DATA + 3)));
        assertEquals(0xBBBB, s.get(JAVA_LONG, wr(1, WrStructs.SWR_RDMA_REMOTE_ADDR)));
        assertEquals(0x55, s.get(JAVA_INT, wr(1, WrStructs.SWR_RDMA_RKEY)));
        assertEquals(2, s.get(JAVA_INT, wr(1, WrStructs.SWR_NUM_SGE)));
        MemorySegment sges = MemorySegment.ofAddress(s.get(JAVA_LONG, wr(1, WrStructs.SWR_SG_LIST)))
                .reinterpret(2 * SGE.byteSize());
        assertEquals(0x2100, sges.get(JAVA_LONG, SGE.byteSize() + WrStructs.SGE_ADDR));
        assertEquals(50, sges.get(JAVA_INT, SGE.byteSize() + WrStructs.SGE_LENGTH));
        assertEquals(0x22, sges.get(JAVA_INT, SGE.byteSize() + WrStructs.SGE_LKEY));
        assertEquals(0xAAA8, s.get(JAVA_LONG, wr(2, WrStructs.SWR_ATOMIC_REMOTE_ADDR)));
        assertEquals(5, s.get(JAVA_LONG, wr(2, WrStructs.SWR_ATOMIC_COMPARE_ADD)));
        assertEquals(6, s.get(JAVA_LONG, wr(2, WrStructs.SWR_ATOMIC_SWAP)));
        assertEquals(0x44, s.get(JAVA_INT, wr(2, WrStructs.SWR_ATOMIC_RKEY)));
    }

    @Test
    void shouldWriteALongChainInBatchesOfTheSlots() {
        SendWriterFixture f = new SendWriterFixture(arena, 4, 1);
        SendWr first = null;
        for (int i = 9; i >= 0; i--) {
            first = new SendWr().wrId(i).sg(new Sge(0x1000, 1, 1)).next(first);
        }
        SendWrWriter w = f.writer;
        assertEquals(4, w.write(first));
        assertEquals(4, w.rest.wrId());
        assertEquals(4, w.write(w.rest));
        assertEquals(2, w.write(w.rest));
        assertNull(w.rest);
        assertEquals(9, w.wrs.get(JAVA_LONG, wr(1, WrStructs.SWR_WR_ID)));
    }

    @Test
    void shouldStopAtTheFirstRequestWithTooManySgesBadFlow() {
        SendWriterFixture f = new SendWriterFixture(arena, 8, 2);
        Sge x = new Sge(1, 1, 1);
        SendWr bad = new SendWr().wrId(2).sg(x, x, x);
        SendWr good = new SendWr().wrId(1).sg(x).next(bad);
        assertEquals(1, f.writer.write(good));
        assertSame(bad, f.writer.rest);
        assertEquals(Errno.EINVAL, f.writer.refusalErrno);
        assertEquals("num_sge 3 is out of range [0, 2] (max_send_sge)", f.writer.refusal);
        SendWr noList = new SendWr().numSge(1);
        assertEquals(0, f.writer.write(noList));
        assertEquals("num_sge is 1 but the gather list has no entries", f.writer.refusal);
    }

    @Test
    void shouldRefuseAUdSendWithoutAnAddressHandleBadFlow() {
        SendWrWriter w = new SendWrWriter(arena, 4, 1, 64, QpType.UD);
        assertEquals(0, w.write(new SendWr().sg(new Sge(1, 1, 1))));
        assertEquals("a UD send needs an open address handle of this provider", w.refusal);
    }

    @Test
    void shouldWriteReceiveChains() {
        RecvWrWriter w = new RecvWrWriter(arena, 4, 2, "max_recv_sge");
        RecvWr second = new RecvWr().wrId(8).sg(new Sge(0x20, 64, 2), new Sge(0x60, 64, 2));
        RecvWr first = new RecvWr().wrId(7).sg(new Sge(0x10, 16, 1)).next(second);
        assertEquals(2, w.write(first));
        long size = WrStructs.RECV_WR.byteSize();
        assertEquals(7, w.wrs.get(JAVA_LONG, WrStructs.RWR_WR_ID));
        assertEquals(w.wrs.address() + size, w.wrs.get(JAVA_LONG, WrStructs.RWR_NEXT));
        assertEquals(0, w.wrs.get(JAVA_LONG, size + WrStructs.RWR_NEXT));
        assertEquals(2, w.wrs.get(JAVA_INT, size + WrStructs.RWR_NUM_SGE));
        assertEquals(1, w.indexOf(w.wrs.address() + size));
        assertEquals(0, w.write(new RecvWr().sg(new Sge(), new Sge(), new Sge())));
        assertEquals("num_sge 3 is out of range [0, 2] (max_recv_sge)", w.refusal);
    }

    @Test
    void shouldRefuseOpcodesTheTransportLacksAndBadInlineOrAtomicsBadFlow() {
        SendWrWriter ud = new SendWrWriter(arena, 4, 1, 64, QpType.UD);
        assertEquals(0, ud.write(new SendWr().opcode(WrOpcode.RDMA_WRITE)));
        assertEquals("opcode RDMA_WRITE is not valid on a UD QP", ud.refusal);
        SendWrWriter uc = new SendWrWriter(arena, 4, 1, 64, QpType.UC);
        assertEquals(0, uc.write(new SendWr().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)));
        assertEquals("opcode ATOMIC_FETCH_AND_ADD is not valid on a UC QP", uc.refusal);
        SendWrWriter rc = new SendWriterFixture(arena, 4, 2).writer;
        assertEquals(0, rc.write(new SendWr().sendFlags(SendFlags.INLINE).sg(new Sge(1, 65, 1))));
        assertEquals("inline data of 65 bytes exceeds max_inline_data 64", rc.refusal);
        assertEquals(0, rc.write(new SendWr().opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.INLINE)
                .sg(new Sge(1, 8, 1))));
        assertEquals("RDMA_READ cannot be INLINE", rc.refusal);
        assertEquals(0, rc.write(new SendWr().opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sg(new Sge(1, 8, 1))
                .remote(0x1004, 1)));
        assertEquals("an atomic needs exactly 8 bytes of local buffer (has 8), an 8-byte aligned remote_addr "
                + "(0x1004) and no INLINE flag", rc.refusal);
    }

    /** A writer for an RC QP. */
    private static final class SendWriterFixture {
        final SendWrWriter writer;

        SendWriterFixture(Arena arena, int slots, int maxSge) {
            writer = new SendWrWriter(arena, slots, maxSge, 64, QpType.RC);
        }
    }
}
