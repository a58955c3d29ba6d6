package io.jrdma.soft;

/**
 * A responder's record of one accepted RDMA READ or atomic request (IBA 9.7.5.2.5, rxe's resp_res): a READ is
 * streamed back as response packets; an atomic keeps the original value it returned, so a duplicate of it is
 * answered from here and never executed twice. Slots stay readable after their responses are out, until the
 * ring ({@link ReadResponses}) reuses them.
 */
final class ReadResource {
    private int firstPsn;
    private int packets;
    private int sent;
    private long va;
    private long length;
    private int rkey;

    /** The slot holds a request (READ or atomic) of the current connection; cleared on RESET. */
    private boolean used;
    /** An atomic: its one response is an ATOMIC ACKNOWLEDGE carrying {@link #origValue}. */
    private boolean atomic;
    /** Atomic: the 64-bit value the target held before the operation. */
    private long origValue;
    /** Atomic: the MSN its ATOMIC ACKNOWLEDGE carries. */
    private int msn;
    /** Queued again for a duplicate request; a new request may take its place (see ReadResponses). */
    private boolean replay;

    /** Takes a new READ of {@code packets} response packets from {@code [va, va + length)} under {@code rkey}. */
    void startRead(int firstPsn, int packets, long va, long length, int rkey) {
        this.firstPsn = firstPsn;
        this.packets = packets;
        this.sent = 0;
        this.va = va;
        this.length = length;
        this.rkey = rkey;
        this.used = true;
        this.atomic = false;
        this.replay = false;
    }

    /** Takes a new atomic, executed with {@code origValue} as its result, acknowledged with {@code msn}. */
    void startAtomic(int psn, long va, long origValue, int msn) {
        this.firstPsn = psn;
        this.packets = 1;
        this.sent = 0;
        this.va = va;
        this.length = 8;
        this.origValue = origValue;
        this.msn = msn;
        this.used = true;
        this.atomic = true;
        this.replay = false;
    }

    /** Streams again from response packet {@code k} (a duplicate asked for it); no later than it is now. */
    void rewindTo(int k) {
        sent = Math.min(sent, k);
    }

    /** Queued again, finished before, for a duplicate: from response packet {@code k}. */
    void replayFrom(int k) {
        sent = k;
        replay = true;
    }

    /** A duplicate atomic: its acknowledge goes out again, with the current MSN (as rxe answers it). */
    void replayAtomic(int currentMsn) {
        msn = currentMsn;
        sent = 0;
        replay = true;
    }

    /** Taken by a new request: no longer a replay. */
    void claimed() {
        replay = false;
    }

    /** PSNs start over (RESET): no old request may be taken for a duplicate. */
    void forget() {
        used = false;
    }

    /** One response packet went out. */
    void sentOne() {
        sent++;
    }

    boolean done() {
        return sent == packets;
    }

    int firstPsn() {
        return firstPsn;
    }

    int packets() {
        return packets;
    }

    int sent() {
        return sent;
    }

    long va() {
        return va;
    }

    long length() {
        return length;
    }

    int rkey() {
        return rkey;
    }

    boolean used() {
        return used;
    }

    boolean atomic() {
        return atomic;
    }

    long origValue() {
        return origValue;
    }

    int msn() {
        return msn;
    }

    boolean replay() {
        return replay;
    }
}
