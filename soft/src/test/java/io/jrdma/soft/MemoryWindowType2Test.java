package io.jrdma.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrdma.verbs.MemoryWindow;
import io.jrdma.verbs.MwType;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import io.jrdma.wire.Bth;
import io.jrdma.wire.Ieth;
import io.jrdma.wire.Opcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Type 2 memory windows on the soft device: binds with BIND_MW work requests, LOCAL_INV, and SEND with Invalidate
 * on the wire.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryWindowType2Test extends MemoryWindowFixture {

    // ------------------------------------------------------------------------------------------------- type 2

    @Test
    void shouldWriteAndReadThroughType2Window() {
        MemoryWindow mw = boundType2(RW, 0x5A);
        assertEquals(0x5A, mw.rkey() & 0xFF, "the consumer's key byte");
        fill(a.buf.asSlice(0, 200), 9);
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr() + 64, mw.rkey(), 200)).status());
        assertEquals(-1, a.buf.asSlice(0, 200).mismatch(bindableBuf.asSlice(WINDOW_OFFSET + 64, 200)));
        assertEquals(WcStatus.SUCCESS, run(read(windowAddr() + 64, mw.rkey(), 200)).status());
        assertEquals(-1, a.buf.asSlice(8192, 200).mismatch(bindableBuf.asSlice(WINDOW_OFFSET + 64, 200)));
    }

    @Test
    void shouldKillAType2RkeyWithLocalInvalidateBadFlow() {
        MemoryWindow mw = boundType2(RW, 0x11);
        int rkey = mw.rkey();
        b.qp.postSend(new SendWr().wrId(602).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).signaled(true));
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(602, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    void shouldRebindAType2WindowAfterInvalidation() {
        MemoryWindow mw = boundType2(RW, 0x21);
        b.qp.postSend(new SendWr().wrId(602).opcode(WrOpcode.LOCAL_INV).invalidateRkey(mw.rkey()).signaled(true));
        assertEquals(WcStatus.SUCCESS, pair.await(b.cq).status());
        bindType2(mw, RW, 0x22, WcStatus.SUCCESS);
        assertEquals(0x22, mw.rkey() & 0xFF);
        assertEquals(WcStatus.SUCCESS, run(write(windowAddr(), mw.rkey(), 32)).status());
    }

    @Test
    void shouldFailBindingABoundType2WindowBadFlow() {
        MemoryWindow mw = boundType2(RW, 0x31);
        SendWr wr = new SendWr().opcode(WrOpcode.BIND_MW).mw(mw).bindRkey(0x32);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(64).mwAccessFlags(RW);
        assertBindError(wr);
    }

    @Test
    void shouldFailAZeroLengthType2BindBadFlow() {
        MemoryWindow mw = later(b.pd.allocMw(MwType.TYPE_2));
        SendWr wr = new SendWr().opcode(WrOpcode.BIND_MW).mw(mw).bindRkey(0x41);
        wr.bindInfo().mr(bindable).addr(windowAddr()).length(0).mwAccessFlags(RW);
        assertBindError(wr);
    }

    @Test
    void shouldFailLocalInvalidateOfAType1WindowBadFlow() {
        MemoryWindow mw = boundType1(RW);
        assertLocalInvalidateError(mw.rkey());
    }

    @Test
    void shouldFailLocalInvalidateOfARegionRkeyBadFlow() {
        assertLocalInvalidateError(bindable.rkey());
    }

    private void assertLocalInvalidateError(int rkey) {
        SendWr after = new SendWr().wrId(702).opcode(WrOpcode.SEND).signaled(true)
                .sg(new Sge(b.addr(0), 8, b.mr.lkey()));
        b.qp.postSend(new SendWr().wrId(701).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).signaled(true)
                .next(after));
        WorkCompletion wc = pair.await(b.cq);
        assertEquals(701, wc.wrId());
        assertEquals(WcStatus.LOC_QP_OP_ERR, wc.status(), "rxe_do_local_ops: " + wc);
        assertEquals(WcOpcode.LOCAL_INV, wc.opcode());
        assertEquals(WcStatus.WR_FLUSH_ERR, pair.await(b.cq).status());
        assertEquals(QpState.ERR, b.qp.state());
    }

    @Test
    void shouldInvalidateWithSendWithInvalidateOnTheWire() {
        MemoryWindow mw = boundType2(RW, 0x66);
        int rkey = mw.rkey();
        List<byte[]> sent = new ArrayList<>();
        a.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (tx) {
                sent.add(p.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            }
        });
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        fill(a.buf.asSlice(0, 100), 4);
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey).signaled(true)
                .sg(new Sge(a.addr(0), 100, a.mr.lkey())));
        WorkCompletion s = pair.await(a.cq);
        assertEquals(WcStatus.SUCCESS, s.status(), s.toString());
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = pair.await(b.cq);
        assertEquals(41, r.wrId());
        assertEquals(WcStatus.SUCCESS, r.status(), r.toString());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(100, r.byteLen());
        assertEquals(WcFlags.WITH_INV, r.wcFlags() & (WcFlags.WITH_INV | WcFlags.WITH_IMM));
        assertEquals(rkey, r.invalidatedRkey());
        assertEquals(-1, a.buf.asSlice(0, 100).mismatch(b.buf.asSlice(0, 100)));
        a.ctx.tap(null);

        byte[] pkt = sent.getFirst();
        MemorySegment seg = MemorySegment.ofArray(pkt);
        assertEquals(Opcode.RC_SEND_ONLY_WITH_INVALIDATE.code(), Bth.opcode(seg, 0));
        assertEquals(0x17, pkt[0] & 0xFF, "RC SEND Only with Invalidate");
        assertEquals(rkey, Ieth.rkey(seg, 12), "IETH right after the BTH");
        assertEquals((byte) (rkey >>> 24), pkt[12], "big-endian R_Key");
        assertEquals((byte) rkey, pkt[15]);
        assertEquals(12 + 4 + 100 + 4, pkt.length, "BTH, IETH, payload, ICRC");
        assertEquals(-1, a.buf.asSlice(0, 100).mismatch(seg.asSlice(16, 100)));

        assertRemoteAccessError(write(windowAddr(), rkey, 32));
    }

    @Test
    void shouldPutIethOnlyOnTheLastPacketOfAMultiPacketSendWithInvalidate() {
        MemoryWindow mw = boundType2(RW, 0x67);
        List<Integer> opcodes = new ArrayList<>();
        a.ctx.tap((tx, p, off, len, sip, sport, dip, dport) -> {
            if (tx) {
                opcodes.add(Bth.opcode(p, off));
            }
        });
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 4096, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(mw.rkey()).signaled(true)
                .sg(new Sge(a.addr(0), 2500, a.mr.lkey())));
        assertEquals(WcStatus.SUCCESS, pair.await(a.cq).status());
        WorkCompletion r = pair.await(b.cq);
        assertEquals(2500, r.byteLen());
        assertEquals(mw.rkey(), r.invalidatedRkey());
        a.ctx.tap(null);
        assertEquals(List.of(Opcode.RC_SEND_FIRST.code(), Opcode.RC_SEND_MIDDLE.code(),
                Opcode.RC_SEND_LAST_WITH_INVALIDATE.code()), opcodes);
    }

    @Test
    void shouldFailSendWithInvalidateOfARegionRkeyAtTheReceiverBadFlow() {
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        b.qp.postRecv(new RecvWr().wrId(42).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(bindable.rkey())
                .signaled(true).sg(new Sge(a.addr(0), 100, a.mr.lkey())));
        WorkCompletion r = pair.await(b.cq);
        assertEquals(41, r.wrId());
        assertEquals(WcStatus.REM_INV_REQ_ERR, r.status(), "rxe: RESPST_ERR_INVALIDATE_RKEY, class J: " + r);
        WorkCompletion flushed = pair.await(b.cq);
        assertEquals(42, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        assertEquals(QpState.ERR, b.qp.state());
        WorkCompletion s = pair.await(a.cq);
        assertEquals(WcStatus.SUCCESS, s.status(), "rxe acknowledges the SEND itself: " + s);
    }

    @Test
    void shouldFailSendWithInvalidateOfAType1WindowBadFlow() {
        MemoryWindow mw = boundType1(RW);
        b.qp.postRecv(new RecvWr().wrId(41).sg(new Sge(b.addr(0), 256, b.mr.lkey())));
        a.qp.postSend(new SendWr().wrId(40).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(mw.rkey())
                .signaled(true).sg(new Sge(a.addr(0), 10, a.mr.lkey())));
        assertEquals(WcStatus.REM_INV_REQ_ERR, pair.await(b.cq).status());
        assertEquals(QpState.ERR, b.qp.state());
    }
}
