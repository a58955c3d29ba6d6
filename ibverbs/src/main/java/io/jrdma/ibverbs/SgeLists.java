package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.WrStructs.SGE;
import static io.jrdma.ibverbs.WrStructs.SGE_ADDR;
import static io.jrdma.ibverbs.WrStructs.SGE_LENGTH;
import static io.jrdma.ibverbs.WrStructs.SGE_LKEY;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.Sge;
import java.lang.foreign.MemorySegment;

/** A work request's scatter/gather list, checked and written into a slot's native ibv_sge array. */
final class SgeLists {

    private static final long SGE_SIZE = SGE.byteSize();

    private SgeLists() {
    }

    /**
     * Why {@code n} entries of {@code list} cannot be written into a slot of {@code maxSge} entries, or null.
     *
     * @param limitName the QP's limit on {@code n}, for the message (max_send_sge, max_recv_sge)
     * @param kind      "gather" (send) or "scatter" (receive)
     */
    static String refusal(int n, Sge[] list, int maxSge, String limitName, String kind) {
        if (n < 0 || n > maxSge) {
            return "num_sge " + n + " is out of range [0, " + maxSge + "] (" + limitName + ")";
        }
        if (n > 0 && (list == null || list.length < n)) {
            return "num_sge is " + n + " but the " + kind + " list has " + (list == null ? "no" : list.length)
                    + " entries";
        }
        for (int i = 0; i < n; i++) {
            if (list[i] == null) {
                return kind + " entry " + i + " is null";
            }
        }
        return null;
    }

    /** Writes {@code list}'s first {@code n} entries (see {@link #refusal}) into {@code sges} at {@code at}. */
    static void write(MemorySegment sges, long at, Sge[] list, int n) {
        for (int i = 0; i < n; i++) {
            Sge s = list[i];
            long e = at + i * SGE_SIZE;
            sges.set(JAVA_LONG, e + SGE_ADDR, s.addr());
            sges.set(JAVA_INT, e + SGE_LENGTH, s.length());
            sges.set(JAVA_INT, e + SGE_LKEY, s.lkey());
        }
    }
}
