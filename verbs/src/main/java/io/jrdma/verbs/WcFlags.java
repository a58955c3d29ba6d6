package io.jrdma.verbs;

/** Flags of a work completion (ibv_wc_flags, ibv_wc.wc_flags); the values are libibverbs'. */
public final class WcFlags {

    /** IBV_WC_GRH: the first 40 bytes of the receive buffer hold the packet's GRH (UD). */
    public static final int GRH = 1;
    /** IBV_WC_WITH_IMM: {@link WorkCompletion#immData()} is valid. */
    public static final int WITH_IMM = 1 << 1;
    /** IBV_WC_IP_CSUM_OK: the device verified the IP checksum of the received packet. */
    public static final int IP_CSUM_OK = 1 << 2;
    /** IBV_WC_WITH_INV: {@link WorkCompletion#invalidatedRkey()} is valid (send with invalidate). */
    public static final int WITH_INV = 1 << 3;

    private static final String[] NAMES = {"GRH", "WITH_IMM", "IP_CSUM_OK", "WITH_INV"};

    private WcFlags() {
    }

    /** The flags as text, for example "GRH|WITH_IMM"; "0" for none; other bits in hex. */
    public static String describe(int flags) {
        return Access.describe(flags, NAMES);
    }
}
