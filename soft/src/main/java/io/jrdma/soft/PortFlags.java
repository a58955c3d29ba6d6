package io.jrdma.soft;

/**
 * What the receive and transmit paths both read about the port on every packet, and the control path sets: whether
 * the port is down (nothing is sent or received: {@link SoftContext#setPortState}) and the tap that sees every
 * packet ({@link SoftContext#tap}). Written by the control path, read by the engine thread.
 */
final class PortFlags {

    private volatile boolean down;
    private volatile PacketTap tap;

    PortFlags(PacketTap tap) {
        this.tap = tap;
    }

    boolean down() {
        return down;
    }

    void down(boolean down) {
        this.down = down;
    }

    PacketTap tap() {
        return tap;
    }

    void tap(PacketTap tap) {
        this.tap = tap;
    }
}
