package io.jrdma.verbs;

/**
 * Access flags (ibv_access_flags) for memory regions (ibv_reg_mr), memory windows and QPs
 * (ibv_qp_attr.qp_access_flags); the values are libibverbs'. Local read access is always granted.
 */
public final class Access {

    /** IBV_ACCESS_LOCAL_WRITE: the device may write the memory locally (receives, read responses). */
    public static final int LOCAL_WRITE = 1;
    /** IBV_ACCESS_REMOTE_WRITE: peers may RDMA-write the memory; needs LOCAL_WRITE. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** IBV_ACCESS_REMOTE_READ: peers may RDMA-read the memory. */
    public static final int REMOTE_READ = 1 << 2;
    /** IBV_ACCESS_REMOTE_ATOMIC: peers may run atomics on the memory; needs LOCAL_WRITE. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** IBV_ACCESS_MW_BIND: memory windows may be bound to the region. */
    public static final int MW_BIND = 1 << 4;

    private static final String[] NAMES = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND"};

    private Access() {
    }

    /**
     * The flags as text, for example "LOCAL_WRITE|REMOTE_READ"; "0" for none; bits not defined here are appended
     * in hex.
     */
    public static String describe(int flags) {
        return describe(flags, NAMES);
    }

    /** Formats bit flags whose bit i is named names[i] (shared by SendFlags and WcFlags). */
    static String describe(int flags, String[] names) {
        if (flags == 0) {
            return "0";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(names[i]);
            }
        }
        int unknown = flags & ~((1 << names.length) - 1);
        if (unknown != 0) {
            sb.append(sb.isEmpty() ? "" : "|").append("0x").append(Integer.toHexString(unknown));
        }
        return sb.toString();
    }
}
