package io.jrdma.ibverbs;

import io.jrdma.verbs.Device;
import java.lang.foreign.MemorySegment;

/**
 * A device libibverbs listed (struct ibv_device), by its kernel name. It may be opened any number of times; each
 * {@link #open()} is a new ibv_context.
 */
final class IbvDevice implements Device {

    final LibIbverbs lib;
    final MemorySegment ptr;
    private final String name;
    private final long guid;
    private int maxInlineData = -1; // probed on the first queryDevice, see InlineProbe

    IbvDevice(LibIbverbs lib, MemorySegment ptr, String name, long guid) {
        this.lib = lib;
        this.ptr = ptr;
        this.name = name;
        this.guid = guid;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public String provider() {
        return IbvProvider.NAME;
    }

    @Override
    public IbvContext open() {
        return IbvContext.open(this);
    }

    /** The largest max_inline_data of an RC QP, probed once with {@code context}. */
    synchronized int maxInlineData(IbvContext context) {
        if (maxInlineData < 0) {
            maxInlineData = InlineProbe.probe(context);
        }
        return maxInlineData;
    }

    @Override
    public String toString() {
        return name + " (ibverbs, " + lib.name + ")";
    }
}
