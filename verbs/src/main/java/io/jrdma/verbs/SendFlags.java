package io.jrdma.verbs;

/** Flags of a send work request (ibv_send_flags, ibv_send_wr.send_flags); the values are libibverbs'. */
public final class SendFlags {

    /** IBV_SEND_FENCE: wait for earlier RDMA reads and atomics of this QP to finish before starting. */
    public static final int FENCE = 1;
    /** IBV_SEND_SIGNALED: produce a completion even when the QP was created without sq_sig_all. */
    public static final int SIGNALED = 1 << 1;
    /** IBV_SEND_SOLICITED: set the solicited event bit, waking a peer armed for solicited completions. */
    public static final int SOLICITED = 1 << 2;
    /** IBV_SEND_INLINE: copy the data into the request when posting; lkeys are not checked. */
    public static final int INLINE = 1 << 3;

    private static final String[] NAMES = {"FENCE", "SIGNALED", "SOLICITED", "INLINE"};

    private SendFlags() {
    }

    /** The flags as text, for example "SIGNALED|INLINE"; "0" for none; other bits in hex. */
    public static String describe(int flags) {
        return Access.describe(flags, NAMES);
    }
}
