package io.jrdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

class EnumsTest {

    private static <E extends Enum<E>> void roundTrip(E[] values, ToIntFunction<E> code, IntFunction<E> of,
            int... bad) {
        for (E e : values) {
            assertSame(e, of.apply(code.applyAsInt(e)), e.name());
        }
        for (int b : bad) {
            assertThrows(IllegalArgumentException.class, () -> of.apply(b), "code " + b);
        }
    }

    @Test
    void shouldRoundTripLibibverbsCodes() {
        roundTrip(QpState.values(), QpState::code, QpState::of, -1, 7);
        roundTrip(QpType.values(), QpType::code, QpType::of, 0, 1, 5, 8, 9);
        roundTrip(Mtu.values(), Mtu::code, Mtu::of, 0, 6);
        roundTrip(WcStatus.values(), WcStatus::code, WcStatus::of, -1, 22);
        roundTrip(WcOpcode.values(), WcOpcode::code, WcOpcode::of, -1, 7, 127, 130);
        roundTrip(WrOpcode.values(), WrOpcode::code, WrOpcode::of, -1, 10);
        roundTrip(PortState.values(), PortState::code, PortState::of, -1, 6);
        roundTrip(LinkLayer.values(), LinkLayer::code, LinkLayer::of, -1, 3);
        roundTrip(AtomicCap.values(), AtomicCap::code, AtomicCap::of, -1, 3);
        roundTrip(Errno.values(), Errno::code, Errno::of, 0, 3, 999);
    }

    @Test
    void shouldCarryLibibverbsValues() {
        assertEquals(6, QpState.ERR.code());
        assertEquals(4, QpType.UD.code());
        assertEquals(21, WcStatus.GENERAL_ERR.code());
        assertEquals(12, WcStatus.RETRY_EXC_ERR.code());
        assertEquals(129, WcOpcode.RECV_RDMA_WITH_IMM.code());
        assertEquals(9, WrOpcode.SEND_WITH_INV.code());
        assertEquals(22, Errno.EINVAL.code());
        assertEquals(95, Errno.EOPNOTSUPP.code());
        assertEquals(110, Errno.ETIMEDOUT.code());
        assertEquals(22, WcStatus.values().length);
    }

    @Test
    void shouldGiveIbvWcStatusStrTexts() {
        assertEquals("success", WcStatus.SUCCESS.message());
        assertEquals("local length error", WcStatus.LOC_LEN_ERR.message());
        assertEquals("Work Request Flushed Error", WcStatus.WR_FLUSH_ERR.message());
        assertEquals("memory management operation error", WcStatus.MW_BIND_ERR.message());
        assertEquals("transport retry counter exceeded", WcStatus.RETRY_EXC_ERR.message());
        assertEquals("RNR retry counter exceeded", WcStatus.RNR_RETRY_EXC_ERR.message());
        assertEquals("remote invalid RD request", WcStatus.REM_INV_RD_REQ_ERR.message());
        assertEquals("aborted error", WcStatus.REM_ABORT_ERR.message());
        assertEquals("general error", WcStatus.GENERAL_ERR.message());
        assertTrue(WcStatus.SUCCESS.isSuccess());
        assertFalse(WcStatus.WR_FLUSH_ERR.isSuccess());
    }

    @Test
    void shouldConvertMtuBytes() {
        for (Mtu m : Mtu.values()) {
            assertSame(m, Mtu.ofBytes(m.bytes()));
            assertEquals(128 << m.code(), m.bytes());
        }
        assertThrows(IllegalArgumentException.class, () -> Mtu.ofBytes(1500));
        assertThrows(IllegalArgumentException.class, () -> Mtu.ofBytes(8192));
    }

    @Test
    void shouldPickLargestMtuAtMost() {
        assertNull(Mtu.largestAtMost(-1));
        assertNull(Mtu.largestAtMost(255));
        assertSame(Mtu.MTU_256, Mtu.largestAtMost(256));
        assertSame(Mtu.MTU_256, Mtu.largestAtMost(511));
        assertSame(Mtu.MTU_1024, Mtu.largestAtMost(1500 - 80));
        assertSame(Mtu.MTU_2048, Mtu.largestAtMost(4095));
        assertSame(Mtu.MTU_4096, Mtu.largestAtMost(4096));
        assertSame(Mtu.MTU_4096, Mtu.largestAtMost(9000 - 80));
        assertSame(Mtu.MTU_4096, Mtu.largestAtMost(Integer.MAX_VALUE));
    }

    @Test
    void shouldMapWorkRequestsToCompletionOpcodes() {
        assertSame(WcOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE.completionOpcode());
        assertSame(WcOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM.completionOpcode());
        assertSame(WcOpcode.SEND, WrOpcode.SEND.completionOpcode());
        assertSame(WcOpcode.SEND, WrOpcode.SEND_WITH_IMM.completionOpcode());
        assertSame(WcOpcode.SEND, WrOpcode.SEND_WITH_INV.completionOpcode());
        assertSame(WcOpcode.RDMA_READ, WrOpcode.RDMA_READ.completionOpcode());
        assertSame(WcOpcode.COMP_SWAP, WrOpcode.ATOMIC_CMP_AND_SWP.completionOpcode());
        assertSame(WcOpcode.FETCH_ADD, WrOpcode.ATOMIC_FETCH_AND_ADD.completionOpcode());
        assertSame(WcOpcode.LOCAL_INV, WrOpcode.LOCAL_INV.completionOpcode());
        assertSame(WcOpcode.BIND_MW, WrOpcode.BIND_MW.completionOpcode());
        for (WrOpcode op : WrOpcode.values()) {
            assertFalse(op.completionOpcode().isRecv(), op.name());
        }
        assertTrue(WcOpcode.RECV.isRecv());
        assertTrue(WcOpcode.RECV_RDMA_WITH_IMM.isRecv());
        assertTrue(WrOpcode.SEND_WITH_IMM.hasImmediate());
        assertFalse(WrOpcode.SEND_WITH_INV.hasImmediate());
        assertTrue(WrOpcode.ATOMIC_FETCH_AND_ADD.isRemoteMemory());
        assertFalse(WrOpcode.SEND.isRemoteMemory());
    }

    @Test
    void shouldUseLibibverbsQpAttrMaskBits() {
        assertEquals(1, QpAttrMask.STATE.bit());
        assertEquals(1 << 7, QpAttrMask.AV.bit());
        assertEquals(1 << 12, QpAttrMask.RQ_PSN.bit());
        assertEquals(1 << 17, QpAttrMask.MAX_DEST_RD_ATOMIC.bit());
        assertEquals(1 << 20, QpAttrMask.DEST_QPN.bit());
        for (QpAttrMask m : QpAttrMask.values()) {
            assertEquals(1 << m.ordinal(), m.bit(), m.name());
        }
        // ibv_rc_pingpong's INIT -> RTR mask
        EnumSet<QpAttrMask> rtr = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        assertEquals(0x12_9181, QpAttrMask.toBits(rtr));
        assertEquals(rtr, QpAttrMask.fromBits(QpAttrMask.toBits(rtr)));
        assertEquals(EnumSet.allOf(QpAttrMask.class), QpAttrMask.fromBits(QpAttrMask.ALL_BITS));
        assertEquals(EnumSet.noneOf(QpAttrMask.class), QpAttrMask.fromBits(0));
        assertThrows(IllegalArgumentException.class, () -> QpAttrMask.fromBits(1 << 25));
        assertEquals("DEST_QPN, RQ_PSN", QpAttrMask.names(QpAttrMask.toBits(QpAttrMask.RQ_PSN, QpAttrMask.DEST_QPN)));
    }
}
