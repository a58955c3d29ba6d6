package io.jrdma.soft;

import io.jrdma.verbs.Gid;
import java.net.InetAddress;
import java.util.Objects;

/**
 * Where a MAD goes, or where a received one came from (libibumad's {@code ib_mad_addr} for a RoCEv2 port): the
 * remote port's GID, the remote QP and its Q_Key, and the P_Key index. {@link MadPort#receive} returns the sender's
 * address in the form a reply needs, so {@code port.send(reply, from)} answers it.
 *
 * @param gid       the remote port's GID: on this IPv4 RoCEv2 device an IPv4-mapped one ({@code ::ffff:a.b.c.d})
 * @param qpn       the remote QP, 24 bits: {@link MadPort#GSI_QPN} for a GSI agent such as a connection manager
 * @param qkey      the remote QP's Q_Key: {@link MadPort#GSI_QKEY} for QP 1; a Q_Key with the high bit set sends
 *                  QP 1's own Q_Key, which is the same
 * @param pkeyIndex the index of the P_Key to send with: 0, the port's one P_Key (0xFFFF)
 */
public record MadAddress(Gid gid, int qpn, int qkey, int pkeyIndex) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException     without a GID
     * @throws IllegalArgumentException for a GID that is not IPv4-mapped, a QPN beyond 24 bits or a P_Key index
     *                                  other than 0
     */
    public MadAddress {
        Objects.requireNonNull(gid, "gid");
        if (!gid.isIpv4Mapped()) {
            throw new IllegalArgumentException("GID " + gid + " is not IPv4-mapped; the soft device speaks RoCEv2 "
                    + "over IPv4");
        }
        if ((qpn & ~0xFF_FFFF) != 0) {
            throw new IllegalArgumentException("QPN " + qpn + " does not fit in 24 bits");
        }
        if (pkeyIndex != 0) {
            throw new IllegalArgumentException("P_Key index " + pkeyIndex + " does not exist (the port has one "
                    + "P_Key, index 0)");
        }
    }

    /** The GSI (QP 1, Q_Key 0x80010000, P_Key index 0) of the port with this IPv4 address. */
    public static MadAddress gsi(InetAddress ipv4) {
        return gsi(Gid.fromInet(ipv4));
    }

    /** The GSI (QP 1, Q_Key 0x80010000, P_Key index 0) of the port with this GID. */
    public static MadAddress gsi(Gid gid) {
        return new MadAddress(gid, MadPort.GSI_QPN, MadPort.GSI_QKEY, 0);
    }

    /** The remote port's IPv4 address. */
    public InetAddress address() {
        return gid.toInet();
    }
}
