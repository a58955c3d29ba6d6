package io.jrdma.soft;

import io.jrdma.soft.link.Link;
import io.jrdma.verbs.AddressHandle;
import io.jrdma.verbs.AhAttr;
import io.jrdma.verbs.ProtectionDomain;
import java.net.InetSocketAddress;

/**
 * An address handle: the checked address vector of a remote port, with the destination resolved once so that a UD
 * send to it allocates nothing. Its PD counts it as a user until it is closed. A request posted with the handle
 * keeps a reference to it, so requests already posted still reach their destination after {@link #close()}.
 */
final class SoftAh implements AddressHandle {

    final SoftPd pd;
    final int destIp;
    final InetSocketAddress destAddress;
    private final AhAttr attr;
    volatile boolean closed; // written under the engine lock, read by posting threads

    SoftAh(SoftPd pd, AhAttr attr) {
        this.pd = pd;
        this.attr = new AhAttr().copyFrom(attr);
        this.destAddress = new InetSocketAddress(attr.dgid().toInet(), Link.ROCE_PORT);
        this.destIp = Link.ipv4(attr.dgid().toInet());
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public AhAttr attr() {
        return new AhAttr().copyFrom(attr);
    }

    @Override
    public void close() {
        pd.context.destroyAh(this);
    }

    @Override
    public String toString() {
        return "AH[" + attr.dgid().toCompactString() + "]";
    }

    /** Destroyed (control path, device lock held): every later use of it fails. */
    void markClosed() {
        closed = true;
    }
}
