package io.jrdma.soft;

import io.jrdma.verbs.PortState;

/**
 * What the receive and transmit paths both read about the port on every packet, and the control path sets: its
 * state (DOWN: nothing is sent or received, {@link SoftContext#setPortState}) and the tap that sees every packet
 * ({@link SoftContext#tap}). Written by the control path, read by the engine thread and by port queries.
 */
final class PortFlags {

    private volatile PortState state = PortState.ACTIVE;
    private volatile PacketTap tap;

    PortFlags(PacketTap tap) {
        this.tap = tap;
    }

    /** The port is DOWN: the paths drop what they would send or receive. */
    boolean down() {
        return state == PortState.DOWN;
    }

    PortState state() {
        return state;
    }

    void state(PortState state) {
        this.state = state;
    }

    PacketTap tap() {
        return tap;
    }

    void tap(PacketTap tap) {
        this.tap = tap;
    }
}
