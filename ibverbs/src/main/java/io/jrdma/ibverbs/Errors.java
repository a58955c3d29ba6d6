package io.jrdma.ibverbs;

import io.jrdma.verbs.Errno;
import io.jrdma.verbs.VerbsException;

/**
 * libibverbs errnos as {@link VerbsException}s, as the soft provider reports them: the errno when
 * {@link Errno} lists it, else EINVAL with the real errno's number and text in the message.
 */
final class Errors {

    private Errors() {
    }

    /** The {@link Errno} of {@code code}, or null when Errno does not list it. */
    static Errno errno(int code) {
        for (Errno e : Errno.values()) {
            if (e.code() == code) {
                return e;
            }
        }
        return null;
    }

    /** "ibv_alloc_pd failed: Cannot allocate memory" as a VerbsException with the mapped errno. */
    static VerbsException of(int code, String what) {
        return of(code, -1, what);
    }

    /** As {@link #of(int, String)}, about the work request at {@code badWrIndex}. */
    static VerbsException of(int code, int badWrIndex, String what) {
        return of(code, badWrIndex, what, null);
    }

    /** As {@link #of(int, int, String)}, with {@code hint} (or null) appended after a dash. */
    static VerbsException of(int code, int badWrIndex, String what, String hint) {
        Errno e = errno(code);
        String tail = hint == null ? "" : " — " + hint;
        if (e != null) {
            return new VerbsException(e, badWrIndex, what + " failed: " + e.description() + tail);
        }
        return new VerbsException(Errno.EINVAL, badWrIndex, what + " failed with errno " + code + " ("
                + Libc.strerror(code) + "), reported as EINVAL" + tail);
    }

    /**
     * The failure of ibv_reg_mr: for ENOMEM and EPERM, which the kernel gives when pinning the pages would pass
     * RLIMIT_MEMLOCK (and the process lacks CAP_IPC_LOCK), the message says so and how to raise the limit.
     */
    static VerbsException regMr(int code, long address, long length) {
        String what = "ibv_reg_mr(addr=0x" + Long.toHexString(address) + ", length=" + length + ")";
        if (code != Errno.ENOMEM.code() && code != Errno.EPERM.code()) {
            return of(code, what);
        }
        Errno e = errno(code);
        return new VerbsException(e, what + " failed: " + e.description() + " — " + memlockHint(length));
    }

    /** Why pinning {@code length} bytes probably failed, with the limit in force and how to raise it. */
    static String memlockHint(long length) {
        long limit = Libc.memlockLimit();
        String now = limit == -1 ? "unlimited" : limit < 0 ? "unknown" : (limit / 1024) + " KiB";
        return "the locked-memory limit is likely too low to pin " + length + " bytes (ulimit -l: " + now + "). "
                + "Registered memory stays pinned; raise the limit: `ulimit -l unlimited` in the shell that starts "
                + "java (as root, or after raising the hard limit with a `* - memlock unlimited` line in "
                + "/etc/security/limits.conf and logging in again), LimitMEMLOCK=infinity for a systemd service, "
                + "`--ulimit memlock=-1` for docker run";
    }
}
