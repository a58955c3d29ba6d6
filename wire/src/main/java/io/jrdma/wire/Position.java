package io.jrdma.wire;

/** Position of a packet within a message (IBA 9.2, Table 38: First, Middle, Last, Only). */
public enum Position {
    /** First packet of a multi-packet message. */
    FIRST,
    /** Neither first nor last packet of a multi-packet message. */
    MIDDLE,
    /** Last packet of a multi-packet message. */
    LAST,
    /** The single packet of a one-packet message (also ACKs, read requests, atomics). */
    ONLY
}
