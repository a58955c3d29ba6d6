package io.jrdma.examples;

import io.jrdma.verbs.Gid;

/**
 * What one side of an RC connection tells the other out of band: the address of its QP and, for RDMA, of a memory
 * region. The text form is one line of colon-separated hex fields, in the spirit of ibv_rc_pingpong's
 * {@code "%04x:%06x:%06x:%s"} message, extended by the rkey and the virtual address:
 * {@code lid:qpn:psn:gid:rkey:vaddr}, the GID as 32 hex digits without separators.
 *
 * @param lid   the port's LID (0 on RoCE)
 * @param qpn   the QP number (24 bits)
 * @param psn   the first PSN this side sends (24 bits); the peer's expected receive PSN
 * @param gid   the GID the peer addresses this side by
 * @param rkey  the rkey of the memory region the peer may access, 0 when none
 * @param vaddr the virtual address of that memory region, 0 when none
 */
public record Endpoint(int lid, int qpn, int psn, Gid gid, int rkey, long vaddr) {

    private static final int FIELDS = 6;

    /**
     * Checks the ranges of the fields.
     *
     * @throws IllegalArgumentException when lid is not 16 bits or qpn or psn not 24 bits
     */
    public Endpoint {
        new QpConnect.Address(lid, qpn, psn, gid);
    }

    /** The QP's part: what {@link QpConnect} connects to. */
    public QpConnect.Address address() {
        return new QpConnect.Address(lid, qpn, psn, gid);
    }

    /** The one-line text form, for example {@code 0000:000011:00abcd:<32 hex digits>:00000100:<16 hex digits>}. */
    public String encode() {
        return String.format("%04x:%06x:%06x:%016x%016x:%08x:%016x", lid, qpn, psn, gid.hi(), gid.lo(), rkey, vaddr);
    }

    /**
     * Parses the text form made by {@link #encode()}.
     *
     * @throws IllegalArgumentException when {@code line} is not such a text
     */
    public static Endpoint parse(String line) {
        String[] f = line.trim().split(":", -1);
        if (f.length != FIELDS || f[3].length() != 32) {
            throw new IllegalArgumentException("not an endpoint (want lid:qpn:psn:gid:rkey:vaddr): '" + line + "'");
        }
        try {
            Gid gid = Gid.of(Long.parseUnsignedLong(f[3], 0, 16, 16), Long.parseUnsignedLong(f[3], 16, 32, 16));
            return new Endpoint(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    gid, Integer.parseUnsignedInt(f[4], 16), Long.parseUnsignedLong(f[5], 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an endpoint (bad hex field): '" + line + "'", e);
        }
    }

    @Override
    public String toString() {
        return String.format("lid 0x%04x qpn 0x%06x psn 0x%06x gid %s rkey 0x%08x vaddr 0x%016x", lid, qpn, psn,
                gid.toCompactString(), rkey, vaddr);
    }
}
