package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.Structs.BYTE;
import static io.jrdma.ibverbs.Structs.INT;
import static io.jrdma.ibverbs.Structs.LONG;
import static io.jrdma.ibverbs.Structs.PTR;
import static io.jrdma.ibverbs.Structs.SHORT;
import static io.jrdma.ibverbs.Structs.off;
import static io.jrdma.ibverbs.Structs.pad;
import static io.jrdma.ibverbs.Structs.struct;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The data-path structs of {@code <infiniband/verbs.h>} (rdma-core 44, x86_64): work requests (ibv_send_wr with its
 * unions, ibv_recv_wr, ibv_sge), memory window binds and work completions (ibv_wc).
 */
final class WrStructs {

    /** struct ibv_sge. */
    static final StructLayout SGE = struct("ibv_sge",
            LONG.withName("addr"), INT.withName("length"), INT.withName("lkey"));

    static final long SGE_ADDR = off(SGE, "addr");
    static final long SGE_LENGTH = off(SGE, "length");
    static final long SGE_LKEY = off(SGE, "lkey");

    /** struct ibv_mw_bind_info. */
    static final StructLayout MW_BIND_INFO = struct("ibv_mw_bind_info",
            PTR.withName("mr"), LONG.withName("addr"), LONG.withName("length"), INT.withName("mw_access_flags"),
            pad(4));

    static final long BI_MR = off(MW_BIND_INFO, "mr");
    static final long BI_ADDR = off(MW_BIND_INFO, "addr");
    static final long BI_LENGTH = off(MW_BIND_INFO, "length");
    static final long BI_MW_ACCESS_FLAGS = off(MW_BIND_INFO, "mw_access_flags");

    /** struct ibv_send_wr; its anonymous unions are "$imm" (imm_data, invalidate_rkey) and "$ops" (bind_mw, tso). */
    static final StructLayout SEND_WR = struct("ibv_send_wr",
            LONG.withName("wr_id"), PTR.withName("next"), PTR.withName("sg_list"), INT.withName("num_sge"),
            INT.withName("opcode"), INT.withName("send_flags"),
            MemoryLayout.unionLayout(INT.withName("imm_data"), INT.withName("invalidate_rkey")).withName("$imm"),
            MemoryLayout.unionLayout(
                    struct("rdma", LONG.withName("remote_addr"), INT.withName("rkey"), pad(4)),
                    struct("atomic", LONG.withName("remote_addr"), LONG.withName("compare_add"),
                            LONG.withName("swap"), INT.withName("rkey"), pad(4)),
                    struct("ud", PTR.withName("ah"), INT.withName("remote_qpn"), INT.withName("remote_qkey")))
                    .withName("wr"),
            MemoryLayout.unionLayout(struct("xrc", INT.withName("remote_srqn"))).withName("qp_type"), pad(4),
            MemoryLayout.unionLayout(
                    struct("bind_mw", PTR.withName("mw"), INT.withName("rkey"), pad(4),
                            MW_BIND_INFO.withName("bind_info")),
                    struct("tso", PTR.withName("hdr"), SHORT.withName("hdr_sz"), SHORT.withName("mss"), pad(4)))
                    .withName("$ops"));

    static final long SWR_WR_ID = off(SEND_WR, "wr_id");
    static final long SWR_NEXT = off(SEND_WR, "next");
    static final long SWR_SG_LIST = off(SEND_WR, "sg_list");
    static final long SWR_NUM_SGE = off(SEND_WR, "num_sge");
    static final long SWR_OPCODE = off(SEND_WR, "opcode");
    static final long SWR_SEND_FLAGS = off(SEND_WR, "send_flags");
    static final long SWR_IMM_DATA = off(SEND_WR, "$imm.imm_data");
    static final long SWR_INVALIDATE_RKEY = off(SEND_WR, "$imm.invalidate_rkey");
    static final long SWR_WR = off(SEND_WR, "wr");
    static final long SWR_RDMA_REMOTE_ADDR = off(SEND_WR, "wr.rdma.remote_addr");
    static final long SWR_RDMA_RKEY = off(SEND_WR, "wr.rdma.rkey");
    static final long SWR_ATOMIC_REMOTE_ADDR = off(SEND_WR, "wr.atomic.remote_addr");
    static final long SWR_ATOMIC_COMPARE_ADD = off(SEND_WR, "wr.atomic.compare_add");
    static final long SWR_ATOMIC_SWAP = off(SEND_WR, "wr.atomic.swap");
    static final long SWR_ATOMIC_RKEY = off(SEND_WR, "wr.atomic.rkey");
    static final long SWR_UD_AH = off(SEND_WR, "wr.ud.ah");
    static final long SWR_UD_REMOTE_QPN = off(SEND_WR, "wr.ud.remote_qpn");
    static final long SWR_UD_REMOTE_QKEY = off(SEND_WR, "wr.ud.remote_qkey");
    static final long SWR_BIND_MW_MW = off(SEND_WR, "$ops.bind_mw.mw");
    static final long SWR_BIND_MW_RKEY = off(SEND_WR, "$ops.bind_mw.rkey");
    static final long SWR_BIND_MW_INFO = off(SEND_WR, "$ops.bind_mw.bind_info");

    /** struct ibv_recv_wr. */
    static final StructLayout RECV_WR = struct("ibv_recv_wr",
            LONG.withName("wr_id"), PTR.withName("next"), PTR.withName("sg_list"), INT.withName("num_sge"), pad(4));

    static final long RWR_WR_ID = off(RECV_WR, "wr_id");
    static final long RWR_NEXT = off(RECV_WR, "next");
    static final long RWR_SG_LIST = off(RECV_WR, "sg_list");
    static final long RWR_NUM_SGE = off(RECV_WR, "num_sge");

    /** struct ibv_mw_bind (ibv_bind_mw, type 1 windows). */
    static final StructLayout MW_BIND = struct("ibv_mw_bind",
            LONG.withName("wr_id"), INT.withName("send_flags"), pad(4), MW_BIND_INFO.withName("bind_info"));

    static final long MWB_WR_ID = off(MW_BIND, "wr_id");
    static final long MWB_SEND_FLAGS = off(MW_BIND, "send_flags");
    static final long MWB_BIND_INFO = off(MW_BIND, "bind_info");

    /** struct ibv_wc; its anonymous union is "$imm" (imm_data, invalidated_rkey). */
    static final StructLayout WC = struct("ibv_wc",
            LONG.withName("wr_id"), INT.withName("status"), INT.withName("opcode"), INT.withName("vendor_err"),
            INT.withName("byte_len"),
            MemoryLayout.unionLayout(INT.withName("imm_data"), INT.withName("invalidated_rkey")).withName("$imm"),
            INT.withName("qp_num"), INT.withName("src_qp"), INT.withName("wc_flags"), SHORT.withName("pkey_index"),
            SHORT.withName("slid"), BYTE.withName("sl"), BYTE.withName("dlid_path_bits"), pad(2));

    static final long WC_WR_ID = off(WC, "wr_id");
    static final long WC_STATUS = off(WC, "status");
    static final long WC_OPCODE = off(WC, "opcode");
    static final long WC_VENDOR_ERR = off(WC, "vendor_err");
    static final long WC_BYTE_LEN = off(WC, "byte_len");
    static final long WC_IMM_DATA = off(WC, "$imm.imm_data");
    static final long WC_INVALIDATED_RKEY = off(WC, "$imm.invalidated_rkey");
    static final long WC_QP_NUM = off(WC, "qp_num");
    static final long WC_SRC_QP = off(WC, "src_qp");
    static final long WC_WC_FLAGS = off(WC, "wc_flags");
    static final long WC_PKEY_INDEX = off(WC, "pkey_index");
    static final long WC_SLID = off(WC, "slid");
    static final long WC_SL = off(WC, "sl");
    static final long WC_DLID_PATH_BITS = off(WC, "dlid_path_bits");

    private WrStructs() {
    }
}
