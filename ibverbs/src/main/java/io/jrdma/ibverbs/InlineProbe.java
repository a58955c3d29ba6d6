package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.QpCap;
import io.jrdma.verbs.QpType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Finds a device's largest max_inline_data, which ibv_device_attr does not report ({@link
 * io.jrdma.verbs.DeviceAttr#maxInlineData()}): a binary search over RC QPs with one SGE and one request each way,
 * created and destroyed at once on a PD and CQ of its own. Once per device and process.
 */
final class InlineProbe {

    /** The largest value tried. */
    static final int LIMIT = 16384;

    private InlineProbe() {
    }

    /** The largest max_inline_data an RC QP of {@code ctx}'s device accepts, 0 when none can be created. */
    static int probe(IbvContext ctx) {
        LibIbverbs lib = ctx.lib;
        MemorySegment pd = LibIbverbs.call(lib.allocPd, ctx.ptr).pointer();
        if (pd.address() == 0) {
            return 0;
        }
        MemorySegment cq = LibIbverbs.call(lib.createCq, ctx.ptr, 2, MemorySegment.NULL, MemorySegment.NULL, 0)
                .pointer();
        try {
            if (cq.address() == 0 || !accepts(lib, pd, cq, 0)) {
                return 0;
            }
            int lo = 0;
            int hi = LIMIT;
            if (accepts(lib, pd, cq, hi)) {
                return hi;
            }
            while (hi - lo > 1) { // accepts(lo), refuses hi
                int mid = (lo + hi) >>> 1;
                if (accepts(lib, pd, cq, mid)) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return lo;
        } finally {
            if (cq.address() != 0) {
                LibIbverbs.call(lib.destroyCq, cq);
            }
            LibIbverbs.call(lib.deallocPd, pd);
        }
    }

    private static boolean accepts(LibIbverbs lib, MemorySegment pd, MemorySegment cq, int inline) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment init = tmp.allocate(QpStructs.QP_INIT_ATTR);
            init.set(JAVA_LONG, QpStructs.QIA_SEND_CQ, cq.address());
            init.set(JAVA_LONG, QpStructs.QIA_RECV_CQ, cq.address());
            AttrCodec.writeCap(init, QpStructs.QIA_CAP, new QpCap(1, 1, 1, 1, inline));
            init.set(JAVA_INT, QpStructs.QIA_QP_TYPE, QpType.RC.code());
            MemorySegment qp = LibIbverbs.call(lib.createQp, pd, init).pointer();
            if (qp.address() == 0) {
                return false;
            }
            LibIbverbs.call(lib.destroyQp, qp);
            return true;
        }
    }
}
