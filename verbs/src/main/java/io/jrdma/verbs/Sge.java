package io.jrdma.verbs;

/**
 * A scatter/gather entry (ibv_sge): {@code length} bytes at virtual address {@code addr} of the memory region
 * whose local key is {@code lkey}. Mutable and reusable; posting copies it.
 */
public final class Sge {

    private long addr;
    private int length;
    private int lkey;

    /** An entry of zero length at address 0. */
    public Sge() {
    }

    /** An entry of {@code length} bytes at {@code addr} in the region with local key {@code lkey}. */
    public Sge(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    /** Sets all three fields; returns this. */
    public Sge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /** The start address (ibv_sge.addr). */
    public long addr() {
        return addr;
    }

    /** Sets the start address (ibv_sge.addr); returns this. */
    public Sge addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** The length in bytes (ibv_sge.length), an unsigned 32-bit value; 0 is legal. */
    public int length() {
        return length;
    }

    /** Sets the length in bytes (ibv_sge.length); returns this. */
    public Sge length(int length) {
        this.length = length;
        return this;
    }

    /** The local key of the memory region holding the bytes (ibv_sge.lkey). */
    public int lkey() {
        return lkey;
    }

    /** Sets the local key (ibv_sge.lkey); returns this. */
    public Sge lkey(int lkey) {
        this.lkey = lkey;
        return this;
    }

    /** Copies all fields of {@code other}; returns this. */
    public Sge copyFrom(Sge other) {
        return set(other.addr, other.length, other.lkey);
    }

    @Override
    public String toString() {
        return "Sge{addr=0x" + Long.toHexString(addr) + ", length=" + Integer.toUnsignedString(length) + ", lkey=0x"
                + Integer.toHexString(lkey) + '}';
    }
}
