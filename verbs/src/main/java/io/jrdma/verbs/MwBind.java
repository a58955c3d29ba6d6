package io.jrdma.verbs;

/** A type 1 window bind request (ibv_mw_bind): posted on a QP's send queue by {@link QueuePair#bindMw}. */
public final class MwBind {

    private long wrId;
    private int sendFlags;
    private final MwBindInfo bindInfo = new MwBindInfo();

    /** Zero id and flags, an empty bind (unbind). */
    public MwBind() {
    }

    /** The id of the completion (ibv_mw_bind.wr_id). */
    public long wrId() {
        return wrId;
    }

    /** Sets the id; returns this. */
    public MwBind wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** {@link SendFlags} bits: SIGNALED asks for a completion, FENCE orders it after earlier reads/atomics. */
    public int sendFlags() {
        return sendFlags;
    }

    /** Sets the send flags; returns this. */
    public MwBind sendFlags(int sendFlags) {
        this.sendFlags = sendFlags;
        return this;
    }

    /** This request's bind information, changed in place. */
    public MwBindInfo bindInfo() {
        return bindInfo;
    }
}
