package io.jrdma.cm;

import io.jrdma.verbs.QpCap;
import java.time.Duration;

/**
 * What the blocking layer ({@link CmConnection}, {@link CmListener}) creates and sends: the QP's queue sizes, the
 * connection parameters, the port space and how long each step may take. Mutable; the layer copies what it uses.
 */
public final class CmOptions {

    private final QpCap cap = new QpCap(16, 16, 1, 1, 0);
    private int cqEntries = 64;
    private final ConnParam param = new ConnParam().responderResources(1).initiatorDepth(1);
    private PortSpace portSpace = PortSpace.TCP;
    private Duration timeout = Duration.ofSeconds(10);

    /** 16 sends and 16 receives of 1 SGE, a CQ of 64, one READ/atomic each way, TCP port space, 10 s steps. */
    public CmOptions() {
    }

    /** The QP's queue sizes (this object's own instance, changed in place). */
    public QpCap cap() {
        return cap;
    }

    /** The entries of the one CQ both queues complete to. */
    public int cqEntries() {
        return cqEntries;
    }

    /** Sets the CQ's entries; returns this. */
    public CmOptions cqEntries(int entries) {
        if (entries < 1) {
            throw new IllegalArgumentException("CQ entries " + entries + " < 1");
        }
        this.cqEntries = entries;
        return this;
    }

    /** The connection parameters sent on connect and accept (this object's own instance, changed in place). */
    public ConnParam param() {
        return param;
    }

    /** The port space: TCP (RC) or IB; UD connections use the event API. */
    public PortSpace portSpace() {
        return portSpace;
    }

    /** Sets the port space (TCP or IB); returns this. */
    public CmOptions portSpace(PortSpace ps) {
        if (ps == PortSpace.UDP) {
            throw new IllegalArgumentException("the blocking layer makes RC connections; use the event API for UDP");
        }
        this.portSpace = ps;
        return this;
    }

    /** How long resolving, connecting, accepting and disconnecting may each take. */
    public Duration timeout() {
        return timeout;
    }

    /** Sets the step timeout; returns this. */
    public CmOptions timeout(Duration t) {
        if (t.isNegative() || t.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + t);
        }
        this.timeout = t;
        return this;
    }
}
