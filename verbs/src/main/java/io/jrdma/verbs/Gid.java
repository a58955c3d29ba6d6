package io.jrdma.verbs;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * A 128-bit global identifier (union ibv_gid), immutable: the subnet prefix in {@link #hi()} and the interface id
 * in {@link #lo()}, both big-endian as on the wire (IBA vol. 1 §4.1.1). On RoCEv2 a GID is the port's IPv6
 * address, or for an IPv4 address the IPv4-mapped form {@code ::ffff:a.b.c.d}.
 */
public final class Gid {

    /** The all-zero GID (an unused GID table entry). */
    public static final Gid ZERO = new Gid(0, 0);

    private static final long LINK_LOCAL_PREFIX = 0xfe80_0000_0000_0000L;
    private static final long IPV4_MAPPED_TAG = 0x0000_ffffL << 32;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final long hi;
    private final long lo;

    private Gid(long hi, long lo) {
        this.hi = hi;
        this.lo = lo;
    }

    /** The GID with the given halves: bytes 0..7 big-endian in {@code hi}, bytes 8..15 in {@code lo}. */
    public static Gid of(long hi, long lo) {
        return hi == 0 && lo == 0 ? ZERO : new Gid(hi, lo);
    }

    /**
     * The GID of the 16 bytes {@code raw} (ibv_gid.raw).
     *
     * @throws IllegalArgumentException unless raw has 16 bytes
     */
    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + raw.length);
        }
        return of(raw, 0);
    }

    /** The GID of the 16 bytes at {@code raw[off]}. */
    public static Gid of(byte[] raw, int off) {
        Objects.checkFromIndexSize(off, 16, raw.length);
        return of(readLong(raw, off), readLong(raw, off + 8));
    }

    /**
     * The RoCEv2 GID of an IP address: an IPv4 address becomes {@code ::ffff:a.b.c.d}, an IPv6 address its own 16
     * bytes (any scope id is dropped).
     */
    public static Gid fromInet(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            long v4 = ((b[0] & 0xffL) << 24) | ((b[1] & 0xffL) << 16) | ((b[2] & 0xffL) << 8) | (b[3] & 0xffL);
            return of(0, IPV4_MAPPED_TAG | v4);
        }
        return of(b);
    }

    /**
     * The link-local GID {@code fe80::/64} of a 6-byte MAC address: the modified EUI-64 interface id, which flips
     * the universal/local bit of the first byte and inserts {@code ff:fe} in the middle (RFC 4291 appendix A;
     * rxe's GID index 0). For 52:54:00:77:00:0b it is fe80::5054:ff:fe77:b.
     *
     * @throws IllegalArgumentException unless mac has 6 bytes
     */
    public static Gid linkLocalFromMac(byte[] mac) {
        if (mac.length != 6) {
            throw new IllegalArgumentException("a MAC address has 6 bytes, got " + mac.length);
        }
        long id = ((mac[0] ^ 0x02) & 0xffL) << 56
                | (mac[1] & 0xffL) << 48
                | (mac[2] & 0xffL) << 40
                | 0xffL << 32
                | 0xfeL << 24
                | (mac[3] & 0xffL) << 16
                | (mac[4] & 0xffL) << 8
                | (mac[5] & 0xffL);
        return of(LINK_LOCAL_PREFIX, id);
    }

    /**
     * Parses a GID written as ibv_devinfo prints it ({@code fe80:0000:0000:0000:5054:00ff:fe77:000b}) or as any
     * textual IPv6 address (RFC 4291 §2.2: {@code ::} compression, 1 to 4 hex digits a group, a trailing dotted
     * IPv4 address as in {@code ::ffff:10.77.0.11}). Never consults DNS.
     *
     * @throws IllegalArgumentException when {@code text} is not such an address
     */
    public static Gid parse(String text) {
        int[] groups = new int[8];
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            throw bad(text, "more than one '::'");
        }
        if (gap < 0) {
            if (parseGroups(text, text, groups, true) != 8) {
                throw bad(text, "expected 8 groups");
            }
        } else {
            int[] tail = new int[8];
            int nHead = parseGroups(text.substring(0, gap), text, groups, false);
            int nTail = parseGroups(text.substring(gap + 2), text, tail, true);
            if (nHead + nTail > 7) {
                throw bad(text, "too many groups for '::'");
            }
            System.arraycopy(tail, 0, groups, 8 - nTail, nTail);
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 4; i++) {
            hi = hi << 16 | groups[i];
            lo = lo << 16 | groups[i + 4];
        }
        return of(hi, lo);
    }

    /** Parses the colon-separated groups of {@code part} into {@code out}; returns how many there were. */
    private static int parseGroups(String part, String text, int[] out, boolean ipv4Allowed) {
        if (part.isEmpty()) {
            return 0;
        }
        int n = 0;
        int start = 0;
        while (true) {
            int end = part.indexOf(':', start);
            String group = end < 0 ? part.substring(start) : part.substring(start, end);
            if (end < 0 && group.indexOf('.') >= 0) {
                if (!ipv4Allowed || n + 2 > 8) {
                    throw bad(text, "misplaced IPv4 part");
                }
                long v4 = parseIpv4(group, text);
                out[n++] = (int) (v4 >>> 16);
                out[n++] = (int) (v4 & 0xffff);
                return n;
            }
            if (group.isEmpty() || group.length() > 4 || n >= 8) {
                throw bad(text, "bad group '" + group + "'");
            }
            int v = 0;
            for (int i = 0; i < group.length(); i++) {
                int d = Character.digit(group.charAt(i), 16);
                if (d < 0) {
                    throw bad(text, "bad group '" + group + "'");
                }
                v = v << 4 | d;
            }
            out[n++] = v;
            if (end < 0) {
                return n;
            }
            start = end + 1;
        }
    }

    private static long parseIpv4(String dotted, String text) {
        long v = 0;
        int parts = 0;
        int start = 0;
        while (true) {
            int end = dotted.indexOf('.', start);
            String p = end < 0 ? dotted.substring(start) : dotted.substring(start, end);
            if (p.isEmpty() || p.length() > 3 || ++parts > 4) {
                throw bad(text, "bad IPv4 part '" + dotted + "'");
            }
            int octet = 0;
            for (int i = 0; i < p.length(); i++) {
                char c = p.charAt(i);
                if (c < '0' || c > '9') {
                    throw bad(text, "bad IPv4 part '" + dotted + "'");
                }
                octet = octet * 10 + (c - '0');
            }
            if (octet > 255) {
                throw bad(text, "bad IPv4 part '" + dotted + "'");
            }
            v = v << 8 | octet;
            if (end < 0) {
                break;
            }
            start = end + 1;
        }
        if (parts != 4) {
            throw bad(text, "bad IPv4 part '" + dotted + "'");
        }
        return v;
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("not a GID: '" + text + "' (" + why + ")");
    }

    /** Bytes 0..7, big-endian: the subnet prefix (ibv_gid.global.subnet_prefix). */
    public long hi() {
        return hi;
    }

    /** Bytes 8..15, big-endian: the interface id (ibv_gid.global.interface_id). */
    public long lo() {
        return lo;
    }

    /** The 16 bytes (ibv_gid.raw), in a new array. */
    public byte[] toBytes() {
        byte[] b = new byte[16];
        toBytes(b, 0);
        return b;
    }

    /** Writes the 16 bytes to {@code dst[off..off+15]}. */
    public void toBytes(byte[] dst, int off) {
        Objects.checkFromIndexSize(off, 16, dst.length);
        writeLong(dst, off, hi);
        writeLong(dst, off + 8, lo);
    }

    /** Whether this is an IPv4-mapped address {@code ::ffff:a.b.c.d}, the GID of an IPv4 RoCEv2 port. */
    public boolean isIpv4Mapped() {
        return hi == 0 && (lo & 0xffff_ffff_0000_0000L) == IPV4_MAPPED_TAG;
    }

    /** Whether this is a link-local address, in {@code fe80::/10}. */
    public boolean isLinkLocal() {
        return (hi & 0xffc0_0000_0000_0000L) == LINK_LOCAL_PREFIX;
    }

    /** Whether all 128 bits are zero. */
    public boolean isZero() {
        return hi == 0 && lo == 0;
    }

    /** The IP address of this GID: an {@link Inet4Address} when IPv4-mapped, an Inet6Address otherwise. */
    public InetAddress toInet() {
        try {
            // getByAddress never resolves names; for ::ffff:a.b.c.d it returns an Inet4Address
            return InetAddress.getByAddress(toBytes());
        } catch (UnknownHostException e) {
            throw new AssertionError("4 and 16 bytes are legal address lengths", e);
        }
    }

    /**
     * The GID as ibv_devinfo prints it: 8 colon-separated groups of 4 lower-case hex digits, for example
     * {@code fe80:0000:0000:0000:5054:00ff:fe77:000b}.
     */
    @Override
    public String toString() {
        char[] c = new char[39];
        int p = 0;
        for (int g = 0; g < 8; g++) {
            long half = g < 4 ? hi : lo;
            int v = (int) (half >>> (48 - 16 * (g & 3))) & 0xffff;
            if (g > 0) {
                c[p++] = ':';
            }
            c[p++] = HEX[v >>> 12];
            c[p++] = HEX[(v >>> 8) & 0xf];
            c[p++] = HEX[(v >>> 4) & 0xf];
            c[p++] = HEX[v & 0xf];
        }
        return new String(c);
    }

    /**
     * The GID in the canonical IPv6 text form of RFC 5952: leading zeros dropped, the longest run of two or more
     * zero groups as {@code ::}, IPv4-mapped addresses as {@code ::ffff:a.b.c.d}.
     */
    public String toCompactString() {
        if (isIpv4Mapped()) {
            int v4 = (int) lo;
            return "::ffff:" + (v4 >>> 24) + '.' + ((v4 >>> 16) & 0xff) + '.' + ((v4 >>> 8) & 0xff) + '.' + (v4 & 0xff);
        }
        int[] g = new int[8];
        for (int i = 0; i < 4; i++) {
            g[i] = (int) (hi >>> (48 - 16 * i)) & 0xffff;
            g[i + 4] = (int) (lo >>> (48 - 16 * i)) & 0xffff;
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (!sb.isEmpty() && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /** Whether {@code o} is a GID with the same 128 bits. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Gid other && other.hi == hi && other.lo == lo;
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(hi) + Long.hashCode(lo);
    }

    private static long readLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[off + i] & 0xffL);
        }
        return v;
    }

    private static void writeLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }
}
