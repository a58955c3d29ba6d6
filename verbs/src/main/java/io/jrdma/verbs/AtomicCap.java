package io.jrdma.verbs;

/** How atomic operations are atomic on a device (ibv_atomic_cap, ibv_device_attr.atomic_cap). */
public enum AtomicCap {
    /** IBV_ATOMIC_NONE: atomic operations are not supported. */
    NONE(0),
    /** IBV_ATOMIC_HCA: atomic among the operations of this device only. */
    HCA(1),
    /** IBV_ATOMIC_GLOB: atomic also with respect to the CPUs and other devices. */
    GLOB(2);

    private static final AtomicCap[] VALUES = values();

    private final int code;

    AtomicCap(int code) {
        this.code = code;
    }

    /** The libibverbs code (enum ibv_atomic_cap). */
    public int code() {
        return code;
    }

    /**
     * The capability with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException unless 0 &lt;= code &lt;= 2
     */
    public static AtomicCap of(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown ibv_atomic_cap " + code);
        }
        return VALUES[code];
    }
}
