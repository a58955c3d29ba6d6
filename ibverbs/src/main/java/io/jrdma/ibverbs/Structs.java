package io.jrdma.ibverbs;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Helpers for the libibverbs struct layouts ({@link ContextStructs}, {@link QpStructs}, {@link WrStructs}), written
 * from rdma-core 44's {@code <infiniband/verbs.h>} for x86_64 (LP64): padding is spelled out, so every field's
 * offset is the C compiler's; {@code LayoutTest} compares them with gcc's offsetof and sizeof. Members of anonymous
 * C unions sit in union layouts named with a leading {@code $}, which the C spelling of a path leaves out.
 */
final class Structs {

    /** A C pointer. */
    static final ValueLayout PTR = ValueLayout.ADDRESS;
    /** int, unsigned int, uint32_t and enums. */
    static final ValueLayout INT = ValueLayout.JAVA_INT;
    /** uint64_t, size_t. */
    static final ValueLayout LONG = ValueLayout.JAVA_LONG;
    /** uint16_t. */
    static final ValueLayout SHORT = ValueLayout.JAVA_SHORT;
    /** uint8_t. */
    static final ValueLayout BYTE = ValueLayout.JAVA_BYTE;
    /** pthread_mutex_t on x86_64 glibc. */
    static final SequenceLayout MUTEX = MemoryLayout.sequenceLayout(40, BYTE);
    /** pthread_cond_t on x86_64 glibc. */
    static final SequenceLayout COND = MemoryLayout.sequenceLayout(48, BYTE);
    /** union ibv_gid: 16 raw bytes, or two big-endian 64-bit halves (which align it to 8). */
    static final UnionLayout GID = MemoryLayout.unionLayout(
            MemoryLayout.sequenceLayout(16, BYTE).withName("raw"),
            MemoryLayout.structLayout(LONG.withName("subnet_prefix"), LONG.withName("interface_id"))
                    .withName("global"));

    private Structs() {
    }

    /** {@code bytes} of padding. */
    static MemoryLayout pad(long bytes) {
        return MemoryLayout.paddingLayout(bytes);
    }

    /** A named struct. */
    static StructLayout struct(String name, MemoryLayout... members) {
        return MemoryLayout.structLayout(members).withName(name);
    }

    /** The byte offset of the member at the dotted {@code path} (for example "ops.poll_cq") of {@code layout}. */
    static long off(MemoryLayout layout, String path) {
        String[] names = path.split("\\.");
        PathElement[] elements = new PathElement[names.length];
        for (int i = 0; i < names.length; i++) {
            elements[i] = PathElement.groupElement(names[i]);
        }
        return layout.byteOffset(elements);
    }

    /** Every top-level struct layout of the four files, by C struct name (for the layout checks). */
    static Map<String, StructLayout> all() {
        Map<String, StructLayout> all = new LinkedHashMap<>();
        for (StructLayout s : List.of(ContextStructs.CONTEXT_OPS, ContextStructs.CONTEXT, ContextStructs.DEVICE_ATTR,
                ContextStructs.PORT_ATTR, ContextStructs.ASYNC_EVENT, ContextStructs.COMP_CHANNEL, ContextStructs.PD,
                ContextStructs.MR, ContextStructs.MW, ContextStructs.AH, ContextStructs.CQ, QpStructs.QP, QpStructs.SRQ,
                QpStructs.SRQ_ATTR, QpStructs.SRQ_INIT_ATTR, QpStructs.QP_CAP, QpStructs.QP_INIT_ATTR,
                QpStructs.GLOBAL_ROUTE, QpStructs.AH_ATTR, QpStructs.QP_ATTR, WrStructs.SGE, WrStructs.SEND_WR,
                WrStructs.RECV_WR, WrStructs.MW_BIND_INFO, WrStructs.MW_BIND, WrStructs.WC, CmStructs.EVENT_CHANNEL,
                CmStructs.ADDR, CmStructs.ROUTE, CmStructs.CM_ID, CmStructs.CONN_PARAM, CmStructs.UD_PARAM,
                CmStructs.CM_EVENT)) {
            all.put(s.name().orElseThrow(), s);
        }
        return all;
    }

    /**
     * The C spelling of every named member path of {@code layout} with its byte offset, nested structs and unions
     * included (arrays are not entered): {@code "ops.poll_cq" -> 96}.
     */
    static Map<String, Long> memberOffsets(MemoryLayout layout) {
        Map<String, Long> out = new LinkedHashMap<>();
        collect(layout, 0, new ArrayList<>(), out);
        return out;
    }

    private static void collect(MemoryLayout layout, long base, List<String> path, Map<String, Long> out) {
        if (!(layout instanceof java.lang.foreign.GroupLayout group)) {
            return;
        }
        long offset = 0;
        for (MemoryLayout m : group.memberLayouts()) {
            long at = base + (group instanceof UnionLayout ? 0 : offset);
            if (m.name().isPresent()) {
                String name = m.name().get();
                List<String> p = new ArrayList<>(path);
                if (!name.startsWith("$")) {
                    p.add(name);
                    out.put(String.join(".", p), at);
                }
                collect(m, at, p, out);
            }
            offset += m.byteSize();
        }
    }

    /** Reads a NUL-terminated C string of at most {@code max} bytes at {@code offset}. */
    static String cString(MemorySegment s, long offset, int max) {
        byte[] b = new byte[max];
        MemorySegment.copy(s, BYTE, offset, b, 0, max);
        int n = 0;
        while (n < max && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
    }
}
