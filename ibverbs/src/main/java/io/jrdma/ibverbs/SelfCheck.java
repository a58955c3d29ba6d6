package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * Run-time checks that the struct layouts match the libibverbs in the process: what the library returns must be
 * consistent (a new resource's back pointers name its context and PD, fds are open, ibv_wc_status_str agrees with
 * {@link WcStatus}), and query buffers carry canary bytes after our layout's size that the library must not touch.
 * A failure is an {@link IllegalStateException} that names the struct and says the layouts do not match: reading
 * further would corrupt memory.
 */
final class SelfCheck {

    /** Bytes of canary after each query buffer. */
    static final int CANARY_BYTES = 64;
    private static final byte CANARY = (byte) 0xA5;

    private SelfCheck() {
    }

    /** A zeroed buffer for {@code layout} followed by {@value #CANARY_BYTES} canary bytes. */
    static MemorySegment withCanary(Arena arena, MemoryLayout layout) {
        MemorySegment s = arena.allocate(layout.byteSize() + CANARY_BYTES, 8);
        s.asSlice(layout.byteSize()).fill(CANARY);
        return s;
    }

    /** Fails when libibverbs wrote past {@code layout} into the canary of a {@link #withCanary} buffer. */
    static void canary(MemorySegment s, MemoryLayout layout, String call) {
        for (long i = layout.byteSize(); i < layout.byteSize() + CANARY_BYTES; i++) {
            if (s.get(JAVA_BYTE, i) != CANARY) {
                throw mismatch(call + " wrote past the " + layout.byteSize() + " bytes of struct "
                        + layout.name().orElse("?") + " (at byte " + i + ")");
            }
        }
    }

    /** Fails unless the pointer at {@code offset} of {@code struct} is {@code expected}. */
    static void pointer(MemorySegment struct, long offset, MemorySegment expected, String field) {
        long got = struct.get(JAVA_LONG, offset);
        if (got != expected.address()) {
            throw mismatch(field + " is 0x" + Long.toHexString(got) + ", expected 0x"
                    + Long.toHexString(expected.address()));
        }
    }

    /** Fails unless the int at {@code offset} of {@code struct} is {@code expected}. */
    static void value(MemorySegment struct, long offset, int expected, String field) {
        int got = struct.get(JAVA_INT, offset);
        if (got != expected) {
            throw mismatch(field + " is " + got + ", expected " + expected);
        }
    }

    /** Fails unless {@code fd} (read from {@code field}) is an open file descriptor. */
    static void openFd(int fd, String field) {
        if (!Libc.isOpen(fd)) {
            throw mismatch(field + " is " + fd + ", which is not an open file descriptor");
        }
    }

    /** Fails unless a function pointer read from the ops table is set. */
    static void function(MemorySegment fn, String field) {
        if (fn.address() == 0) {
            throw mismatch(field + " is NULL; the provider has no such verb or the ops table is misread");
        }
    }

    /** Fails unless ibv_wc_status_str gives {@link WcStatus#message()} for every status, in the enum's order. */
    static void statusStrings(LibIbverbs lib) {
        for (WcStatus s : WcStatus.values()) {
            String text = LibIbverbs.string(LibIbverbs.call(lib.wcStatusStr, s.code()).pointer());
            if (!s.message().equals(text)) {
                throw mismatch("ibv_wc_status_str(" + s.code() + ") is \"" + text + "\", but WcStatus." + s
                        + " says \"" + s.message() + "\": the status codes differ");
            }
        }
    }

    /** The exception for a mismatch found in {@code detail}. */
    static IllegalStateException mismatch(String detail) {
        return new IllegalStateException("jrdma-ibverbs layout self-check failed: " + detail + ". The struct "
                + "layouts in io.jrdma.ibverbs (rdma-core 44 verbs.h, x86_64) do not match this libibverbs; "
                + "using it would corrupt memory");
    }
}
