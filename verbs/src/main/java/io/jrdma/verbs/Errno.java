package io.jrdma.verbs;

/** The Linux errno values verbs report (libibverbs returns or sets errno), with their glibc strerror texts. */
public enum Errno {
    /** EPERM: operation not permitted. */
    EPERM(1, "Operation not permitted"),
    /** ENOENT: no such object. */
    ENOENT(2, "No such file or directory"),
    /** EIO: input/output error, for example a CQ overrun. */
    EIO(5, "Input/output error"),
    /** EAGAIN: try again later, for example a full work queue. */
    EAGAIN(11, "Resource temporarily unavailable"),
    /** ENOMEM: out of memory or queue space. */
    ENOMEM(12, "Cannot allocate memory"),
    /** EACCES: permission denied. */
    EACCES(13, "Permission denied"),
    /** EFAULT: bad address. */
    EFAULT(14, "Bad address"),
    /** EBUSY: the resource is still in use. */
    EBUSY(16, "Device or resource busy"),
    /** EEXIST: the object exists already. */
    EEXIST(17, "File exists"),
    /** ENODEV: no such device. */
    ENODEV(19, "No such device"),
    /** EINVAL: invalid argument. */
    EINVAL(22, "Invalid argument"),
    /** ENOSPC: no space left. */
    ENOSPC(28, "No space left on device"),
    /** ERANGE: value out of range. */
    ERANGE(34, "Numerical result out of range"),
    /** ENOSYS: function not implemented. */
    ENOSYS(38, "Function not implemented"),
    /** EOPNOTSUPP: operation not supported. */
    EOPNOTSUPP(95, "Operation not supported"),
    /** ETIMEDOUT: timed out. */
    ETIMEDOUT(110, "Connection timed out"),
    /** An address or port already bound (rdma_bind_addr, rdma_listen). */
    EADDRINUSE(98, "Address already in use"),
    /** No local device has the address (rdma_bind_addr, rdma_resolve_addr). */
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    /** No device reaches the destination (rdma_resolve_addr). */
    ENETUNREACH(101, "Network is unreachable"),
    /** The peer ended the connection. */
    ECONNRESET(104, "Connection reset by peer"),
    /** The CM id is already connected or connecting. */
    EISCONN(106, "Transport endpoint is already connected"),
    /** The CM id is not connected. */
    ENOTCONN(107, "Transport endpoint is not connected"),
    /** The peer rejected the connection (nobody listening, or the application said no). */
    ECONNREFUSED(111, "Connection refused"),
    /** The peer did not answer (rdma_cm's UNREACHABLE). */
    EHOSTUNREACH(113, "No route to host");

    private final int code;
    private final String description;

    Errno(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The Linux errno number. */
    public int code() {
        return code;
    }

    /** The text strerror(3) gives in glibc, for example "Invalid argument". */
    public String description() {
        return description;
    }

    /**
     * The errno with number {@code code}.
     *
     * @throws IllegalArgumentException for numbers not listed here
     */
    public static Errno of(int code) {
        for (Errno e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown or unsupported errno " + code);
    }
}
