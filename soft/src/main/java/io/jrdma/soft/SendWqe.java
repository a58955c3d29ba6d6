package io.jrdma.soft;

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
    int numSge;
    final long[] sgeAddr;
    final int[] sgeLength;
    final int[] sgeLkey;
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
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
        this.inlineData = inlineData;
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
