package io.jrdma.cm;

import io.jrdma.verbs.QpType;

/**
 * The port space of a CM id (enum rdma_port_space): which transport its connections use and which range of IBTA
 * service ids its ports map to (the kernel's service id is {@code code << 16 | port}: RDMA_PS_TCP port 7174 is
 * 0x0000000001061C06).
 */
public enum PortSpace {
    /** Reliable connections, TCP-like (RDMA_PS_TCP): REQ/REP/RTU, an RC QP. */
    TCP(0x0106, QpType.RC),
    /** Unreliable datagrams, UDP-like (RDMA_PS_UDP): SIDR_REQ/SIDR_REP, a UD QP with Q_Key 0x01234567. */
    UDP(0x0111, QpType.UD),
    /** Any QP type the application chooses (RDMA_PS_IB); connections as for TCP. */
    IB(0x013F, QpType.RC);

    /** The Q_Key rdma_cm gives UD QPs of the UDP port space (RDMA_UDP_QKEY). */
    public static final int UDP_QKEY = 0x01234567;

    private final int code;
    private final QpType qpType;

    PortSpace(int code, QpType qpType) {
        this.code = code;
        this.qpType = qpType;
    }

    /** The rdma_port_space value ({@code RDMA_PS_TCP} is 0x0106). */
    public int code() {
        return code;
    }

    /** The QP type a connection of this port space uses by default. */
    public QpType qpType() {
        return qpType;
    }

    /** The IBTA service id of {@code port} in this port space, as the kernel's rdma_cm forms it. */
    public long serviceId(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port " + port + " out of range 0..65535");
        }
        return (long) code << 16 | port;
    }

    /** The port space with this rdma_port_space value. */
    public static PortSpace of(int code) {
        for (PortSpace ps : values()) {
            if (ps.code == code) {
                return ps;
            }
        }
        throw new IllegalArgumentException("unknown port space 0x" + Integer.toHexString(code));
    }
}
