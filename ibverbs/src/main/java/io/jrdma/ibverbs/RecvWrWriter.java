package io.jrdma.ibverbs;

import static io.jrdma.ibverbs.WrStructs.RECV_WR;
import static io.jrdma.ibverbs.WrStructs.RWR_NEXT;
import static io.jrdma.ibverbs.WrStructs.RWR_NUM_SGE;
import static io.jrdma.ibverbs.WrStructs.RWR_SG_LIST;
import static io.jrdma.ibverbs.WrStructs.RWR_WR_ID;
import static io.jrdma.ibverbs.WrStructs.SGE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.RecvWr;
import io.jrdma.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Translates {@link RecvWr} chains in place into a preallocated native ibv_recv_wr chain (a QP's receive queue or
 * an SRQ): no allocation per request; a longer chain is posted in batches. One thread posts at a time.
 */
final class RecvWrWriter {

    private static final long WR_SIZE = RECV_WR.byteSize();
    private static final long SGE_SIZE = SGE.byteSize();

    final int slots;
    private final int maxSge;
    private final String limitName;
    final MemorySegment wrs;
    private final MemorySegment sges;
    private final long wrBase;
    private final long sgeBase;
    /** The request after the last one written, or null. */
    RecvWr rest;
    /** Why the request after the last one written was refused (null: none was). */
    String refusal;

    RecvWrWriter(Arena arena, int slots, int maxSge, String limitName) {
        this.slots = slots;
        this.maxSge = Math.max(1, maxSge);
        this.limitName = limitName;
        this.wrs = arena.allocate(WR_SIZE * slots, 8);
        this.sges = arena.allocate(SGE_SIZE * this.maxSge * slots, 8);
        this.wrBase = wrs.address();
        this.sgeBase = sges.address();
    }

    /** As {@link SendWrWriter#write}: the requests written, {@link #rest} and {@link #refusal} set. */
    int write(RecvWr first) {
        refusal = null;
        RecvWr wr = first;
        int n = 0;
        while (wr != null && n < slots) {
            if (!check(wr)) {
                break;
            }
            fill(n, wr);
            n++;
            wr = wr.next();
        }
        if (n > 0) {
            wrs.set(JAVA_LONG, (n - 1) * WR_SIZE + RWR_NEXT, 0L);
        }
        rest = wr;
        return n;
    }

    /** The slot index of native request address {@code badWr} (from bad_wr). */
    int indexOf(long badWr) {
        long i = (badWr - wrBase) / WR_SIZE;
        return i >= 0 && i < slots ? (int) i : 0;
    }

    private boolean check(RecvWr wr) {
        refusal = SgeLists.refusal(wr.numSge(), wr.sgList(), maxSge, limitName, "scatter");
        return refusal == null;
    }

    private void fill(int slot, RecvWr wr) {
        long at = slot * WR_SIZE;
        long sgeAt = (long) slot * maxSge * SGE_SIZE;
        int n = wr.numSge();
        SgeLists.write(sges, sgeAt, wr.sgList(), n);
        wrs.set(JAVA_LONG, at + RWR_WR_ID, wr.wrId());
        wrs.set(JAVA_LONG, at + RWR_NEXT, wrBase + at + WR_SIZE);
        wrs.set(JAVA_LONG, at + RWR_SG_LIST, sgeBase + sgeAt);
        wrs.set(JAVA_INT, at + RWR_NUM_SGE, n);
    }

    /** Posts {@code first} with {@code post} (qp->context->ops.post_recv or post_srq_recv) on {@code target}. */
    static void post(RecvWrWriter w, MemorySegment fn, MemorySegment target, MemorySegment badWr, RecvWr first,
            String verb) {
        int index = 0;
        RecvWr wr = first;
        while (wr != null) {
            int n = w.write(wr);
            if (n > 0) {
                int rc;
                try {
                    rc = (int) Ops.POST.invokeExact(fn, target, w.wrs, badWr);
                } catch (Throwable t) {
                    throw new IllegalStateException(verb + " failed", t);
                }
                if (rc != 0) {
                    throw Errors.of(Math.abs(rc), index + w.indexOf(badWr.get(JAVA_LONG, 0)), verb,
                            Math.abs(rc) == Errno.ENOMEM.code() ? "the receive queue is full" : null);
                }
            }
            if (w.refusal != null) {
                throw new VerbsException(Errno.EINVAL, index + n, w.refusal);
            }
            index += n;
            wr = w.rest;
        }
    }
}
