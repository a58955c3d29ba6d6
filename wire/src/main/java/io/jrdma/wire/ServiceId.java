package io.jrdma.wire;

/**
 * Service ids of the kernel's rdma_cm (IBA annex A11; the kernel's rdma_get_service_id): for an IP address the
 * service id is {@code port_space << 16 | port}, and every port space has the 0x01 prefix in byte 4, so the id
 * of TCP port 7174 is 0x0000000001061C06.
 */
public final class ServiceId {
    /** Port space of IPoIB (RDMA_PS_IPOIB). */
    public static final int PS_IPOIB = 0x0002;
    /** Port space of connected (RC) rdma_cm ids (RDMA_PS_TCP). */
    public static final int PS_TCP = 0x0106;
    /** Port space of datagram (UD, SIDR) rdma_cm ids (RDMA_PS_UDP). */
    public static final int PS_UDP = 0x0111;
    /** Port space of ids that choose their QP type (RDMA_PS_IB). */
    public static final int PS_IB = 0x013F;
    /** The prefix every IP-based rdma_cm service id has (IB_CMA_SERVICE_ID). */
    public static final long CMA_PREFIX = 0x0000_0000_0100_0000L;
    /** The bits {@link #CMA_PREFIX} covers (IB_CMA_SERVICE_ID_MASK). */
    public static final long CMA_PREFIX_MASK = 0xFFFF_FFFF_FF00_0000L;

    private ServiceId() {
    }

    /** The service id of {@code port} (16 bits) in the port space {@code ps} (16 bits). */
    public static long of(int ps, int port) {
        return (long) (ps & 0xFFFF) << 16 | port & 0xFFFF;
    }

    /** True when {@code sid} is an IP-based rdma_cm service id (prefix 0x0000000001). */
    public static boolean isRdmaCm(long sid) {
        return (sid & CMA_PREFIX_MASK) == CMA_PREFIX;
    }

    /** The port space of an rdma_cm service id (bits 16..31). */
    public static int portSpace(long sid) {
        return (int) (sid >>> 16) & 0xFFFF;
    }

    /** The port of an rdma_cm service id (the low 16 bits). */
    public static int port(long sid) {
        return (int) sid & 0xFFFF;
    }
}
