package io.jrdma.soft;

/**
 * The responder's rkey resolution (rxe_resp.c check_rkey), shared by RDMA WRITE, RDMA READ and atomics: an rkey
 * names either a memory region or a bound memory window, and either way the answer is the region whose memory is
 * touched, or null for a remote access violation (NAK remote access error, class C).
 */
final class RemoteKeys {

    private RemoteKeys() {
    }

    /**
     * The region that request {@code access} ({@code Access.REMOTE_READ}, {@code REMOTE_WRITE} or
     * {@code REMOTE_ATOMIC}) arriving at {@code qp} may use over {@code [va, va + len)} through {@code rkey}, or null.
     *
     * <p>Checks: the QP allows the access (qp_access_flags); then for a region: its rkey, its PD is the QP's, it
     * grants the access, the range lies in it; for a window: its rkey, bound and valid, its PD is the QP's, a type 2
     * window was bound by this QP, it grants the access, the range lies in the window and in its region.
     */
    static SoftMr resolve(SoftQp qp, int rkey, long va, long len, int access) {
        if ((qp.accessFlags & access) == 0) {
            return null;
        }
        MrTable keys = qp.context.mrs;
        if (keys.isMwKey(rkey)) {
            SoftMw mw = keys.lookupMw(rkey);
            if (mw == null || !mw.admits(qp, va, len, access)) {
                return null;
            }
            SoftMr mr = mw.mr;
            return mr != null && mr.valid() && mr.covers(va, len) ? mr : null;
        }
        SoftMr mr = keys.lookup(rkey);
        if (mr == null || mr.pd != qp.pd || !mr.allows(access) || !mr.covers(va, len)) {
            return null;
        }
        return mr;
    }

    /**
     * Looks an rkey up again for a later packet of a request whose rights were checked by {@link #resolve} at its
     * first packet (rxe_recheck_mr): the region or window must still be there with the same key and cover the range,
     * so memory deregistered, or a window invalidated or closed, meanwhile is an error, never a stale access.
     */
    static SoftMr recheck(SoftQp qp, int rkey, long va, long len) {
        MrTable keys = qp.context.mrs;
        if (keys.isMwKey(rkey)) {
            SoftMw mw = keys.lookupMw(rkey);
            if (mw == null || mw.state != SoftMw.VALID || mw.mr == null || !mw.mr.valid()) {
                return null;
            }
            long off = va - mw.addr;
            return off >= 0 && off <= mw.length && len <= mw.length - off && mw.mr.covers(va, len) ? mw.mr : null;
        }
        SoftMr mr = keys.lookup(rkey);
        return mr != null && mr.covers(va, len) ? mr : null;
    }
}
