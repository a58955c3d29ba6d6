package io.jrdma.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * The data-path verbs as verbs.h defines them: static inline functions that call through the provider's function
 * pointers in {@code context->ops} (struct ibv_context_ops), for example
 * {@code ibv_post_send(qp, wr, bad) = qp->context->ops.post_send(qp, wr, bad)}. Each handle here is created once,
 * unbound: its first argument is the function pointer a context read from its ops table at open. They return an
 * errno (post, notify) or a count (poll) and set no errno, so they capture nothing.
 *
 * <p>poll_cq, req_notify_cq and the post verbs neither block nor call back into Java, so they are linked
 * {@link Linker.Option#critical critical} (no thread state transition), unless {@value #CRITICAL_PROPERTY} is
 * false. alloc_mw, dealloc_mw and bind_mw run on the control path and are linked normally.
 */
@SuppressWarnings("restricted") // this module binds libibverbs and libc: native access is its purpose
final class Ops {

    /** The system property that turns the critical linkage of the data-path verbs off ("false"). */
    static final String CRITICAL_PROPERTY = "jrdma.ibverbs.critical";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option[] FAST = Boolean.parseBoolean(System.getProperty(CRITICAL_PROPERTY, "true"))
            ? new Linker.Option[] {Linker.Option.critical(false)} : new Linker.Option[0];

    /** int poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc). */
    static final MethodHandle POLL_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), FAST);
    /** int req_notify_cq(struct ibv_cq *cq, int solicited_only). */
    static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), FAST);
    /**
     * int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr), and the same shape
     * for post_recv (ibv_recv_wr) and post_srq_recv (an ibv_srq first).
     */
    static final MethodHandle POST = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), FAST);
    /** struct ibv_mw *alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type); sets errno on failure. */
    static final MethodHandle ALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT),
            Linker.Option.captureCallState("errno"));
    /** int dealloc_mw(struct ibv_mw *mw). */
    static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS),
            Linker.Option.captureCallState("errno"));
    /** int bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind). */
    static final MethodHandle BIND_MW = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Linker.Option.captureCallState("errno"));

    private Ops() {
    }
}
