package io.jrdma.wire;

/** Transport service, the top three bits of the BTH opcode (IBA 9.2, Table 38). */
public enum Transport {
    /** Reliable Connection, opcode prefix 000. */
    RC(0x00),
    /** Unreliable Connection, opcode prefix 001. */
    UC(0x20),
    /** Reliable Datagram, opcode prefix 010 (no opcodes in {@link Opcode}). */
    RD(0x40),
    /** Unreliable Datagram, opcode prefix 011. */
    UD(0x60);

    private final int prefix;

    Transport(int prefix) {
        this.prefix = prefix;
    }

    /** Opcode bits 7-5 of this transport, already shifted into place (0x00, 0x20, 0x40, 0x60). */
    public int prefix() {
        return prefix;
    }
}
