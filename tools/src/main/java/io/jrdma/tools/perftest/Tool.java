package io.jrdma.tools.perftest;

/**
 * The eight perftest programs jrdma reimplements: which verb each measures, bandwidth or latency, and perftest
 * 4.5's defaults for each (message size, iterations). Everything a tool does differently from the others is a
 * property of this enum, so the mains stay one shared code path ({@link Perftest}).
 */
enum Tool {
    IB_SEND_BW("ib_send_bw", Verb.SEND, true),
    IB_SEND_LAT("ib_send_lat", Verb.SEND, false),
    IB_WRITE_BW("ib_write_bw", Verb.WRITE, true),
    IB_WRITE_LAT("ib_write_lat", Verb.WRITE, false),
    IB_READ_BW("ib_read_bw", Verb.READ, true),
    IB_READ_LAT("ib_read_lat", Verb.READ, false),
    IB_ATOMIC_BW("ib_atomic_bw", Verb.ATOMIC, true),
    IB_ATOMIC_LAT("ib_atomic_lat", Verb.ATOMIC, false);

    /** The operation a test measures, with perftest's name for it (testsStr[]). */
    enum Verb {
        SEND("Send"), WRITE("RDMA_Write"), READ("RDMA_Read"), ATOMIC("Atomic");

        final String title;

        Verb(String title) {
            this.title = title;
        }
    }

    /** The size of an atomic operand: atomic tests move 8 bytes, always. */
    static final int ATOMIC_SIZE = 8;

    final String command;
    final Verb verb;
    final boolean bw;

    Tool(String command, Verb verb, boolean bw) {
        this.command = command;
        this.verb = verb;
        this.bw = bw;
    }

    /** perftest's default message size: 65536 for bandwidth, 2 for latency, 8 for atomics. */
    long defaultSize() {
        if (verb == Verb.ATOMIC) {
            return ATOMIC_SIZE;
        }
        return bw ? 65536 : 2;
    }

    /** perftest's default iteration count: 5000 for bandwidth (1000 for atomics), 1000 for latency. */
    long defaultIters() {
        return bw && verb != Verb.ATOMIC ? 5000 : 1000;
    }

    /** RDMA READ and atomics keep requests outstanding at the responder: they exchange and use out_reads. */
    boolean usesOutReads() {
        return verb == Verb.READ || verb == Verb.ATOMIC;
    }
}
