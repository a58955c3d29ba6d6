package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.QpStructs.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.QpAttr;
import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpState;
import java.lang.foreign.MemorySegment;

/**
 * Copies the control-path attribute structs between Java and native memory: ibv_qp_attr, ibv_ah_attr (with its
 * ibv_global_route) and ibv_qp_cap. Every field is copied; the caller's mask says which ones libibverbs reads.
 */
final class AttrCodec {

    private AttrCodec() {
    }

    /** Writes {@code a} into the ibv_ah_attr at {@code offset} of {@code s}. */
    static void writeAh(MemorySegment s, long offset, AhAttr a) {
        MemorySegment.copy(a.dgid().toBytes(), 0, s, JAVA_BYTE, offset + AHA_DGID, 16);
        s.set(JAVA_INT, offset + AHA_FLOW_LABEL, a.flowLabel());
        s.set(JAVA_BYTE, offset + AHA_SGID_INDEX, (byte) a.sgidIndex());
        s.set(JAVA_BYTE, offset + AHA_HOP_LIMIT, (byte) a.hopLimit());
        s.set(JAVA_BYTE, offset + AHA_TRAFFIC_CLASS, (byte) a.trafficClass());
        s.set(JAVA_SHORT, offset + AHA_DLID, (short) a.dlid());
        s.set(JAVA_BYTE, offset + AHA_SL, (byte) a.sl());
        s.set(JAVA_BYTE, offset + AHA_SRC_PATH_BITS, (byte) a.srcPathBits());
        s.set(JAVA_BYTE, offset + AHA_STATIC_RATE, (byte) a.staticRate());
        s.set(JAVA_BYTE, offset + AHA_IS_GLOBAL, (byte) (a.isGlobal() ? 1 : 0));
        s.set(JAVA_BYTE, offset + AHA_PORT_NUM, (byte) a.portNum());
    }

    /** Reads the ibv_ah_attr at {@code offset} of {@code s} into {@code a}; returns it. */
    static AhAttr readAh(MemorySegment s, long offset, AhAttr a) {
        byte[] gid = new byte[16];
        MemorySegment.copy(s, JAVA_BYTE, offset + AHA_DGID, gid, 0, 16);
        return a.dgid(Gid.of(gid)).flowLabel(s.get(JAVA_INT, offset + AHA_FLOW_LABEL))
                .sgidIndex(u8(s, offset + AHA_SGID_INDEX)).hopLimit(u8(s, offset + AHA_HOP_LIMIT))
                .trafficClass(u8(s, offset + AHA_TRAFFIC_CLASS))
                .dlid(Short.toUnsignedInt(s.get(JAVA_SHORT, offset + AHA_DLID))).sl(u8(s, offset + AHA_SL))
                .srcPathBits(u8(s, offset + AHA_SRC_PATH_BITS)).staticRate(u8(s, offset + AHA_STATIC_RATE))
                .isGlobal(u8(s, offset + AHA_IS_GLOBAL) != 0).portNum(u8(s, offset + AHA_PORT_NUM));
    }

    /** Writes {@code c} into the ibv_qp_cap at {@code offset} of {@code s}. */
    static void writeCap(MemorySegment s, long offset, QpCap c) {
        s.set(JAVA_INT, offset + CAP_MAX_SEND_WR, c.maxSendWr());
        s.set(JAVA_INT, offset + CAP_MAX_RECV_WR, c.maxRecvWr());
        s.set(JAVA_INT, offset + CAP_MAX_SEND_SGE, c.maxSendSge());
        s.set(JAVA_INT, offset + CAP_MAX_RECV_SGE, c.maxRecvSge());
        s.set(JAVA_INT, offset + CAP_MAX_INLINE_DATA, c.maxInlineData());
    }

    /** Reads the ibv_qp_cap at {@code offset} of {@code s} into {@code c}; returns it. */
    static QpCap readCap(MemorySegment s, long offset, QpCap c) {
        return c.maxSendWr(s.get(JAVA_INT, offset + CAP_MAX_SEND_WR))
                .maxRecvWr(s.get(JAVA_INT, offset + CAP_MAX_RECV_WR))
                .maxSendSge(s.get(JAVA_INT, offset + CAP_MAX_SEND_SGE))
                .maxRecvSge(s.get(JAVA_INT, offset + CAP_MAX_RECV_SGE))
                .maxInlineData(s.get(JAVA_INT, offset + CAP_MAX_INLINE_DATA));
    }

    /** Writes every field of {@code a} into the ibv_qp_attr {@code s}. */
    static void writeQp(MemorySegment s, QpAttr a) {
        s.set(JAVA_INT, QA_QP_STATE, a.qpState() == null ? 0 : a.qpState().code());
        s.set(JAVA_INT, QA_CUR_QP_STATE, a.curQpState() == null ? 0 : a.curQpState().code());
        s.set(JAVA_INT, QA_PATH_MTU, a.pathMtu() == null ? 0 : a.pathMtu().code());
        s.set(JAVA_INT, QA_PATH_MIG_STATE, a.pathMigState());
        s.set(JAVA_INT, QA_QKEY, a.qkey());
        s.set(JAVA_INT, QA_RQ_PSN, a.rqPsn());
        s.set(JAVA_INT, QA_SQ_PSN, a.sqPsn());
        s.set(JAVA_INT, QA_DEST_QP_NUM, a.destQpNum());
        s.set(JAVA_INT, QA_QP_ACCESS_FLAGS, a.qpAccessFlags());
        writeCap(s, QA_CAP, a.cap());
        writeAh(s, QA_AH_ATTR, a.ahAttr());
        writeAh(s, QA_ALT_AH_ATTR, a.altAhAttr());
        s.set(JAVA_SHORT, QA_PKEY_INDEX, (short) a.pkeyIndex());
        s.set(JAVA_SHORT, QA_ALT_PKEY_INDEX, (short) a.altPkeyIndex());
        s.set(JAVA_BYTE, QA_EN_SQD_ASYNC_NOTIFY, (byte) (a.enSqdAsyncNotify() ? 1 : 0));
        s.set(JAVA_BYTE, QA_SQ_DRAINING, (byte) (a.sqDraining() ? 1 : 0));
        s.set(JAVA_BYTE, QA_MAX_RD_ATOMIC, (byte) a.maxRdAtomic());
        s.set(JAVA_BYTE, QA_MAX_DEST_RD_ATOMIC, (byte) a.maxDestRdAtomic());
        s.set(JAVA_BYTE, QA_MIN_RNR_TIMER, (byte) a.minRnrTimer());
        s.set(JAVA_BYTE, QA_PORT_NUM, (byte) a.portNum());
        s.set(JAVA_BYTE, QA_TIMEOUT, (byte) a.timeout());
        s.set(JAVA_BYTE, QA_RETRY_CNT, (byte) a.retryCnt());
        s.set(JAVA_BYTE, QA_RNR_RETRY, (byte) a.rnrRetry());
        s.set(JAVA_BYTE, QA_ALT_PORT_NUM, (byte) a.altPortNum());
        s.set(JAVA_BYTE, QA_ALT_TIMEOUT, (byte) a.altTimeout());
    }

    /** Reads the ibv_qp_attr {@code s} into {@code a}; returns it. */
    static QpAttr readQp(MemorySegment s, QpAttr a) {
        int mtu = s.get(JAVA_INT, QA_PATH_MTU);
        a.qpState(state(s.get(JAVA_INT, QA_QP_STATE))).curQpState(state(s.get(JAVA_INT, QA_CUR_QP_STATE)))
                .pathMtu(mtu >= 1 && mtu <= 5 ? Mtu.of(mtu) : null).pathMigState(s.get(JAVA_INT, QA_PATH_MIG_STATE))
                .qkey(s.get(JAVA_INT, QA_QKEY)).rqPsn(s.get(JAVA_INT, QA_RQ_PSN)).sqPsn(s.get(JAVA_INT, QA_SQ_PSN))
                .destQpNum(s.get(JAVA_INT, QA_DEST_QP_NUM)).qpAccessFlags(s.get(JAVA_INT, QA_QP_ACCESS_FLAGS))
                .pkeyIndex(Short.toUnsignedInt(s.get(JAVA_SHORT, QA_PKEY_INDEX)))
                .altPkeyIndex(Short.toUnsignedInt(s.get(JAVA_SHORT, QA_ALT_PKEY_INDEX)))
                .enSqdAsyncNotify(u8(s, QA_EN_SQD_ASYNC_NOTIFY) != 0).sqDraining(u8(s, QA_SQ_DRAINING) != 0)
                .maxRdAtomic(u8(s, QA_MAX_RD_ATOMIC)).maxDestRdAtomic(u8(s, QA_MAX_DEST_RD_ATOMIC))
                .minRnrTimer(u8(s, QA_MIN_RNR_TIMER)).portNum(u8(s, QA_PORT_NUM)).timeout(u8(s, QA_TIMEOUT))
                .retryCnt(u8(s, QA_RETRY_CNT)).rnrRetry(u8(s, QA_RNR_RETRY)).altPortNum(u8(s, QA_ALT_PORT_NUM))
                .altTimeout(u8(s, QA_ALT_TIMEOUT));
        readCap(s, QA_CAP, a.cap());
        readAh(s, QA_AH_ATTR, a.ahAttr());
        readAh(s, QA_ALT_AH_ATTR, a.altAhAttr());
        return a;
    }

    /** The state of libibverbs code {@code code}; IBV_QPS_UNKNOWN (7) or another code means the layouts are off. */
    static QpState state(int code) {
        if (code < 0 || code > 6) {
            throw SelfCheck.mismatch("ibv_qp_attr.qp_state is " + code + ", which is no ibv_qp_state");
        }
        return QpState.of(code);
    }

    private static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }
}
