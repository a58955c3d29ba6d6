package io.jrdma.soft;

import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.DeviceAttr;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PortAttr;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.VerbsException;

/**
 * What ibv_query_device, ibv_query_port and ibv_query_gid report for a soft device: rxe's limits and capabilities
 * ({@link SoftLimits}), one RoCE port, and rxe's GID table (index 0 the link-local GID from the MAC, index 1 the
 * IPv4-mapped address).
 */
final class DeviceAttributes {

    private DeviceAttributes() {
    }

    static DeviceAttr device(SoftDevice device) {
        return new DeviceAttr("0.1.0", device.guid(), device.guid(), SoftLimits.MAX_MR_SIZE, 0xFFFFF000L,
                SoftLimits.VENDOR_ID, SoftLimits.VENDOR_PART_ID, 0, SoftLimits.MAX_QP, SoftLimits.MAX_QP_WR,
                SoftLimits.DEVICE_CAP_FLAGS,
                SoftLimits.MAX_SGE, SoftLimits.MAX_SGE, SoftLimits.MAX_CQ, SoftLimits.MAX_CQE, SoftLimits.MAX_MR,
                SoftLimits.MAX_PD, SoftLimits.MAX_RD_ATOMIC, SoftLimits.MAX_RD_ATOMIC,
                SoftLimits.MAX_RD_ATOMIC * SoftLimits.MAX_QP, AtomicCap.HCA, SoftLimits.MAX_MW, 0, SoftLimits.MAX_SRQ,
                SoftLimits.MAX_SRQ_WR, SoftLimits.MAX_SRQ_SGE, 1, 15, 1,
                SoftLimits.MAX_INLINE);
    }

    /** Port {@code port} (only 1 exists) in state {@code state}. */
    static PortAttr port(SoftDevice device, int port, PortState state) {
        checkPort(port);
        int physState = state == PortState.ACTIVE ? 5 : 3; // LinkUp, or Disabled while the port is down
        return new PortAttr(state, Mtu.MTU_4096, device.activeMtu(), SoftLimits.GID_TABLE_LENGTH, 0,
                SoftLimits.MAX_MSG_SIZE, 1, 0, 0, 0, 1, 0, 1, 1, physState, LinkLayer.ETHERNET);
    }

    static Gid gid(SoftDevice device, int port, int index) {
        checkPort(port);
        return switch (index) {
            case 0 -> device.linkLocalGid();
            case 1 -> device.ipv4Gid();
            default -> throw new VerbsException(Errno.EINVAL, "GID index " + index + " is out of range [0, "
                    + (SoftLimits.GID_TABLE_LENGTH - 1) + "]");
        };
    }

    private static void checkPort(int port) {
        if (port != 1) {
            throw new VerbsException(Errno.EINVAL, "port " + port + " does not exist (the device has port 1)");
        }
    }
}
