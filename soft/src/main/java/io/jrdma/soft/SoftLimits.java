package io.jrdma.soft;

import io.jrdma.verbs.DeviceCapFlags;

/** The soft device's limits: what {@code queryDevice} reports and what the verbs enforce. */
final class SoftLimits {
    static final int MAX_QP = 4096;
    static final int QPN_BASE = 17; // QPN 0 and 1 are special (SMI, GSI); rxe's first QP is 17 too
    static final int MAX_QP_WR = 16384;
    static final int MAX_SGE = 32;
    static final int MAX_CQ = 4096;
    static final int MAX_CQE = 1 << 20;
    static final int MAX_MR = 1 << 16;
    static final int MAX_MW = 1 << 14;
    static final int MAX_PD = 4096;
    static final int MAX_RD_ATOMIC = 128;
    static final int MAX_INLINE = 256;
    static final long MAX_MSG_SIZE = 1L << 31;
    static final long MAX_MR_SIZE = Long.MAX_VALUE;
    static final int VENDOR_ID = 0xFFFFFF; // as rxe: no IEEE OUI
    static final int VENDOR_PART_ID = 0;
    static final int GID_TABLE_LENGTH = 2;
    static final int PKEY_DEFAULT = 0xFFFF;
    static final int MAX_PACKET = 12 + 28 + 4096 + 4 + 4 + 64; // headers, largest MTU, pad, ICRC, slack
    static final int MAX_SRQ = 960;             // rxe's RXE_MAX_SRQ
    static final int MAX_SRQ_WR = MAX_QP_WR;    // rxe: RXE_MAX_SRQ_WR = RXE_MAX_QP_WR
    static final int MAX_SRQ_SGE = 27;          // rxe's RXE_MAX_SRQ_SGE
    /**
     * The device capability flags: rxe's set, less what this device does not do (path migration, physical port
     * changes, fast-registration MRs, type 2A windows): bad P_Key/Q_Key counters, UD address vectors checked
     * against the port, port active events, a system image GUID, RNR NAK generation on RC, SRQ resize, and memory
     * windows of type 1 and 2B.
     */
    static final int DEVICE_CAP_FLAGS = DeviceCapFlags.BAD_PKEY_CNTR | DeviceCapFlags.BAD_QKEY_CNTR
            | DeviceCapFlags.UD_AV_PORT_ENFORCE | DeviceCapFlags.PORT_ACTIVE_EVENT | DeviceCapFlags.SYS_IMAGE_GUID
            | DeviceCapFlags.RC_RNR_NAK_GEN | DeviceCapFlags.SRQ_RESIZE | DeviceCapFlags.MEM_WINDOW
            | DeviceCapFlags.MEM_WINDOW_TYPE_2B;

    private SoftLimits() {
    }
}
