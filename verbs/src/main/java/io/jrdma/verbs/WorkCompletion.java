package io.jrdma.verbs;

/**
 * A work completion (ibv_wc): the outcome of one work request, filled by {@link CompletionQueue#poll}. Mutable and
 * reusable; the caller owns it and the provider overwrites every field on each fill.
 *
 * <p>Only {@link #wrId()}, {@link #status()}, {@link #qpNum()} and {@link #vendorErr()} are defined when the
 * status is not SUCCESS, as in libibverbs. libibverbs keeps imm_data and invalidated_rkey in a union; here each
 * has its own field, valid when {@link #wcFlags()} has {@link WcFlags#WITH_IMM} or {@link WcFlags#WITH_INV}.
 */
public final class WorkCompletion {

    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int vendorErr;
    private int byteLen;
    private int immData;
    private int invalidatedRkey;
    private int qpNum;
    private int srcQp;
    private int wcFlags;
    private int pkeyIndex;
    private int slid;
    private int sl;
    private int dlidPathBits;

    /** An empty completion: SUCCESS, SEND, every number 0. */
    public WorkCompletion() {
    }

    /**
     * Sets the fields every provider fills and zeroes the others (vendorErr, invalidatedRkey, pkeyIndex, slid, sl,
     * dlidPathBits); returns this.
     */
    public WorkCompletion fill(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int immData, int wcFlags,
            int qpNum, int srcQp) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.vendorErr = 0;
        this.byteLen = byteLen;
        this.immData = immData;
        this.invalidatedRkey = 0;
        this.qpNum = qpNum;
        this.srcQp = srcQp;
        this.wcFlags = wcFlags;
        this.pkeyIndex = 0;
        this.slid = 0;
        this.sl = 0;
        this.dlidPathBits = 0;
        return this;
    }

    /** Copies every field of {@code other}; returns this. */
    public WorkCompletion copyFrom(WorkCompletion other) {
        wrId = other.wrId;
        status = other.status;
        opcode = other.opcode;
        vendorErr = other.vendorErr;
        byteLen = other.byteLen;
        immData = other.immData;
        invalidatedRkey = other.invalidatedRkey;
        qpNum = other.qpNum;
        srcQp = other.srcQp;
        wcFlags = other.wcFlags;
        pkeyIndex = other.pkeyIndex;
        slid = other.slid;
        sl = other.sl;
        dlidPathBits = other.dlidPathBits;
        return this;
    }

    /** The id of the completed work request (ibv_wc.wr_id). */
    public long wrId() {
        return wrId;
    }

    /** Sets the work request id (ibv_wc.wr_id); returns this. */
    public WorkCompletion wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** The outcome (ibv_wc.status). */
    public WcStatus status() {
        return status;
    }

    /** Sets the outcome (ibv_wc.status); returns this. */
    public WorkCompletion status(WcStatus status) {
        this.status = status;
        return this;
    }

    /** What completed (ibv_wc.opcode); undefined unless the status is SUCCESS. */
    public WcOpcode opcode() {
        return opcode;
    }

    /** Sets what completed (ibv_wc.opcode); returns this. */
    public WorkCompletion opcode(WcOpcode opcode) {
        this.opcode = opcode;
        return this;
    }

    /** The provider's own error detail (ibv_wc.vendor_err). */
    public int vendorErr() {
        return vendorErr;
    }

    /** Sets the provider's error detail (ibv_wc.vendor_err); returns this. */
    public WorkCompletion vendorErr(int vendorErr) {
        this.vendorErr = vendorErr;
        return this;
    }

    /**
     * The bytes transferred (ibv_wc.byte_len): received bytes for receives (including the 40-byte GRH on UD),
     * the read or atomic response bytes for RDMA READ and atomics.
     */
    public int byteLen() {
        return byteLen;
    }

    /** Sets the bytes transferred (ibv_wc.byte_len); returns this. */
    public WorkCompletion byteLen(int byteLen) {
        this.byteLen = byteLen;
        return this;
    }

    /** The immediate data, valid with {@link WcFlags#WITH_IMM} (ibv_wc.imm_data). */
    public int immData() {
        return immData;
    }

    /** Sets the immediate data (ibv_wc.imm_data); returns this. */
    public WorkCompletion immData(int immData) {
        this.immData = immData;
        return this;
    }

    /** The rkey a SEND_WITH_INV invalidated, valid with {@link WcFlags#WITH_INV} (ibv_wc.invalidated_rkey). */
    public int invalidatedRkey() {
        return invalidatedRkey;
    }

    /** Sets the invalidated rkey (ibv_wc.invalidated_rkey); returns this. */
    public WorkCompletion invalidatedRkey(int invalidatedRkey) {
        this.invalidatedRkey = invalidatedRkey;
        return this;
    }

    /** The number of the local QP the request belonged to (ibv_wc.qp_num). */
    public int qpNum() {
        return qpNum;
    }

    /** Sets the local QP number (ibv_wc.qp_num); returns this. */
    public WorkCompletion qpNum(int qpNum) {
        this.qpNum = qpNum;
        return this;
    }

    /** The sender's QP number of a UD receive (ibv_wc.src_qp). */
    public int srcQp() {
        return srcQp;
    }

    /** Sets the sender's QP number (ibv_wc.src_qp); returns this. */
    public WorkCompletion srcQp(int srcQp) {
        this.srcQp = srcQp;
        return this;
    }

    /** The {@link WcFlags} bits (ibv_wc.wc_flags). */
    public int wcFlags() {
        return wcFlags;
    }

    /** Sets the {@link WcFlags} bits (ibv_wc.wc_flags); returns this. */
    public WorkCompletion wcFlags(int wcFlags) {
        this.wcFlags = wcFlags;
        return this;
    }

    /** The P_Key index of a UD receive (ibv_wc.pkey_index). */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /** Sets the P_Key index (ibv_wc.pkey_index); returns this. */
    public WorkCompletion pkeyIndex(int pkeyIndex) {
        this.pkeyIndex = pkeyIndex;
        return this;
    }

    /** The sender's LID of a UD receive (ibv_wc.slid); 0 on RoCE. */
    public int slid() {
        return slid;
    }

    /** Sets the sender's LID (ibv_wc.slid); returns this. */
    public WorkCompletion slid(int slid) {
        this.slid = slid;
        return this;
    }

    /** The service level of a UD receive (ibv_wc.sl). */
    public int sl() {
        return sl;
    }

    /** Sets the service level (ibv_wc.sl); returns this. */
    public WorkCompletion sl(int sl) {
        this.sl = sl;
        return this;
    }

    /** The destination LID path bits of a UD receive (ibv_wc.dlid_path_bits). */
    public int dlidPathBits() {
        return dlidPathBits;
    }

    /** Sets the destination LID path bits (ibv_wc.dlid_path_bits); returns this. */
    public WorkCompletion dlidPathBits(int dlidPathBits) {
        this.dlidPathBits = dlidPathBits;
        return this;
    }

    /** Whether the status is SUCCESS. */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("WorkCompletion{wrId=").append(wrId).append(", status=").append(status);
        if (status != null && status != WcStatus.SUCCESS) {
            sb.append(" (").append(status.message()).append("), vendorErr=").append(vendorErr);
        }
        sb.append(", opcode=").append(opcode).append(", byteLen=").append(Integer.toUnsignedString(byteLen))
                .append(", qpNum=0x").append(Integer.toHexString(qpNum));
        if (wcFlags != 0) {
            sb.append(", wcFlags=").append(WcFlags.describe(wcFlags));
        }
        if ((wcFlags & WcFlags.WITH_IMM) != 0) {
            sb.append(", immData=0x").append(Integer.toHexString(immData));
        }
        if ((wcFlags & WcFlags.WITH_INV) != 0) {
            sb.append(", invalidatedRkey=0x").append(Integer.toHexString(invalidatedRkey));
        }
        if (srcQp != 0) {
            sb.append(", srcQp=0x").append(Integer.toHexString(srcQp));
        }
        return sb.append('}').toString();
    }
}
