package io.jrdma.verbs;

/**
 * A send work request (ibv_send_wr): one SEND, RDMA WRITE, RDMA READ or atomic operation. Mutable and reusable:
 * posting copies it, so the same object may be changed and posted again at once.
 *
 * <p>libibverbs keeps imm_data/invalidate_rkey and the rdma/atomic/ud parts in unions; here each has its own
 * field, and the {@link #opcode()} and QP type say which ones count. Immediate data is the 32-bit value carried
 * big-endian in the ImmDt header, not a byte-swapped copy.
 */
public final class SendWr {

    private long wrId;
    private SendWr next;
    private Sge[] sgList;
    private int numSge;
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private int immData;
    private int invalidateRkey;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private int remoteQpn;
    private int remoteQkey;
    private AddressHandle ah;
    private MemoryWindow mw;
    private int bindRkey;
    private final MwBindInfo bindInfo = new MwBindInfo();

    /** An empty SEND request: every number 0, no next, no gather entries. */
    public SendWr() {
    }

    /** The caller's id, returned in the completion (ibv_send_wr.wr_id). */
    public long wrId() {
        return wrId;
    }

    /** Sets the caller's id (ibv_send_wr.wr_id); returns this. */
    public SendWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** The next request of the chain, or null (ibv_send_wr.next). */
    public SendWr next() {
        return next;
    }

    /** Sets the next request of the chain (ibv_send_wr.next); returns this. */
    public SendWr next(SendWr next) {
        this.next = next;
        return this;
    }

    /** The gather list (ibv_send_wr.sg_list); only the first {@link #numSge()} entries count. */
    public Sge[] sgList() {
        return sgList;
    }

    /** Sets the gather list (ibv_send_wr.sg_list), kept by reference; returns this. */
    public SendWr sgList(Sge[] sgList) {
        this.sgList = sgList;
        return this;
    }

    /** How many entries of {@link #sgList()} count (ibv_send_wr.num_sge). */
    public int numSge() {
        return numSge;
    }

    /** Sets how many entries of {@link #sgList()} count (ibv_send_wr.num_sge); returns this. */
    public SendWr numSge(int numSge) {
        this.numSge = numSge;
        return this;
    }

    /**
     * Uses {@code sges} as the gather list (the scatter list for RDMA READ), all of it; returns this. The array is
     * kept by reference; pass a prepared array (not a varargs list) to post without allocating.
     */
    public SendWr sg(Sge... sges) {
        this.sgList = sges;
        this.numSge = sges.length;
        return this;
    }

    /** The operation (ibv_send_wr.opcode); SEND initially. */
    public WrOpcode opcode() {
        return opcode;
    }

    /** Sets the operation (ibv_send_wr.opcode); returns this. */
    public SendWr opcode(WrOpcode opcode) {
        this.opcode = opcode;
        return this;
    }

    /** The {@link SendFlags} bits (ibv_send_wr.send_flags). */
    public int sendFlags() {
        return sendFlags;
    }

    /** Sets the {@link SendFlags} bits (ibv_send_wr.send_flags); returns this. */
    public SendWr sendFlags(int sendFlags) {
        this.sendFlags = sendFlags;
        return this;
    }

    /** Whether {@link SendFlags#SIGNALED} is set: the request completes with a work completion. */
    public boolean signaled() {
        return (sendFlags & SendFlags.SIGNALED) != 0;
    }

    /** Sets or clears {@link SendFlags#SIGNALED}; returns this. */
    public SendWr signaled(boolean signaled) {
        sendFlags = signaled ? sendFlags | SendFlags.SIGNALED : sendFlags & ~SendFlags.SIGNALED;
        return this;
    }

    /** The immediate data of *_WITH_IMM operations (ibv_send_wr.imm_data). */
    public int immData() {
        return immData;
    }

    /** Sets the immediate data (ibv_send_wr.imm_data); returns this. */
    public SendWr immData(int immData) {
        this.immData = immData;
        return this;
    }

    /** The rkey to invalidate for SEND_WITH_INV and LOCAL_INV (ibv_send_wr.invalidate_rkey). */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    /** Sets the rkey to invalidate (ibv_send_wr.invalidate_rkey); returns this. */
    public SendWr invalidateRkey(int invalidateRkey) {
        this.invalidateRkey = invalidateRkey;
        return this;
    }

    /** The remote virtual address of RDMA and atomic operations (ibv_send_wr.wr.rdma/atomic.remote_addr). */
    public long remoteAddr() {
        return remoteAddr;
    }

    /** Sets the remote virtual address (wr.rdma.remote_addr, wr.atomic.remote_addr); returns this. */
    public SendWr remoteAddr(long remoteAddr) {
        this.remoteAddr = remoteAddr;
        return this;
    }

    /** The remote key of RDMA and atomic operations (ibv_send_wr.wr.rdma/atomic.rkey). */
    public int rkey() {
        return rkey;
    }

    /** Sets the remote key (wr.rdma.rkey, wr.atomic.rkey); returns this. */
    public SendWr rkey(int rkey) {
        this.rkey = rkey;
        return this;
    }

    /** Sets the remote address and key of an RDMA or atomic operation; returns this. */
    public SendWr remote(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    /** The value to compare (CMP_AND_SWP) or add (FETCH_AND_ADD) (ibv_send_wr.wr.atomic.compare_add). */
    public long compareAdd() {
        return compareAdd;
    }

    /** Sets the compare or add operand (wr.atomic.compare_add); returns this. */
    public SendWr compareAdd(long compareAdd) {
        this.compareAdd = compareAdd;
        return this;
    }

    /** The value to swap in when the compare matches (ibv_send_wr.wr.atomic.swap). */
    public long swap() {
        return swap;
    }

    /** Sets the swap operand (wr.atomic.swap); returns this. */
    public SendWr swap(long swap) {
        this.swap = swap;
        return this;
    }

    /** The destination QP number of a UD send (ibv_send_wr.wr.ud.remote_qpn). */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** Sets the destination QP number of a UD send (wr.ud.remote_qpn); returns this. */
    public SendWr remoteQpn(int remoteQpn) {
        this.remoteQpn = remoteQpn;
        return this;
    }

    /** The Q_Key of a UD send (ibv_send_wr.wr.ud.remote_qkey). */
    public int remoteQkey() {
        return remoteQkey;
    }

    /** Sets the Q_Key of a UD send (wr.ud.remote_qkey); returns this. */
    public SendWr remoteQkey(int remoteQkey) {
        this.remoteQkey = remoteQkey;
        return this;
    }

    /** The address handle of a UD send (ibv_send_wr.wr.ud.ah). */
    public AddressHandle ah() {
        return ah;
    }

    /** Sets the address handle of a UD send (wr.ud.ah); returns this. */
    public SendWr ah(AddressHandle ah) {
        this.ah = ah;
        return this;
    }

    /** Sets the destination of a UD send: address handle, QP number and Q_Key; returns this. */
    public SendWr ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /** The type 2 window a BIND_MW request binds (ibv_send_wr.bind_mw.mw). */
    public MemoryWindow mw() {
        return mw;
    }

    /** Sets the window a BIND_MW request binds (bind_mw.mw); returns this. */
    public SendWr mw(MemoryWindow mw) {
        this.mw = mw;
        return this;
    }

    /**
     * The rkey a BIND_MW request gives the window (ibv_send_wr.bind_mw.rkey): the window's current rkey with its
     * low 8 bits (the key the consumer owns) replaced, as ibv_inc_rkey does.
     */
    public int bindRkey() {
        return bindRkey;
    }

    /** Sets the new rkey of a BIND_MW request (bind_mw.rkey); returns this. */
    public SendWr bindRkey(int bindRkey) {
        this.bindRkey = bindRkey;
        return this;
    }

    /** What a BIND_MW request binds the window to (ibv_send_wr.bind_mw.bind_info): this object's own instance. */
    public MwBindInfo bindInfo() {
        return bindInfo;
    }

    /** The rkey {@code rkey} with its low 8 bits incremented (ibv_inc_rkey). */
    public static int incRkey(int rkey) {
        return (rkey & 0xFFFFFF00) | ((rkey + 1) & 0xFF);
    }

    /** The sum of the lengths of the first {@link #numSge()} entries: the message size. */
    public long totalLength() {
        long sum = 0;
        for (int i = 0; i < numSge; i++) {
            sum += Integer.toUnsignedLong(sgList[i].length());
        }
        return sum;
    }

    /** Resets every field to its initial value (opcode SEND, everything else 0 or null); returns this. */
    public SendWr reset() {
        wrId = 0;
        next = null;
        sgList = null;
        numSge = 0;
        opcode = WrOpcode.SEND;
        sendFlags = 0;
        immData = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        remoteQpn = 0;
        remoteQkey = 0;
        ah = null;
        mw = null;
        bindRkey = 0;
        bindInfo.mr(null).addr(0).length(0).mwAccessFlags(0);
        return this;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("SendWr{wrId=").append(wrId).append(", opcode=").append(opcode)
                .append(", flags=").append(SendFlags.describe(sendFlags)).append(", numSge=").append(numSge);
        if (opcode != null && opcode.hasImmediate()) {
            sb.append(", immData=0x").append(Integer.toHexString(immData));
        }
        if (opcode == WrOpcode.SEND_WITH_INV || opcode == WrOpcode.LOCAL_INV) {
            sb.append(", invalidateRkey=0x").append(Integer.toHexString(invalidateRkey));
        }
        if (opcode != null && opcode.isRemoteMemory()) {
            sb.append(", remoteAddr=0x").append(Long.toHexString(remoteAddr)).append(", rkey=0x")
                    .append(Integer.toHexString(rkey));
        }
        if (opcode != null && opcode.isAtomic()) {
            sb.append(", compareAdd=").append(compareAdd).append(", swap=").append(swap);
        }
        if (remoteQpn != 0 || remoteQkey != 0) {
            sb.append(", remoteQpn=0x").append(Integer.toHexString(remoteQpn)).append(", remoteQkey=0x")
                    .append(Integer.toHexString(remoteQkey));
        }
        return sb.append(next != null ? ", next}" : "}").toString();
    }
}
