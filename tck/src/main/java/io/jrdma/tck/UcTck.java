package io.jrdma.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrdma.verbs.Access;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.MemoryRegion;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpAttrMask;
import io.jrdma.verbs.QpState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.Sge;
import io.jrdma.verbs.VerbsException;
import io.jrdma.verbs.WcFlags;
import io.jrdma.verbs.WcOpcode;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WorkCompletion;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Unreliable Connected QPs (IBV_QPT_UC): SEND, SEND_WITH_IMM, RDMA WRITE and RDMA WRITE_WITH_IMM; what UC refuses
 * at post; the silent drops of a responder (no receive WQE, no access, bad rkey) that leave both QPs working; the
 * UC attribute rules; and the send queue error state (SQE) a local error leads to.
 */
public abstract class UcTck extends Tck {

    /** For a provider's test class that runs these tests. */
    protected UcTck() {
    }

    private static final int MTU = 1024;

    private Side[] pair() {
        return connectedPair(QpType.UC, 64 << 10, ALL_ACCESS, new Link());
    }

    private static boolean zeroed(MemorySegment s) {
        return s.mismatch(MemorySegment.ofArray(new byte[(int) s.byteSize()])) < 0;
    }

    @Test
    public void singlePacketSendLandsInReceive() {
        Side[] p = pair();
        fill(p[0].buf.asSlice(0, 700), 1);
        p[1].postRecv(11, 8192, 4096);
        p[0].qp.postSend(new SendWr().wrId(12).opcode(WrOpcode.SEND).sg(p[0].sge(0, 700)).signaled(true));
        WorkCompletion s = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(12, s.wrId());
        assertEquals(WcOpcode.SEND, s.opcode());
        assertEquals(p[0].qp.qpNum(), s.qpNum());
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(11, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(700, r.byteLen());
        assertEquals(0, r.wcFlags());
        assertEquals(p[1].qp.qpNum(), r.qpNum());
        assertEquals(-1, p[0].buf.asSlice(0, 700).mismatch(p[1].buf.asSlice(8192, 700)));
    }

    @Test
    public void multiPacketSendIsReassembled() {
        Side[] p = pair();
        int len = 3 * MTU + 17;
        fill(p[0].buf.asSlice(0, len), 2);
        // three SGEs on each side
        p[1].qp.postRecv(new RecvWr().wrId(1).sg(p[1].sge(16384, 1000), p[1].sge(20000, 1500),
                p[1].sge(24000, 4000)));
        p[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(p[0].sge(0, 100), p[0].sge(100, 2000),
                p[0].sge(2100, len - 2100)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(len, r.byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 1000).mismatch(p[1].buf.asSlice(16384, 1000)));
        assertEquals(-1, p[0].buf.asSlice(1000, 1500).mismatch(p[1].buf.asSlice(20000, 1500)));
        assertEquals(-1, p[0].buf.asSlice(2500, len - 2500).mismatch(p[1].buf.asSlice(24000, len - 2500)));
    }

    @Test
    public void sendWithImmediateCarriesIt() {
        Side[] p = pair();
        p[1].postRecv(1, 0, 8192);
        p[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(0x12345678)
                .sg(p[0].sge(0, 2 * MTU)).signaled(true));
        WorkCompletion s = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.SEND, s.opcode());
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(WcFlags.WITH_IMM, r.wcFlags());
        assertEquals(0x12345678, r.immData());
        assertEquals(2 * MTU, r.byteLen());
    }

    @Test
    public void zeroByteSendCompletesBothSides() {
        Side[] p = pair();
        p[1].postRecv(1, 0, 64);
        p[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(0, r.byteLen());
        assertEquals(1, r.wrId());
    }

    @Test
    public void rdmaWritePlacesDataWithoutConsumingAReceive() {
        Side[] p = pair();
        int len = 4 * MTU + 3;
        fill(p[0].buf.asSlice(0, len), 3);
        p[1].postRecv(5, 0, 64);
        p[0].qp.postSend(new SendWr().wrId(6).opcode(WrOpcode.RDMA_WRITE).sg(p[0].sge(0, len))
                .remote(p[1].addr(16384), p[1].mr.rkey()).signaled(true));
        WorkCompletion s = await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(WcOpcode.RDMA_WRITE, s.opcode());
        // a SEND behind it finds the receive still posted, and by then the write has landed (UC keeps order)
        p[0].qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.SEND).sg(p[0].sge(0, 8)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(5, r.wrId());
        assertEquals(WcOpcode.RECV, r.opcode());
        assertEquals(-1, p[0].buf.asSlice(0, len).mismatch(p[1].buf.asSlice(16384, len)));
    }

    @Test
    public void rdmaWriteWithImmediateConsumesAReceive() {
        Side[] p = pair();
        int len = 2 * MTU + 100;
        fill(p[0].buf.asSlice(0, len), 4);
        p[1].postRecv(8, 0, 16);
        p[0].qp.postSend(new SendWr().wrId(9).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(77)
                .sg(p[0].sge(0, len)).remote(p[1].addr(8192), p[1].mr.rkey()).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(8, r.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(len, r.byteLen());
        assertEquals(WcFlags.WITH_IMM, r.wcFlags());
        assertEquals(77, r.immData());
        assertEquals(-1, p[0].buf.asSlice(0, len).mismatch(p[1].buf.asSlice(8192, len)));
    }

    @Test
    public void readAndAtomicsAreRefusedAtPost() {
        Side[] p = pair();
        for (WrOpcode op : new WrOpcode[] {WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP,
            WrOpcode.ATOMIC_FETCH_AND_ADD}) {
            VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(new SendWr().wrId(1)
                    .opcode(op).sg(p[0].sge(0, 8)).remote(p[1].addr(0), p[1].mr.rkey()).signaled(true)));
            assertEquals(0, e.badWrIndex());
        }
        // the second of a chain is the bad one: the first stays posted
        p[1].postRecv(3, 0, 64);
        VerbsException e = assertVerbsError(Errno.EINVAL, () -> p[0].qp.postSend(new SendWr().wrId(2)
                .opcode(WrOpcode.SEND).sg(p[0].sge(0, 8)).signaled(true).next(new SendWr().wrId(4)
                        .opcode(WrOpcode.RDMA_READ).sg(p[0].sge(0, 8)).remote(p[1].addr(0), p[1].mr.rkey()))));
        assertEquals(1, e.badWrIndex());
        assertEquals(2, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertEquals(3, await(p[1].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[0].cq, 20);
        assertEquals(QpState.RTS, p[0].qp.state());
    }

    @Test
    public void sendWithoutAReceiveIsDroppedAndBothQpsGoOn() {
        Side[] p = pair();
        p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(p[0].sge(0, 100)).signaled(true));
        assertEquals(1, await(p[0].cq, WcStatus.SUCCESS).wrId());
        assertNoCompletion(p[1].cq, 50);
        assertEquals(QpState.RTS, p[0].qp.state());
        assertEquals(QpState.RTS, p[1].qp.state());
        p[1].postRecv(2, 0, 4096);
        fill(p[0].buf.asSlice(0, 100), 9);
        p[0].qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sg(p[0].sge(0, 100)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion r = await(p[1].cq, WcStatus.SUCCESS);
        assertEquals(2, r.wrId());
        assertEquals(100, r.byteLen());
        assertEquals(-1, p[0].buf.asSlice(0, 100).mismatch(p[1].buf.asSlice(0, 100)));
    }

    @Test
    public void writeWithABadRkeyIsDroppedSilently() {
        Side[] p = pair();
        fill(p[0].buf.asSlice(0, 3000), 5);
        p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(p[0].sge(0, 3000))
                .remote(p[1].addr(8192), p[1].mr.rkey() + 0x1000).signaled(true));
        assertEquals(WcStatus.SUCCESS, await(p[0].cq).status(), "UC cannot report a remote error");
        // a SEND behind it proves the responder went past the bad write
        p[1].postRecv(2, 0, 64);
        p[0].qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sg(p[0].sge(0, 4)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        assertEquals(2, await(p[1].cq, WcStatus.SUCCESS).wrId());
        assertTrue(zeroed(p[1].buf.asSlice(8192, 3000)), "nothing was written");
        assertEquals(QpState.RTS, p[1].qp.state());
    }

    @Test
    public void writeToAQpWithoutRemoteWriteIsDropped() {
        Side x = sideA(16384, ALL_ACCESS);
        Side y = sideB(16384, ALL_ACCESS);
        x.createQp(QpType.UC);
        y.createQp(QpType.UC);
        Link noWrite = new Link();
        noWrite.qpAccess = 0;
        connect(x, y, new Link());
        connect(y, x, noWrite);
        fill(x.buf.asSlice(0, 512), 6);
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sg(x.sge(0, 512))
                .remote(y.addr(4096), y.mr.rkey()).signaled(true));
        await(x.cq, WcStatus.SUCCESS);
        y.postRecv(2, 0, 64);
        x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sg(x.sge(0, 4)).signaled(true));
        await(x.cq, WcStatus.SUCCESS);
        assertEquals(2, await(y.cq, WcStatus.SUCCESS).wrId());
        assertTrue(zeroed(y.buf.asSlice(4096, 512)), "the QP may not receive RDMA writes");
        y.qp.modify(new QpAttr().qpState(QpState.RTS).qpAccessFlags(Access.REMOTE_WRITE),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS));
        y.postRecv(5, 0, 64);
        x.qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).sg(x.sge(0, 512))
                .remote(y.addr(4096), y.mr.rkey()).signaled(true));
        await(x.cq, WcStatus.SUCCESS);
        WorkCompletion r = await(y.cq, WcStatus.SUCCESS);
        assertEquals(5, r.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertEquals(-1, x.buf.asSlice(0, 512).mismatch(y.buf.asSlice(4096, 512)));
    }

    @Test
    public void receiveTooSmallFailsWithLocalLengthErrorAndFlushes() {
        Side[] p = pair();
        p[1].postRecv(1, 0, 1000);
        p[1].postRecv(2, 4096, 4096);
        p[0].qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sg(p[0].sge(0, 1500)).signaled(true));
        await(p[0].cq, WcStatus.SUCCESS);
        WorkCompletion bad = await(p[1].cq, WcStatus.LOC_LEN_ERR);
        assertEquals(1, bad.wrId());
        WorkCompletion flushed = await(p[1].cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(2, flushed.wrId());
        assertEquals(QpState.ERR, p[1].qp.state());
    }

    @Test
    public void rcOnlyAttributesAreRefused() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(QpType.UC);
        y.createQp(QpType.UC);
        x.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Access.REMOTE_WRITE),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(Mtu.MTU_1024).destQpNum(y.qp.qpNum()).rqPsn(0x42)
                .maxDestRdAtomic(1).minRnrTimer(1).ahAttr(route(b));
        assertVerbsError(Errno.EINVAL, () -> x.qp.modify(rtr, EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
                QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC)));
        assertVerbsError(Errno.EINVAL, () -> x.qp.modify(rtr, EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
                QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MIN_RNR_TIMER)));
        assertEquals(QpState.INIT, x.qp.state());
        x.qp.modify(rtr, EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN));
        for (QpAttrMask rcOnly : new QpAttrMask[] {QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
            QpAttrMask.MAX_QP_RD_ATOMIC}) {
            assertVerbsError(Errno.EINVAL, () -> x.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0x43)
                    .timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1), EnumSet.of(QpAttrMask.STATE,
                    QpAttrMask.SQ_PSN, rcOnly)));
            assertEquals(QpState.RTR, x.qp.state());
        }
        x.qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0x43), EnumSet.of(QpAttrMask.STATE,
                QpAttrMask.SQ_PSN));
        QpAttr q = x.qp.query(new QpAttr());
        assertEquals(QpState.RTS, q.qpState());
        assertEquals(0x42, q.rqPsn());
        assertEquals(0x43, q.sqPsn());
        assertEquals(y.qp.qpNum(), q.destQpNum());
        assertEquals(Mtu.MTU_1024, q.pathMtu());
        assertEquals(Access.REMOTE_WRITE, q.qpAccessFlags());
        assertEquals(QpType.UC, x.qp.type());
    }

    @Test
    public void postSendBeforeRtsIsRefused() {
        Side x = sideA(4096, ALL_ACCESS);
        Side y = sideB(4096, ALL_ACCESS);
        x.createQp(QpType.UC);
        y.createQp(QpType.UC);
        assertVerbsError(Errno.EINVAL, () -> x.qp.postSend(new SendWr().sg(x.sge(0, 8))));
        x.qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                EnumSet.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        x.postRecv(1, 0, 64); // receives may be posted from INIT on
        assertVerbsError(Errno.EINVAL, () -> x.qp.postSend(new SendWr().sg(x.sge(0, 8))));
        assertNoCompletion(x.cq, 10);
    }

    @Test
    public void localErrorEntersSqeFlushesLaterSendsKeepsReceivingAndResumes() {
        Side[] p = pair();
        Side x = p[0];
        Side y = p[1];
        MemoryRegion doomed = x.pd.registerMemory(buffer(4096), Access.LOCAL_WRITE);
        y.postRecv(10, 0, 4096);
        y.postRecv(11, 4096, 4096);
        moveTo(x.qp, QpState.SQD); // hold the requests while the region goes away
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sg(x.sge(0, 64)).signaled(true));
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(new Sge(doomed.address(), 64, doomed.lkey()))
                .signaled(true));
        x.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sg(x.sge(0, 64)).signaled(true));
        doomed.close();
        moveTo(x.qp, QpState.RTS);
        assertEquals(1, await(x.cq, WcStatus.SUCCESS).wrId());
        assertEquals(2, await(x.cq, WcStatus.LOC_PROT_ERR).wrId());
        assertEquals(3, await(x.cq, WcStatus.WR_FLUSH_ERR).wrId());
        assertEquals(QpState.SQE, x.qp.state());
        assertEquals(10, await(y.cq, WcStatus.SUCCESS).wrId());
        // in SQE: a new send is flushed, receives still work
        x.qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sg(x.sge(0, 64)).signaled(true));
        assertEquals(4, await(x.cq, WcStatus.WR_FLUSH_ERR).wrId());
        x.postRecv(20, 8192, 4096);
        y.qp.postSend(new SendWr().wrId(21).opcode(WrOpcode.SEND).sg(y.sge(8192, 32)).signaled(true));
        await(y.cq, WcStatus.SUCCESS);
        WorkCompletion in = await(x.cq, WcStatus.SUCCESS);
        assertEquals(20, in.wrId());
        assertEquals(32, in.byteLen());
        // SQE -> RTS
        moveTo(x.qp, QpState.RTS);
        x.qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).sg(x.sge(0, 64)).signaled(true));
        assertEquals(5, await(x.cq, WcStatus.SUCCESS).wrId());
        assertEquals(11, await(y.cq, WcStatus.SUCCESS).wrId());
    }

    @Test
    public void errorStateFlushesSendsAndReceives() {
        Side[] p = pair();
        p[0].postRecv(1, 0, 64);
        moveTo(p[0].qp, QpState.ERR);
        p[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sg(p[0].sge(0, 8)));
        WorkCompletion r = await(p[0].cq, WcStatus.WR_FLUSH_ERR);
        WorkCompletion s = await(p[0].cq, WcStatus.WR_FLUSH_ERR);
        assertEquals(3, r.wrId() + s.wrId());
        assertEquals(QpState.ERR, p[0].qp.state());
    }
}
