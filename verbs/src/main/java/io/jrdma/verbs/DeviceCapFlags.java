package io.jrdma.verbs;

/** Device capability bits of {@link DeviceAttr#deviceCapFlags()} (ibv_device_cap_flags); the values are libibverbs'. */
public final class DeviceCapFlags {

    /** IBV_DEVICE_RESIZE_MAX_WR: the device can resize the work queues of a QP. */
    public static final int RESIZE_MAX_WR = 1;
    /** IBV_DEVICE_BAD_PKEY_CNTR: the port counts P_Key violations. */
    public static final int BAD_PKEY_CNTR = 1 << 1;
    /** IBV_DEVICE_BAD_QKEY_CNTR: the port counts Q_Key violations. */
    public static final int BAD_QKEY_CNTR = 1 << 2;
    /** IBV_DEVICE_RAW_MULTI: raw packet multicast. */
    public static final int RAW_MULTI = 1 << 3;
    /** IBV_DEVICE_AUTO_PATH_MIG: automatic path migration. */
    public static final int AUTO_PATH_MIG = 1 << 4;
    /** IBV_DEVICE_CHANGE_PHY_PORT: a QP's port can be changed. */
    public static final int CHANGE_PHY_PORT = 1 << 5;
    /** IBV_DEVICE_UD_AV_PORT_ENFORCE: the port of a UD address handle is checked. */
    public static final int UD_AV_PORT_ENFORCE = 1 << 6;
    /** IBV_DEVICE_CURR_QP_STATE_MOD: modify QP honours cur_qp_state. */
    public static final int CURR_QP_STATE_MOD = 1 << 7;
    /** IBV_DEVICE_SHUTDOWN_PORT: a port can be shut down. */
    public static final int SHUTDOWN_PORT = 1 << 8;
    /** IBV_DEVICE_INIT_TYPE: InitType and InitTypeReply. */
    public static final int INIT_TYPE = 1 << 9;
    /** IBV_DEVICE_PORT_ACTIVE_EVENT: the device raises IBV_EVENT_PORT_ACTIVE. */
    public static final int PORT_ACTIVE_EVENT = 1 << 10;
    /** IBV_DEVICE_SYS_IMAGE_GUID: sys_image_guid is valid. */
    public static final int SYS_IMAGE_GUID = 1 << 11;
    /** IBV_DEVICE_RC_RNR_NAK_GEN: RC responders send RNR NAKs. */
    public static final int RC_RNR_NAK_GEN = 1 << 12;
    /** IBV_DEVICE_SRQ_RESIZE: shared receive queues can be resized. */
    public static final int SRQ_RESIZE = 1 << 13;
    /** IBV_DEVICE_N_NOTIFY_CQ: CQ notification for N completions. */
    public static final int N_NOTIFY_CQ = 1 << 14;
    /** IBV_DEVICE_MEM_WINDOW: memory windows ({@link ProtectionDomain#allocMw}). */
    public static final int MEM_WINDOW = 1 << 17;
    /** IBV_DEVICE_UD_IP_CSUM: IP checksum offload on UD. */
    public static final int UD_IP_CSUM = 1 << 18;
    /** IBV_DEVICE_XRC: extended reliable connection. */
    public static final int XRC = 1 << 20;
    /** IBV_DEVICE_MEM_MGT_EXTENSIONS: base memory management extensions (fast registration, invalidation). */
    public static final int MEM_MGT_EXTENSIONS = 1 << 21;
    /** IBV_DEVICE_MEM_WINDOW_TYPE_2A: type 2A windows (associated with a PD). */
    public static final int MEM_WINDOW_TYPE_2A = 1 << 23;
    /** IBV_DEVICE_MEM_WINDOW_TYPE_2B: type 2B windows (associated with the QP that bound them). */
    public static final int MEM_WINDOW_TYPE_2B = 1 << 24;
    /** IBV_DEVICE_RC_IP_CSUM: IP checksum offload on RC. */
    public static final int RC_IP_CSUM = 1 << 25;
    /** IBV_DEVICE_RAW_IP_CSUM: IP checksum offload on raw packet QPs. */
    public static final int RAW_IP_CSUM = 1 << 26;
    /** IBV_DEVICE_MANAGED_FLOW_STEERING: flow steering. */
    public static final int MANAGED_FLOW_STEERING = 1 << 29;

    private DeviceCapFlags() {
    }
}
