package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * The device contexts librdmacm opens (one per device, for the life of the process; {@code rdma_cm_id.verbs}),
 * each wrapped once as a borrowed {@link IbvContext}: every CM id on a device shares it, so the PDs, CQs and MRs
 * made from it are those rdma_create_qp accepts (it requires {@code pd->context == id->verbs}), and the events of
 * its CQs and QPs find their Java objects.
 */
@SuppressWarnings("restricted") // this module binds libibverbs, librdmacm and libc: native access is its purpose
final class CmContexts {

    private static final Map<Long, IbvContext> CONTEXTS = new HashMap<>();

    private CmContexts() {
    }

    /** The context wrapping {@code verbs} (an ibv_context librdmacm owns), made on first use. */
    static synchronized IbvContext of(MemorySegment verbs) {
        IbvContext ctx = CONTEXTS.get(verbs.address());
        if (ctx == null) {
            MemorySegment ptr = verbs.reinterpret(ContextStructs.CONTEXT.byteSize());
            ctx = IbvContext.borrow(device(ptr.get(ADDRESS, ContextStructs.CONTEXT_DEVICE)), ptr);
            CONTEXTS.put(verbs.address(), ctx);
        }
        return ctx;
    }

    /** The listed device at {@code ptr} (libibverbs keeps one struct per device), else a new one for it. */
    private static IbvDevice device(MemorySegment ptr) {
        DeviceList list = DeviceList.get();
        for (IbvDevice d : list.devices()) {
            if (d.ptr.address() == ptr.address()) {
                return d;
            }
        }
        LibIbverbs lib = list.lib();
        String name = LibIbverbs.string(LibIbverbs.call(lib.getDeviceName, ptr).pointer());
        long guid = Long.reverseBytes(LibIbverbs.call(lib.getDeviceGuid, ptr).value());
        return new IbvDevice(lib, ptr, name, guid);
    }
}
