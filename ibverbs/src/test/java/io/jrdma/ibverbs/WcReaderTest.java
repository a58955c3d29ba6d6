package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.WrStructs.WC;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** struct ibv_wc to {@link WorkCompletion}: every field, the status and opcode codes, the imm/inv union. */
class WcReaderTest {

    private final Arena arena = Arena.ofAuto();

    private MemorySegment wc(int index, long wrId, int status, int opcode, int flags) {
        MemorySegment s = arena.allocate(WC.byteSize() * (index + 1), 8);
        long at = index * WC.byteSize();
        s.set(JAVA_LONG, at + WrStructs.WC_WR_ID, wrId);
        s.set(JAVA_INT, at + WrStructs.WC_STATUS, status);
        s.set(JAVA_INT, at + WrStructs.WC_OPCODE, opcode);
        s.set(JAVA_INT, at + WrStructs.WC_VENDOR_ERR, 0x77);
        s.set(JAVA_INT, at + WrStructs.WC_BYTE_LEN, 2500);
        s.set(JAVA_INT, at + WrStructs.WC_QP_NUM, 0x11);
        s.set(JAVA_INT, at + WrStructs.WC_SRC_QP, 0x22);
        s.set(JAVA_INT, at + WrStructs.WC_WC_FLAGS, flags);
        s.set(JAVA_SHORT, at + WrStructs.WC_PKEY_INDEX, (short) 3);
        s.set(JAVA_SHORT, at + WrStructs.WC_SLID, (short) 0xfffe);
        s.set(JAVA_BYTE, at + WrStructs.WC_SL, (byte) 5);
        s.set(JAVA_BYTE, at + WrStructs.WC_DLID_PATH_BITS, (byte) 0x81);
        return s;
    }

    @Test
    void shouldReadEveryFieldAndTheImmediateAsTheBigEndianValue() {
        MemorySegment s = wc(1, 42, 0, 129, WcFlags.WITH_IMM | WcFlags.GRH);
        long at = WC.byteSize();
        // imm_data is __be32: the bytes 12 34 56 78 in memory are the value 0x12345678
        s.set(JAVA_BYTE, at + WrStructs.WC_IMM_DATA, (byte) 0x12);
        s.set(JAVA_BYTE, at + WrStructs.WC_IMM_DATA + 1, (byte) 0x34);
        s.set(JAVA_BYTE, at + WrStructs.WC_IMM_DATA + 2, (byte) 0x56);
        s.set(JAVA_BYTE, at + WrStructs.WC_IMM_DATA + 3, (byte) 0x78);
        WorkCompletion wc = new WorkCompletion();
        assertSame(wc, WcReader.read(s, 1, wc));
        assertEquals(42, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode());
        assertEquals(0x12345678, wc.immData());
        assertEquals(0, wc.invalidatedRkey());
        assertEquals(0x77, wc.vendorErr());
        assertEquals(2500, wc.byteLen());
        assertEquals(0x11, wc.qpNum());
        assertEquals(0x22, wc.srcQp());
        assertEquals(WcFlags.WITH_IMM | WcFlags.GRH, wc.wcFlags());
        assertEquals(3, wc.pkeyIndex());
        assertEquals(0xfffe, wc.slid());
        assertEquals(5, wc.sl());
        assertEquals(0x81, wc.dlidPathBits());
    }

    @Test
    void shouldReadTheInvalidatedRkeyInHostOrder() {
        MemorySegment s = wc(0, 1, 0, 128, WcFlags.WITH_INV);
        s.set(JAVA_INT, WrStructs.WC_INVALIDATED_RKEY, 0xabcdef01);
        WorkCompletion wc = WcReader.read(s, 0, new WorkCompletion().immData(9));
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(0xabcdef01, wc.invalidatedRkey());
        assertEquals(0, wc.immData(), "no WITH_IMM: no immediate");
    }

    @Test
    void shouldMapEveryStatusAndSendSideOpcodeByCode() {
        for (WcStatus st : WcStatus.values()) {
            assertSame(st, WcReader.read(wc(0, 1, st.code(), 0, 0), 0, new WorkCompletion()).status());
        }
        for (WcOpcode op : WcOpcode.values()) {
            assertSame(op, WcReader.read(wc(0, 1, 0, op.code(), 0), 0, new WorkCompletion()).opcode());
        }
    }

    @Test
    void shouldReportTagMatchingStatusesAsGeneralErrorsBadFlow() {
        WorkCompletion wc = WcReader.read(wc(0, 7, 22, 0x12345, 0), 0, new WorkCompletion());
        assertEquals(WcStatus.GENERAL_ERR, wc.status());
        assertEquals(WcOpcode.SEND, wc.opcode(), "an error completion's opcode is undefined");
        assertEquals(7, wc.wrId());
    }

    @Test
    void shouldRefuseASuccessfulCompletionOfAnOpcodeNeverPostedBadFlow() {
        assertThrows(IllegalStateException.class, () -> WcReader.read(wc(0, 1, 0, 7, 0), 0, new WorkCompletion()));
    }
}
