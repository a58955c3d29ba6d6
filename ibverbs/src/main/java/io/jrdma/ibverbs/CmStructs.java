package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.Structs.BYTE;
import static io.jrdma.ibverbs.Structs.GID;
import static io.jrdma.ibverbs.Structs.INT;
import static io.jrdma.ibverbs.Structs.PTR;
import static io.jrdma.ibverbs.Structs.SHORT;
import static io.jrdma.ibverbs.Structs.off;
import static io.jrdma.ibverbs.Structs.pad;
import static io.jrdma.ibverbs.Structs.struct;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;

/**
 * The structs of {@code <rdma/rdma_cma.h>} (librdmacm, rdma-core 44, x86_64) the native connection manager reads
 * and writes: rdma_event_channel, rdma_cm_id with its route and addresses, rdma_conn_param, rdma_ud_param and
 * rdma_cm_event. The socket addresses are glibc's (sockaddr_in 16 bytes, sockaddr_in6 28, sockaddr_storage 128).
 */
final class CmStructs {

    /** AF_INET. */
    static final int AF_INET = 2;
    /** AF_INET6. */
    static final int AF_INET6 = 10;

    /** struct sockaddr_in: family, big-endian port and IPv4 address. */
    static final StructLayout SOCKADDR_IN = struct("sockaddr_in",
            SHORT.withName("sin_family"), SHORT.withName("sin_port"),
            MemoryLayout.structLayout(INT.withName("s_addr")).withName("sin_addr"),
            MemoryLayout.sequenceLayout(8, BYTE).withName("sin_zero"));

    /** struct sockaddr_in6: family, big-endian port, flow info, IPv6 address and scope id. */
    static final StructLayout SOCKADDR_IN6 = struct("sockaddr_in6",
            SHORT.withName("sin6_family"), SHORT.withName("sin6_port"), INT.withName("sin6_flowinfo"),
            MemoryLayout.sequenceLayout(16, BYTE).withName("sin6_addr"), INT.withName("sin6_scope_id"));

    /** The anonymous union of struct rdma_addr's source or destination address, named {@code prefix}_addr etc. */
    private static UnionLayout address(String prefix, String name) {
        return MemoryLayout.unionLayout(
                MemoryLayout.sequenceLayout(16, BYTE).withName(prefix + "_addr"),
                SOCKADDR_IN.withName(prefix + "_sin"), SOCKADDR_IN6.withName(prefix + "_sin6"),
                MemoryLayout.structLayout(SHORT.withName("ss_family"), pad(118), Structs.LONG.withName("__ss_align"))
                        .withName(prefix + "_storage")).withName(name);
    }

    /** struct rdma_addr: source and destination socket addresses, then the IB addresses (GIDs, P_Key). */
    static final StructLayout ADDR = struct("rdma_addr", address("src", "$src"), address("dst", "$dst"),
            MemoryLayout.unionLayout(struct("rdma_ib_addr", GID.withName("sgid"), GID.withName("dgid"),
                    SHORT.withName("pkey"), pad(6)).withName("ibaddr")).withName("addr"));

    /** struct rdma_route. */
    static final StructLayout ROUTE = struct("rdma_route",
            ADDR.withName("addr"), PTR.withName("path_rec"), INT.withName("num_paths"), pad(4));

    /** struct rdma_event_channel: the fd of /dev/infiniband/rdma_cm. */
    static final StructLayout EVENT_CHANNEL = struct("rdma_event_channel", INT.withName("fd"));

    static final long CHANNEL_FD = off(EVENT_CHANNEL, "fd");

    /** struct rdma_cm_id. */
    static final StructLayout CM_ID = struct("rdma_cm_id",
            PTR.withName("verbs"), PTR.withName("channel"), PTR.withName("context"), PTR.withName("qp"),
            ROUTE.withName("route"), INT.withName("ps"), BYTE.withName("port_num"), pad(3), PTR.withName("event"),
            PTR.withName("send_cq_channel"), PTR.withName("send_cq"), PTR.withName("recv_cq_channel"),
            PTR.withName("recv_cq"), PTR.withName("srq"), PTR.withName("pd"), INT.withName("qp_type"), pad(4));

    static final long ID_VERBS = off(CM_ID, "verbs");
    static final long ID_CHANNEL = off(CM_ID, "channel");
    static final long ID_CONTEXT = off(CM_ID, "context");
    static final long ID_QP = off(CM_ID, "qp");
    static final long ID_SRC_ADDR = off(CM_ID, "route.addr.$src.src_addr");
    static final long ID_DST_ADDR = off(CM_ID, "route.addr.$dst.dst_addr");
    static final long ID_PS = off(CM_ID, "ps");
    static final long ID_PORT_NUM = off(CM_ID, "port_num");
    static final long ID_QP_TYPE = off(CM_ID, "qp_type");

    /** struct rdma_conn_param. */
    static final StructLayout CONN_PARAM = struct("rdma_conn_param",
            PTR.withName("private_data"), BYTE.withName("private_data_len"), BYTE.withName("responder_resources"),
            BYTE.withName("initiator_depth"), BYTE.withName("flow_control"), BYTE.withName("retry_count"),
            BYTE.withName("rnr_retry_count"), BYTE.withName("srq"), pad(1), INT.withName("qp_num"), pad(4));

    static final long CP_PRIVATE_DATA = off(CONN_PARAM, "private_data");
    static final long CP_PRIVATE_DATA_LEN = off(CONN_PARAM, "private_data_len");
    static final long CP_RESPONDER_RESOURCES = off(CONN_PARAM, "responder_resources");
    static final long CP_INITIATOR_DEPTH = off(CONN_PARAM, "initiator_depth");
    static final long CP_FLOW_CONTROL = off(CONN_PARAM, "flow_control");
    static final long CP_RETRY_COUNT = off(CONN_PARAM, "retry_count");
    static final long CP_RNR_RETRY_COUNT = off(CONN_PARAM, "rnr_retry_count");
    static final long CP_SRQ = off(CONN_PARAM, "srq");
    static final long CP_QP_NUM = off(CONN_PARAM, "qp_num");

    /** struct rdma_ud_param. */
    static final StructLayout UD_PARAM = struct("rdma_ud_param",
            PTR.withName("private_data"), BYTE.withName("private_data_len"), pad(7),
            QpStructs.AH_ATTR.withName("ah_attr"), INT.withName("qp_num"), INT.withName("qkey"));

    static final long UD_PRIVATE_DATA = off(UD_PARAM, "private_data");
    static final long UD_PRIVATE_DATA_LEN = off(UD_PARAM, "private_data_len");
    static final long UD_AH_ATTR = off(UD_PARAM, "ah_attr");
    static final long UD_QP_NUM = off(UD_PARAM, "qp_num");
    static final long UD_QKEY = off(UD_PARAM, "qkey");

    /** struct rdma_cm_event. */
    static final StructLayout CM_EVENT = struct("rdma_cm_event",
            PTR.withName("id"), PTR.withName("listen_id"), INT.withName("event"), INT.withName("status"),
            MemoryLayout.unionLayout(CONN_PARAM.withName("conn"), UD_PARAM.withName("ud")).withName("param"));

    static final long EV_ID = off(CM_EVENT, "id");
    static final long EV_LISTEN_ID = off(CM_EVENT, "listen_id");
    static final long EV_EVENT = off(CM_EVENT, "event");
    static final long EV_STATUS = off(CM_EVENT, "status");
    static final long EV_PARAM = off(CM_EVENT, "param");

    private CmStructs() {
    }
}
