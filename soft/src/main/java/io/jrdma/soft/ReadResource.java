package io.jrdma.soft;

/**
 * A responder's record of one accepted RDMA READ or atomic request (IBA 9.7.5.2.5, rxe's resp_res): a READ is
 * streamed back as response packets; an atomic keeps the original value it returned, so a duplicate of it is
 * answered from here and never executed twice. Slots stay readable after their responses are out, until the
 * ring reuses them.
 */
final class ReadResource {
    int firstPsn;
    int packets;
    int sent;
    long va;
    long length;
    int rkey;

    /** The slot holds a request (READ or atomic) of the current connection; cleared on RESET. */
    boolean used;
    /** An atomic: its one response is an ATOMIC ACKNOWLEDGE carrying {@link #origValue}. */
    boolean atomic;
    /** Atomic: the 64-bit value the target held before the operation. */
    long origValue;
    /** Atomic: the MSN its ATOMIC ACKNOWLEDGE carries. */
    int msn;
    /** Queued again for a duplicate request; a new request may take its place (see Responder). */
    boolean replay;
}
