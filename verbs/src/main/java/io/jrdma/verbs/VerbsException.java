package io.jrdma.verbs;

import java.util.Objects;

/**
 * A verb refused its arguments: the synchronous, local failure of a libibverbs call, carrying the errno it would
 * return and, for a refused work request, the index of the request in the posted chain (libibverbs' bad_wr).
 *
 * <p>Failures after a work request was accepted are never thrown; they are {@link WcStatus}es in completions.
 */
public class VerbsException extends RuntimeException {

    private final Errno errno;
    private final int badWrIndex;
    private final String reason;

    /** An error not about a particular work request; the message becomes {@code "EINVAL: " + message}. */
    public VerbsException(Errno errno, String message) {
        this(errno, -1, message);
    }

    /**
     * An error about the work request at {@code badWrIndex} (0 = the first of the chain, -1 = none); the message
     * becomes {@code "EINVAL: " + message + " (work request #3)"}.
     */
    public VerbsException(Errno errno, int badWrIndex, String message) {
        super(format(errno, badWrIndex, message));
        this.errno = errno;
        this.badWrIndex = badWrIndex < 0 ? -1 : badWrIndex;
        this.reason = message;
    }

    private static String format(Errno errno, int badWrIndex, String message) {
        Objects.requireNonNull(errno, "errno");
        String text = errno.name() + ": " + message;
        return badWrIndex >= 0 ? text + " (work request #" + badWrIndex + ")" : text;
    }

    /** The errno the corresponding libibverbs call would report. */
    public Errno errno() {
        return errno;
    }

    /**
     * The index in the posted chain of the first request not posted (libibverbs' bad_wr), or -1 when the error is
     * not about a work request. The requests before it were posted.
     */
    public int badWrIndex() {
        return badWrIndex;
    }

    /** The message without the errno name and work request index. */
    public String reason() {
        return reason;
    }
}
