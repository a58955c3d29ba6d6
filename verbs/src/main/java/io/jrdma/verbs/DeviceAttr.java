package io.jrdma.verbs;

/**
 * A device's capabilities and limits (ibv_device_attr, from ibv_query_device).
 *
 * @param fwVer           firmware version text (fw_ver)
 * @param nodeGuid        node GUID (node_guid), as a big-endian number
 * @param sysImageGuid    system image GUID (sys_image_guid)
 * @param maxMrSize       largest memory region in bytes (max_mr_size)
 * @param pageSizeCap     supported page sizes, one bit per power of two (page_size_cap)
 * @param vendorId        IEEE vendor id (vendor_id)
 * @param vendorPartId    vendor's part id (vendor_part_id)
 * @param hwVer           hardware version (hw_ver)
 * @param maxQp           most QPs (max_qp)
 * @param maxQpWr         most outstanding work requests per queue (max_qp_wr)
 * @param deviceCapFlags  ibv_device_cap_flags bits (device_cap_flags)
 * @param maxSge          most scatter/gather entries per send or receive request (max_sge)
 * @param maxSgeRd        most scatter entries per RDMA read request (max_sge_rd)
 * @param maxCq           most CQs (max_cq)
 * @param maxCqe          most entries per CQ (max_cqe)
 * @param maxMr           most memory regions (max_mr)
 * @param maxPd           most protection domains (max_pd)
 * @param maxQpRdAtom     most incoming RDMA reads and atomics outstanding per QP (max_qp_rd_atom)
 * @param maxQpInitRdAtom most outgoing RDMA reads and atomics outstanding per QP (max_qp_init_rd_atom)
 * @param maxResRdAtom    most responder resources for RDMA reads and atomics in total (max_res_rd_atom)
 * @param atomicCap       atomicity of atomic operations (atomic_cap)
 * @param maxMw           most memory windows (max_mw)
 * @param maxAh           most address handles (max_ah)
 * @param maxSrq          most shared receive queues (max_srq)
 * @param maxSrqWr        most work requests per SRQ (max_srq_wr)
 * @param maxSrqSge       most scatter entries per SRQ request (max_srq_sge)
 * @param maxPkeys        P_Key table length (max_pkeys)
 * @param localCaAckDelay local CA ACK delay exponent, 4.096 us * 2^value (local_ca_ack_delay)
 * @param physPortCnt     number of ports (phys_port_cnt)
 * @param maxInlineData   most inline data bytes per send request (max_inline_data of ibv_qp_cap; not in
 *                        ibv_device_attr, which does not report it)
 */
public record DeviceAttr(
        String fwVer,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hwVer,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int maxResRdAtom,
        AtomicCap atomicCap,
        int maxMw,
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int localCaAckDelay,
        int physPortCnt,
        int maxInlineData) {
}
