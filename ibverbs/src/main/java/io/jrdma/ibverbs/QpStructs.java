package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.Structs.BYTE;
import static io.jrdma.ibverbs.Structs.COND;
import static io.jrdma.ibverbs.Structs.GID;
import static io.jrdma.ibverbs.Structs.INT;
import static io.jrdma.ibverbs.Structs.MUTEX;
import static io.jrdma.ibverbs.Structs.PTR;
import static io.jrdma.ibverbs.Structs.SHORT;
import static io.jrdma.ibverbs.Structs.off;
import static io.jrdma.ibverbs.Structs.pad;
import static io.jrdma.ibverbs.Structs.struct;

import java.lang.foreign.StructLayout;

/**
 * The queue pair and shared receive queue structs of {@code <infiniband/verbs.h>} (rdma-core 44, x86_64): ibv_qp,
 * ibv_srq, their creation and query attributes, and the address vector (ibv_ah_attr).
 */
final class QpStructs {

    /** struct ibv_qp. */
    static final StructLayout QP = struct("ibv_qp",
            PTR.withName("context"), PTR.withName("qp_context"), PTR.withName("pd"), PTR.withName("send_cq"),
            PTR.withName("recv_cq"), PTR.withName("srq"), INT.withName("handle"), INT.withName("qp_num"),
            INT.withName("state"), INT.withName("qp_type"), MUTEX.withName("mutex"), COND.withName("cond"),
            INT.withName("events_completed"), pad(4));

    static final long QP_CONTEXT = off(QP, "context");
    static final long QP_QP_CONTEXT = off(QP, "qp_context");
    static final long QP_PD = off(QP, "pd");
    static final long QP_SEND_CQ = off(QP, "send_cq");
    static final long QP_RECV_CQ = off(QP, "recv_cq");
    static final long QP_SRQ = off(QP, "srq");
    static final long QP_QP_NUM = off(QP, "qp_num");
    static final long QP_STATE = off(QP, "state");
    static final long QP_QP_TYPE = off(QP, "qp_type");

    /** struct ibv_srq. */
    static final StructLayout SRQ = struct("ibv_srq",
            PTR.withName("context"), PTR.withName("srq_context"), PTR.withName("pd"), INT.withName("handle"),
            pad(4), MUTEX.withName("mutex"), COND.withName("cond"), INT.withName("events_completed"), pad(4));

    static final long SRQ_CONTEXT = off(SRQ, "context");
    static final long SRQ_SRQ_CONTEXT = off(SRQ, "srq_context");
    static final long SRQ_PD = off(SRQ, "pd");

    /** struct ibv_srq_attr. */
    static final StructLayout SRQ_ATTR = struct("ibv_srq_attr",
            INT.withName("max_wr"), INT.withName("max_sge"), INT.withName("srq_limit"));

    static final long SA_MAX_WR = off(SRQ_ATTR, "max_wr");
    static final long SA_MAX_SGE = off(SRQ_ATTR, "max_sge");
    static final long SA_SRQ_LIMIT = off(SRQ_ATTR, "srq_limit");

    /** struct ibv_srq_init_attr. */
    static final StructLayout SRQ_INIT_ATTR = struct("ibv_srq_init_attr",
            PTR.withName("srq_context"), SRQ_ATTR.withName("attr"), pad(4));

    static final long SIA_SRQ_CONTEXT = off(SRQ_INIT_ATTR, "srq_context");
    static final long SIA_ATTR = off(SRQ_INIT_ATTR, "attr");

    /** struct ibv_qp_cap. */
    static final StructLayout QP_CAP = struct("ibv_qp_cap",
            INT.withName("max_send_wr"), INT.withName("max_recv_wr"), INT.withName("max_send_sge"),
            INT.withName("max_recv_sge"), INT.withName("max_inline_data"));

    static final long CAP_MAX_SEND_WR = off(QP_CAP, "max_send_wr");
    static final long CAP_MAX_RECV_WR = off(QP_CAP, "max_recv_wr");
    static final long CAP_MAX_SEND_SGE = off(QP_CAP, "max_send_sge");
    static final long CAP_MAX_RECV_SGE = off(QP_CAP, "max_recv_sge");
    static final long CAP_MAX_INLINE_DATA = off(QP_CAP, "max_inline_data");

    /** struct ibv_qp_init_attr. */
    static final StructLayout QP_INIT_ATTR = struct("ibv_qp_init_attr",
            PTR.withName("qp_context"), PTR.withName("send_cq"), PTR.withName("recv_cq"), PTR.withName("srq"),
            QP_CAP.withName("cap"), INT.withName("qp_type"), INT.withName("sq_sig_all"), pad(4));

    static final long QIA_QP_CONTEXT = off(QP_INIT_ATTR, "qp_context");
    static final long QIA_SEND_CQ = off(QP_INIT_ATTR, "send_cq");
    static final long QIA_RECV_CQ = off(QP_INIT_ATTR, "recv_cq");
    static final long QIA_SRQ = off(QP_INIT_ATTR, "srq");
    static final long QIA_CAP = off(QP_INIT_ATTR, "cap");
    static final long QIA_QP_TYPE = off(QP_INIT_ATTR, "qp_type");
    static final long QIA_SQ_SIG_ALL = off(QP_INIT_ATTR, "sq_sig_all");

    /** struct ibv_global_route. */
    static final StructLayout GLOBAL_ROUTE = struct("ibv_global_route",
            GID.withName("dgid"), INT.withName("flow_label"), BYTE.withName("sgid_index"),
            BYTE.withName("hop_limit"), BYTE.withName("traffic_class"), pad(1));

    /** struct ibv_ah_attr. */
    static final StructLayout AH_ATTR = struct("ibv_ah_attr",
            GLOBAL_ROUTE.withName("grh"), SHORT.withName("dlid"), BYTE.withName("sl"),
            BYTE.withName("src_path_bits"), BYTE.withName("static_rate"), BYTE.withName("is_global"),
            BYTE.withName("port_num"), pad(1));

    static final long AHA_DGID = off(AH_ATTR, "grh.dgid");
    static final long AHA_FLOW_LABEL = off(AH_ATTR, "grh.flow_label");
    static final long AHA_SGID_INDEX = off(AH_ATTR, "grh.sgid_index");
    static final long AHA_HOP_LIMIT = off(AH_ATTR, "grh.hop_limit");
    static final long AHA_TRAFFIC_CLASS = off(AH_ATTR, "grh.traffic_class");
    static final long AHA_DLID = off(AH_ATTR, "dlid");
    static final long AHA_SL = off(AH_ATTR, "sl");
    static final long AHA_SRC_PATH_BITS = off(AH_ATTR, "src_path_bits");
    static final long AHA_STATIC_RATE = off(AH_ATTR, "static_rate");
    static final long AHA_IS_GLOBAL = off(AH_ATTR, "is_global");
    static final long AHA_PORT_NUM = off(AH_ATTR, "port_num");

    /** struct ibv_qp_attr. */
    static final StructLayout QP_ATTR = struct("ibv_qp_attr",
            INT.withName("qp_state"), INT.withName("cur_qp_state"), INT.withName("path_mtu"),
            INT.withName("path_mig_state"), INT.withName("qkey"), INT.withName("rq_psn"), INT.withName("sq_psn"),
            INT.withName("dest_qp_num"), INT.withName("qp_access_flags"), QP_CAP.withName("cap"),
            AH_ATTR.withName("ah_attr"), AH_ATTR.withName("alt_ah_attr"), SHORT.withName("pkey_index"),
            SHORT.withName("alt_pkey_index"), BYTE.withName("en_sqd_async_notify"), BYTE.withName("sq_draining"),
            BYTE.withName("max_rd_atomic"), BYTE.withName("max_dest_rd_atomic"), BYTE.withName("min_rnr_timer"),
            BYTE.withName("port_num"), BYTE.withName("timeout"), BYTE.withName("retry_cnt"),
            BYTE.withName("rnr_retry"), BYTE.withName("alt_port_num"), BYTE.withName("alt_timeout"), pad(1),
            INT.withName("rate_limit"), pad(4));

    static final long QA_QP_STATE = off(QP_ATTR, "qp_state");
    static final long QA_CUR_QP_STATE = off(QP_ATTR, "cur_qp_state");
    static final long QA_PATH_MTU = off(QP_ATTR, "path_mtu");
    static final long QA_PATH_MIG_STATE = off(QP_ATTR, "path_mig_state");
    static final long QA_QKEY = off(QP_ATTR, "qkey");
    static final long QA_RQ_PSN = off(QP_ATTR, "rq_psn");
    static final long QA_SQ_PSN = off(QP_ATTR, "sq_psn");
    static final long QA_DEST_QP_NUM = off(QP_ATTR, "dest_qp_num");
    static final long QA_QP_ACCESS_FLAGS = off(QP_ATTR, "qp_access_flags");
    static final long QA_CAP = off(QP_ATTR, "cap");
    static final long QA_AH_ATTR = off(QP_ATTR, "ah_attr");
    static final long QA_ALT_AH_ATTR = off(QP_ATTR, "alt_ah_attr");
    static final long QA_PKEY_INDEX = off(QP_ATTR, "pkey_index");
    static final long QA_ALT_PKEY_INDEX = off(QP_ATTR, "alt_pkey_index");
    static final long QA_EN_SQD_ASYNC_NOTIFY = off(QP_ATTR, "en_sqd_async_notify");
    static final long QA_SQ_DRAINING = off(QP_ATTR, "sq_draining");
    static final long QA_MAX_RD_ATOMIC = off(QP_ATTR, "max_rd_atomic");
    static final long QA_MAX_DEST_RD_ATOMIC = off(QP_ATTR, "max_dest_rd_atomic");
    static final long QA_MIN_RNR_TIMER = off(QP_ATTR, "min_rnr_timer");
    static final long QA_PORT_NUM = off(QP_ATTR, "port_num");
    static final long QA_TIMEOUT = off(QP_ATTR, "timeout");
    static final long QA_RETRY_CNT = off(QP_ATTR, "retry_cnt");
    static final long QA_RNR_RETRY = off(QP_ATTR, "rnr_retry");
    static final long QA_ALT_PORT_NUM = off(QP_ATTR, "alt_port_num");
    static final long QA_ALT_TIMEOUT = off(QP_ATTR, "alt_timeout");

    private QpStructs() {
    }
}
