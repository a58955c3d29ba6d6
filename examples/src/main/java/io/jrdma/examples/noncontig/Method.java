package io.jrdma.examples.noncontig;

/**
 * The six ways {@code jrdma noncontig} moves a layout: three verbs operations, each once with the scatter/gather
 * list doing the work (zero-copy) and once with the CPU packing into, or unpacking from, a contiguous registered
 * staging buffer. Both variants of one operation start from the same memory and must end in the same memory.
 */
public enum Method {
    /** The sender's gather list names the strided blocks; the WRITE lands contiguous at the receiver. */
    GATHER_WRITE("gather-WRITE", Operation.WRITE, true,
            "sender's SGE list over its strided blocks -> contiguous remote buffer, one RDMA WRITE per max_sge blocks"),
    /** The sender packs the blocks into its staging buffer and WRITEs that, contiguous, to the receiver. */
    PACK_WRITE("pack-WRITE", Operation.WRITE, false,
            "sender memcpys its strided blocks into a contiguous staging buffer, one RDMA WRITE of it"),
    /** The reader's scatter list names its strided blocks; the READ source is contiguous at the remote side. */
    SCATTER_READ("scatter-READ", Operation.READ, true,
            "contiguous remote region -> reader's SGE list over its strided blocks, one RDMA READ per max_sge blocks"),
    /** The reader READs into its staging buffer and unpacks the blocks into place. */
    PACK_READ("pack-READ", Operation.READ, false,
            "one RDMA READ into a contiguous staging buffer, then the reader memcpys it into its strided blocks"),
    /** Strided at both ends: the SEND's gather list and the matching RECV's scatter list name the blocks. */
    SG_SEND_RECV("sg-SEND/RECV", Operation.SEND_RECV, true,
            "sender's SGE list over its strided blocks -> receiver's RECV SGE lists over its strided blocks, "
                    + "one SEND and one RECV per max_sge blocks"),
    /** The sender packs, SENDs one contiguous message into one contiguous RECV buffer, the receiver unpacks. */
    PACK_SEND_RECV("pack-SEND/RECV", Operation.SEND_RECV, false,
            "sender packs into staging, one SEND into one contiguous RECV buffer, receiver unpacks into its blocks");

    /** The verbs operation a method measures. */
    public enum Operation {
        /** RDMA WRITE (with immediate on the last request, so the receiver learns the data is there). */
        WRITE,
        /** RDMA READ. */
        READ,
        /** SEND into posted RECVs. */
        SEND_RECV
    }

    private final String label;
    private final Operation operation;
    private final boolean zeroCopy;
    private final String description;

    Method(String label, Operation operation, boolean zeroCopy, String description) {
        this.label = label;
        this.operation = operation;
        this.zeroCopy = zeroCopy;
        this.description = description;
    }

    /** The short name in tables, CSV files and plot legends. */
    public String label() {
        return label;
    }

    /** The verbs operation. */
    public Operation operation() {
        return operation;
    }

    /** True when the scatter/gather list moves the blocks, false when the CPU packs or unpacks them. */
    public boolean zeroCopy() {
        return zeroCopy;
    }

    /** What the method moves, from where to where, in one line. */
    public String description() {
        return description;
    }

    /** The other variant of the same operation. */
    public Method counterpart() {
        return values()[ordinal() ^ 1];
    }
}
