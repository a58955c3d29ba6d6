package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.Structs.BYTE;
import static io.jrdma.ibverbs.Structs.COND;
import static io.jrdma.ibverbs.Structs.INT;
import static io.jrdma.ibverbs.Structs.LONG;
import static io.jrdma.ibverbs.Structs.MUTEX;
import static io.jrdma.ibverbs.Structs.PTR;
import static io.jrdma.ibverbs.Structs.SHORT;
import static io.jrdma.ibverbs.Structs.off;
import static io.jrdma.ibverbs.Structs.pad;
import static io.jrdma.ibverbs.Structs.struct;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The device-level structs of {@code <infiniband/verbs.h>} (rdma-core 44, x86_64): ibv_context and its ops table,
 * the query results, and the small resource structs (PD, MR, MW, AH, CQ, completion channel, async event).
 */
final class ContextStructs {

    /** struct ibv_context_ops: the function pointers verbs.h's static inline data-path verbs call through. */
    static final StructLayout CONTEXT_OPS = struct("ibv_context_ops",
            PTR.withName("_compat_query_device"), PTR.withName("_compat_query_port"),
            PTR.withName("_compat_alloc_pd"), PTR.withName("_compat_dealloc_pd"), PTR.withName("_compat_reg_mr"),
            PTR.withName("_compat_rereg_mr"), PTR.withName("_compat_dereg_mr"), PTR.withName("alloc_mw"),
            PTR.withName("bind_mw"), PTR.withName("dealloc_mw"), PTR.withName("_compat_create_cq"),
            PTR.withName("poll_cq"), PTR.withName("req_notify_cq"), PTR.withName("_compat_cq_event"),
            PTR.withName("_compat_resize_cq"), PTR.withName("_compat_destroy_cq"),
            PTR.withName("_compat_create_srq"), PTR.withName("_compat_modify_srq"),
            PTR.withName("_compat_query_srq"), PTR.withName("_compat_destroy_srq"), PTR.withName("post_srq_recv"),
            PTR.withName("_compat_create_qp"), PTR.withName("_compat_query_qp"), PTR.withName("_compat_modify_qp"),
            PTR.withName("_compat_destroy_qp"), PTR.withName("post_send"), PTR.withName("post_recv"),
            PTR.withName("_compat_create_ah"), PTR.withName("_compat_destroy_ah"),
            PTR.withName("_compat_attach_mcast"), PTR.withName("_compat_detach_mcast"),
            PTR.withName("_compat_async_event"));

    /** struct ibv_context. */
    static final StructLayout CONTEXT = struct("ibv_context",
            PTR.withName("device"), CONTEXT_OPS.withName("ops"), INT.withName("cmd_fd"), INT.withName("async_fd"),
            INT.withName("num_comp_vectors"), pad(4), MUTEX.withName("mutex"), PTR.withName("abi_compat"));

    static final long CONTEXT_DEVICE = off(CONTEXT, "device");
    static final long CONTEXT_CMD_FD = off(CONTEXT, "cmd_fd");
    static final long CONTEXT_ASYNC_FD = off(CONTEXT, "async_fd");
    static final long OPS_ALLOC_MW = off(CONTEXT, "ops.alloc_mw");
    static final long OPS_BIND_MW = off(CONTEXT, "ops.bind_mw");
    static final long OPS_DEALLOC_MW = off(CONTEXT, "ops.dealloc_mw");
    static final long OPS_POLL_CQ = off(CONTEXT, "ops.poll_cq");
    static final long OPS_REQ_NOTIFY_CQ = off(CONTEXT, "ops.req_notify_cq");
    static final long OPS_POST_SRQ_RECV = off(CONTEXT, "ops.post_srq_recv");
    static final long OPS_POST_SEND = off(CONTEXT, "ops.post_send");
    static final long OPS_POST_RECV = off(CONTEXT, "ops.post_recv");

    /** struct ibv_device_attr (ibv_query_device). */
    static final StructLayout DEVICE_ATTR = struct("ibv_device_attr",
            MemoryLayout.sequenceLayout(64, BYTE).withName("fw_ver"), LONG.withName("node_guid"),
            LONG.withName("sys_image_guid"), LONG.withName("max_mr_size"), LONG.withName("page_size_cap"),
            INT.withName("vendor_id"), INT.withName("vendor_part_id"), INT.withName("hw_ver"),
            INT.withName("max_qp"), INT.withName("max_qp_wr"), INT.withName("device_cap_flags"),
            INT.withName("max_sge"), INT.withName("max_sge_rd"), INT.withName("max_cq"), INT.withName("max_cqe"),
            INT.withName("max_mr"), INT.withName("max_pd"), INT.withName("max_qp_rd_atom"),
            INT.withName("max_ee_rd_atom"), INT.withName("max_res_rd_atom"), INT.withName("max_qp_init_rd_atom"),
            INT.withName("max_ee_init_rd_atom"), INT.withName("atomic_cap"), INT.withName("max_ee"),
            INT.withName("max_rdd"), INT.withName("max_mw"), INT.withName("max_raw_ipv6_qp"),
            INT.withName("max_raw_ethy_qp"), INT.withName("max_mcast_grp"), INT.withName("max_mcast_qp_attach"),
            INT.withName("max_total_mcast_qp_attach"), INT.withName("max_ah"), INT.withName("max_fmr"),
            INT.withName("max_map_per_fmr"), INT.withName("max_srq"), INT.withName("max_srq_wr"),
            INT.withName("max_srq_sge"), SHORT.withName("max_pkeys"), BYTE.withName("local_ca_ack_delay"),
            BYTE.withName("phys_port_cnt"), pad(4));

    static final long DA_FW_VER = off(DEVICE_ATTR, "fw_ver");
    static final long DA_NODE_GUID = off(DEVICE_ATTR, "node_guid");
    static final long DA_SYS_IMAGE_GUID = off(DEVICE_ATTR, "sys_image_guid");
    static final long DA_MAX_MR_SIZE = off(DEVICE_ATTR, "max_mr_size");
    static final long DA_PAGE_SIZE_CAP = off(DEVICE_ATTR, "page_size_cap");
    static final long DA_VENDOR_ID = off(DEVICE_ATTR, "vendor_id");
    static final long DA_VENDOR_PART_ID = off(DEVICE_ATTR, "vendor_part_id");
    static final long DA_HW_VER = off(DEVICE_ATTR, "hw_ver");
    static final long DA_MAX_QP = off(DEVICE_ATTR, "max_qp");
    static final long DA_MAX_QP_WR = off(DEVICE_ATTR, "max_qp_wr");
    static final long DA_DEVICE_CAP_FLAGS = off(DEVICE_ATTR, "device_cap_flags");
    static final long DA_MAX_SGE = off(DEVICE_ATTR, "max_sge");
    static final long DA_MAX_SGE_RD = off(DEVICE_ATTR, "max_sge_rd");
    static final long DA_MAX_CQ = off(DEVICE_ATTR, "max_cq");
    static final long DA_MAX_CQE = off(DEVICE_ATTR, "max_cqe");
    static final long DA_MAX_MR = off(DEVICE_ATTR, "max_mr");
    static final long DA_MAX_PD = off(DEVICE_ATTR, "max_pd");
    static final long DA_MAX_QP_RD_ATOM = off(DEVICE_ATTR, "max_qp_rd_atom");
    static final long DA_MAX_RES_RD_ATOM = off(DEVICE_ATTR, "max_res_rd_atom");
    static final long DA_MAX_QP_INIT_RD_ATOM = off(DEVICE_ATTR, "max_qp_init_rd_atom");
    static final long DA_ATOMIC_CAP = off(DEVICE_ATTR, "atomic_cap");
    static final long DA_MAX_MW = off(DEVICE_ATTR, "max_mw");
    static final long DA_MAX_AH = off(DEVICE_ATTR, "max_ah");
    static final long DA_MAX_SRQ = off(DEVICE_ATTR, "max_srq");
    static final long DA_MAX_SRQ_WR = off(DEVICE_ATTR, "max_srq_wr");
    static final long DA_MAX_SRQ_SGE = off(DEVICE_ATTR, "max_srq_sge");
    static final long DA_MAX_PKEYS = off(DEVICE_ATTR, "max_pkeys");
    static final long DA_LOCAL_CA_ACK_DELAY = off(DEVICE_ATTR, "local_ca_ack_delay");
    static final long DA_PHYS_PORT_CNT = off(DEVICE_ATTR, "phys_port_cnt");

    /**
     * struct ibv_port_attr. The exported ibv_query_port fills the first 48 bytes (its _compat_ibv_port_attr, up to
     * {@code flags}); verbs.h's inline wrapper would reach the provider's query_port for {@code port_cap_flags2},
     * which jrdma does not report.
     */
    static final StructLayout PORT_ATTR = struct("ibv_port_attr",
            INT.withName("state"), INT.withName("max_mtu"), INT.withName("active_mtu"), INT.withName("gid_tbl_len"),
            INT.withName("port_cap_flags"), INT.withName("max_msg_sz"), INT.withName("bad_pkey_cntr"),
            INT.withName("qkey_viol_cntr"), SHORT.withName("pkey_tbl_len"), SHORT.withName("lid"),
            SHORT.withName("sm_lid"), BYTE.withName("lmc"), BYTE.withName("max_vl_num"), BYTE.withName("sm_sl"),
            BYTE.withName("subnet_timeout"), BYTE.withName("init_type_reply"), BYTE.withName("active_width"),
            BYTE.withName("active_speed"), BYTE.withName("phys_state"), BYTE.withName("link_layer"),
            BYTE.withName("flags"), SHORT.withName("port_cap_flags2"), pad(2));

    static final long PA_STATE = off(PORT_ATTR, "state");
    static final long PA_MAX_MTU = off(PORT_ATTR, "max_mtu");
    static final long PA_ACTIVE_MTU = off(PORT_ATTR, "active_mtu");
    static final long PA_GID_TBL_LEN = off(PORT_ATTR, "gid_tbl_len");
    static final long PA_PORT_CAP_FLAGS = off(PORT_ATTR, "port_cap_flags");
    static final long PA_MAX_MSG_SZ = off(PORT_ATTR, "max_msg_sz");
    static final long PA_PKEY_TBL_LEN = off(PORT_ATTR, "pkey_tbl_len");
    static final long PA_LID = off(PORT_ATTR, "lid");
    static final long PA_SM_LID = off(PORT_ATTR, "sm_lid");
    static final long PA_LMC = off(PORT_ATTR, "lmc");
    static final long PA_MAX_VL_NUM = off(PORT_ATTR, "max_vl_num");
    static final long PA_SM_SL = off(PORT_ATTR, "sm_sl");
    static final long PA_ACTIVE_WIDTH = off(PORT_ATTR, "active_width");
    static final long PA_ACTIVE_SPEED = off(PORT_ATTR, "active_speed");
    static final long PA_PHYS_STATE = off(PORT_ATTR, "phys_state");
    static final long PA_LINK_LAYER = off(PORT_ATTR, "link_layer");

    /** struct ibv_async_event: the element (a CQ, QP, SRQ or WQ pointer, or a port number) and the type. */
    static final StructLayout ASYNC_EVENT = struct("ibv_async_event",
            MemoryLayout.unionLayout(PTR.withName("cq"), PTR.withName("qp"), PTR.withName("srq"),
                    PTR.withName("wq"), INT.withName("port_num")).withName("element"),
            INT.withName("event_type"), pad(4));

    static final long AE_ELEMENT = off(ASYNC_EVENT, "element");
    static final long AE_EVENT_TYPE = off(ASYNC_EVENT, "event_type");

    /** struct ibv_comp_channel. */
    static final StructLayout COMP_CHANNEL = struct("ibv_comp_channel",
            PTR.withName("context"), INT.withName("fd"), INT.withName("refcnt"));

    static final long CHANNEL_CONTEXT = off(COMP_CHANNEL, "context");
    static final long CHANNEL_FD = off(COMP_CHANNEL, "fd");

    /** struct ibv_pd. */
    static final StructLayout PD = struct("ibv_pd", PTR.withName("context"), INT.withName("handle"), pad(4));

    static final long PD_CONTEXT = off(PD, "context");

    /** struct ibv_mr. */
    static final StructLayout MR = struct("ibv_mr",
            PTR.withName("context"), PTR.withName("pd"), PTR.withName("addr"), LONG.withName("length"),
            INT.withName("handle"), INT.withName("lkey"), INT.withName("rkey"), pad(4));

    static final long MR_CONTEXT = off(MR, "context");
    static final long MR_PD = off(MR, "pd");
    static final long MR_ADDR = off(MR, "addr");
    static final long MR_LENGTH = off(MR, "length");
    static final long MR_LKEY = off(MR, "lkey");
    static final long MR_RKEY = off(MR, "rkey");

    /** struct ibv_mw. */
    static final StructLayout MW = struct("ibv_mw",
            PTR.withName("context"), PTR.withName("pd"), INT.withName("rkey"), INT.withName("handle"),
            INT.withName("type"), pad(4));

    static final long MW_CONTEXT = off(MW, "context");
    static final long MW_PD = off(MW, "pd");
    static final long MW_RKEY = off(MW, "rkey");
    static final long MW_TYPE = off(MW, "type");

    /** struct ibv_ah. */
    static final StructLayout AH = struct("ibv_ah",
            PTR.withName("context"), PTR.withName("pd"), INT.withName("handle"), pad(4));

    static final long AH_CONTEXT = off(AH, "context");
    static final long AH_PD = off(AH, "pd");

    /** struct ibv_cq. */
    static final StructLayout CQ = struct("ibv_cq",
            PTR.withName("context"), PTR.withName("channel"), PTR.withName("cq_context"), INT.withName("handle"),
            INT.withName("cqe"), MUTEX.withName("mutex"), COND.withName("cond"),
            INT.withName("comp_events_completed"), INT.withName("async_events_completed"));

    static final long CQ_CONTEXT = off(CQ, "context");
    static final long CQ_CHANNEL = off(CQ, "channel");
    static final long CQ_CQ_CONTEXT = off(CQ, "cq_context");
    static final long CQ_CQE = off(CQ, "cqe");

    private ContextStructs() {
    }
}
