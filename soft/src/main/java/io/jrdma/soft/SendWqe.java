package io.jrdma.soft;

import io.jrdma.verbs.MwBindInfo;
import io.jrdma.verbs.SendFlags;
import io.jrdma.verbs.SendWr;
import io.jrdma.verbs.WcStatus;
import io.jrdma.verbs.WrOpcode;
import java.lang.foreign.MemorySegment;

/**
 * A send queue entry: the posted work request copied into preallocated storage, plus the requester's progress
 * through it. Filled by the posting thread, then owned by the engine until it is retired.
 */
final class SendWqe {
    // --- copied from the work request at post time
    long wrId;
    WrOpcode opcode;
    int flags;
    boolean signaled;
    final SgeList sges;
    boolean inline;
    final MemorySegment inlineData; // this slot's share of the QP's inline area
    long length;
    int immData;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    // BIND_MW (from ibv_bind_mw or a BIND_MW work request)
    SoftMw mw;
    SoftMr bindMr;
    long bindAddr;
    long bindLength;
    int bindAccess;
    int bindRkey;
    SoftAh ah;            // UD: the destination (kept even if the handle is closed after posting)
    int remoteQpn;        // UD
    int remoteQkey;       // UD

    // --- the requester's progress through it (written only through the methods below)
    private int firstPsn;
    private int packets;          // PSNs this message occupies
    private boolean started;      // PSNs assigned, at least one packet sent
    private int readPacketsDone;  // READ: response packets received and placed
    private WcStatus localStatus; // BIND_MW, LOCAL_INV: null until executed, then its result (see LocalOps)
    private int readChunk;        // READ: response packets per READ request; requests start at multiples of it

    SendWqe(int maxSge, MemorySegment inlineData) {
        sges = new SgeList(maxSge);
        this.inlineData = inlineData;
    }

    /**
     * Copies a checked data-moving work request (SEND, WRITE, READ, atomics) into this slot: its list, unless the
     * payload was copied inline into {@link #inlineData}, and its {@code total} length; {@code ah} for UD.
     */
    void fill(SendWr wr, WrOpcode op, boolean inline, long total, SoftAh ah) {
        header(wr.wrId(), op, wr.sendFlags(), inline, total, wr.immData(), wr.invalidateRkey());
        this.ah = ah;
        remoteQpn = wr.remoteQpn();
        remoteQkey = wr.remoteQkey();
        remoteAddr = wr.remoteAddr();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        mw = null;
        bindMr = null;
        if (inline) {
            sges.clear();
        } else {
            sges.copyOf(wr.sgList(), wr.numSge());
        }
    }

    /** Copies a LOCAL_INV work request (of {@code invalidateRkey}) into this slot. */
    void fillLocalInvalidate(long wrId, int flags, int invalidateRkey) {
        header(wrId, WrOpcode.LOCAL_INV, flags, false, 0, 0, invalidateRkey);
        mw = null;
        bindMr = null;
        sges.clear();
    }

    /** Copies a bind of {@code mw} to {@code mr} (null: an unbind) into this slot: ibv_bind_mw or a BIND_MW WR. */
    void fillBind(long wrId, int flags, SoftMw mw, SoftMr mr, MwBindInfo info, int newRkey) {
        header(wrId, WrOpcode.BIND_MW, flags, false, 0, 0, 0);
        this.mw = mw;
        bindMr = mr;
        bindAddr = info.addr();
        bindLength = info.length();
        bindAccess = info.mwAccessFlags();
        bindRkey = newRkey;
        sges.clear();
    }

    private void header(long wrId, WrOpcode op, int flags, boolean inline, long total, int imm, int invRkey) {
        this.wrId = wrId;
        this.opcode = op;
        this.flags = flags;
        this.signaled = (flags & SendFlags.SIGNALED) != 0;
        this.inline = inline;
        this.length = total;
        this.immData = imm;
        this.invalidateRkey = invRkey;
        resetProgress();
    }

    /** Forgets any progress: the slot holds a request just posted, not started. */
    void resetProgress() {
        started = false;
        readPacketsDone = 0;
        localStatus = null;
    }

    /** The requester starts this message: its PSNs are {@code firstPsn} and the {@code packets - 1} after it. */
    void start(int firstPsn, int packets, int readChunk) {
        this.firstPsn = firstPsn;
        this.packets = packets;
        this.readChunk = readChunk;
        this.readPacketsDone = 0;
        this.started = true;
    }

    /**
     * The requester reaches this local operation at {@code psn}: no packets, so {@link #lastPsn()} is the PSN before
     * and the ACK of earlier WQEs covers it. {@link #executed} records its result.
     */
    void startLocal(int psn) {
        this.firstPsn = psn;
        this.packets = 0;
        this.started = true;
    }

    /** The result of a local operation, kept across go-back-N. */
    void executed(WcStatus status) {
        this.localStatus = status;
    }

    /** READ: one more response packet was placed; returns how many are now. */
    int readResponsePlaced() {
        return ++readPacketsDone;
    }

    int firstPsn() {
        return firstPsn;
    }

    int packets() {
        return packets;
    }

    boolean started() {
        return started;
    }

    int readPacketsDone() {
        return readPacketsDone;
    }

    int readChunk() {
        return readChunk;
    }

    WcStatus localStatus() {
        return localStatus;
    }

    int lastPsn() {
        return (firstPsn + packets - 1) & 0xFFFFFF;
    }

    /** A local operation: executed by the requester when it reaches it, no packets (rxe WR_LOCAL_OP_MASK). */
    boolean isLocalOp() {
        return opcode == WrOpcode.BIND_MW || opcode == WrOpcode.LOCAL_INV;
    }

    boolean isReadOrAtomic() {
        return opcode == WrOpcode.RDMA_READ || opcode == WrOpcode.ATOMIC_CMP_AND_SWP
                || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }
}
