package io.jrdma.soft;

import java.lang.foreign.MemorySegment;

/**
 * Views of the receive buffer at the packets of a GRO run ({@code k * segment} bytes in), made once per segment
 * size and index and kept, so splitting a run allocates nothing in the steady state. The engine's parsers read a
 * packet from offset 0 of the segment they are given. A few segment sizes are remembered (a device mostly sees
 * full-MTU data packets one way and ACKs the other); a new size replaces the oldest.
 */
final class RxViews {

    private static final int SIZES = 4;
    private static final int RUN = 64;

    private final MemorySegment buffer;
    private final int[] sizes = new int[SIZES];
    private final MemorySegment[][] views = new MemorySegment[SIZES][];
    private int next;

    RxViews(MemorySegment buffer) {
        this.buffer = buffer;
    }

    /** The view starting at packet {@code k} of a run of {@code segment}-byte packets. */
    MemorySegment view(int segment, int k) {
        if (k == 0) {
            return buffer;
        }
        MemorySegment[] row = rowFor(segment);
        if (k >= row.length) {
            return buffer.asSlice((long) k * segment); // beyond any GSO run Linux makes; not expected
        }
        MemorySegment v = row[k];
        if (v == null) {
            v = buffer.asSlice((long) k * segment);
            row[k] = v;
        }
        return v;
    }

    private MemorySegment[] rowFor(int segment) {
        for (int i = 0; i < SIZES; i++) {
            if (sizes[i] == segment && views[i] != null) {
                return views[i];
            }
        }
        int i = next;
        next = (next + 1) % SIZES;
        sizes[i] = segment;
        views[i] = new MemorySegment[RUN];
        return views[i];
    }
}
