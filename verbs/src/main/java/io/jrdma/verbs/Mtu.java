package io.jrdma.verbs;

/**
 * Path MTUs (ibv_mtu): the largest payload of one packet, with their libibverbs codes, which are also the MTU
 * encoding of the IBA PortInfo attribute (1 = 256 bytes ... 5 = 4096 bytes).
 */
public enum Mtu {
    /** IBV_MTU_256. */
    MTU_256(1, 256),
    /** IBV_MTU_512. */
    MTU_512(2, 512),
    /** IBV_MTU_1024. */
    MTU_1024(3, 1024),
    /** IBV_MTU_2048. */
    MTU_2048(4, 2048),
    /** IBV_MTU_4096. */
    MTU_4096(5, 4096);

    private static final Mtu[] VALUES = values();

    private final int code;
    private final int bytes;

    Mtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** The libibverbs code (enum ibv_mtu). */
    public int code() {
        return code;
    }

    /** The MTU in bytes. */
    public int bytes() {
        return bytes;
    }

    /**
     * The MTU with libibverbs code {@code code}.
     *
     * @throws IllegalArgumentException unless 1 &lt;= code &lt;= 5
     */
    public static Mtu of(int code) {
        if (code < 1 || code > VALUES.length) {
            throw new IllegalArgumentException("unknown ibv_mtu " + code);
        }
        return VALUES[code - 1];
    }

    /**
     * The MTU of exactly {@code bytes} bytes.
     *
     * @throws IllegalArgumentException unless bytes is 256, 512, 1024, 2048 or 4096
     */
    public static Mtu ofBytes(int bytes) {
        for (Mtu m : VALUES) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("not an IB MTU: " + bytes + " bytes");
    }

    /**
     * The largest MTU of at most {@code bytes} bytes (for example the link MTU minus the RoCEv2 headers), or null
     * when {@code bytes} is below 256.
     */
    public static Mtu largestAtMost(int bytes) {
        for (int i = VALUES.length - 1; i >= 0; i--) {
            if (VALUES[i].bytes <= bytes) {
                return VALUES[i];
            }
        }
        return null;
    }
}
