package io.jrdma.soft.link;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The fault decisions of a {@link FaultyLink}, drawn per packet from a {@link SplittableRandom} seeded from the
 * {@link FaultConfig}, always in the same order (drop rules, random drop, corruption, duplication, reorder, delay),
 * so the same traffic under the same seed meets the same faults. Kept for each packet of a GSO batch (index
 * {@code k}; a single send is packet 0) until the link acts on them. Allocates nothing per packet.
 */
final class FaultDraws {

    /** Sent on time. */
    static final int KEEP = 0;
    /** Held behind {@link #behind} later packets. */
    static final int REORDER = 1;
    /** Held for the configured delay. */
    static final int DELAY = 2;

    private static final int ACKNOWLEDGE = 0x11;
    private static final int ATOMIC_ACKNOWLEDGE = 0x12;
    private static final int BTH_LENGTH = 12;
    private static final int BTH_FECN_BYTE = 4;

    private final FaultConfig config;
    private final SplittableRandom random;
    // drop_psn and drop_opcode: how often each entry has matched
    private final int[] dropPsns;
    private final int[] psnHits;
    private final int[] dropOpcodes;
    private final int[] opcodeHits;

    private final boolean[] drop;
    private final int[] flipAt;
    private final int[] flipMask;
    private final boolean[] twice;
    private final int[] hold;
    private final int[] behind;

    /** Decisions for up to {@code packets} packets at a time. */
    FaultDraws(FaultConfig config, int packets) {
        this.config = config;
        this.random = new SplittableRandom(config.seed());
        this.dropPsns = config.dropPsns();
        this.psnHits = new int[dropPsns.length];
        this.dropOpcodes = config.dropOpcodes();
        this.opcodeHits = new int[dropOpcodes.length];
        int n = Math.max(1, packets);
        drop = new boolean[n];
        flipAt = new int[n];
        flipMask = new int[n];
        twice = new boolean[n];
        hold = new int[n];
        behind = new int[n];
    }

    /** How many packets' decisions are kept at once. */
    int capacity() {
        return drop.length;
    }

    /**
     * Draws the faults of the packet of {@code len} bytes at {@code start} of {@code buf} as packet {@code k};
     * true when any hits it.
     */
    boolean draw(int k, ByteBuffer buf, int start, int len) {
        boolean dropIt = dropped(buf, start, len);
        drop[k] = dropIt;
        flipAt[k] = -1;
        twice[k] = false;
        hold[k] = KEEP;
        if (dropIt) {
            return true;
        }
        if (config.corrupt() > 0 && random.nextDouble() < config.corrupt() && len > 0) {
            flipAt[k] = corruptOffset(len);
            flipMask[k] = 1 << random.nextInt(8);
        }
        twice[k] = config.duplicate() > 0 && random.nextDouble() < config.duplicate();
        if (config.reorder() > 0 && random.nextDouble() < config.reorder()) {
            hold[k] = REORDER;
            behind[k] = 1 + random.nextInt(config.reorderWindow());
        } else if (config.delay() > 0 && random.nextDouble() < config.delay()) {
            hold[k] = DELAY;
        }
        return flipAt[k] >= 0 || twice[k] || hold[k] != KEEP;
    }

    /** Whether packet {@code k} is dropped (then nothing else was drawn for it). */
    boolean drop(int k) {
        return drop[k];
    }

    /** The offset in packet {@code k} of the byte whose bit is flipped, or -1. */
    int flipAt(int k) {
        return flipAt[k];
    }

    /** The bit flipped in that byte. */
    int flipMask(int k) {
        return flipMask[k];
    }

    /** Whether packet {@code k} is sent twice. */
    boolean twice(int k) {
        return twice[k];
    }

    /** {@link #KEEP}, {@link #REORDER} or {@link #DELAY} for packet {@code k}. */
    int hold(int k) {
        return hold[k];
    }

    /** How many later packets (or engine passes) a reordered packet {@code k} waits for. */
    int behind(int k) {
        return behind[k];
    }

    private boolean dropped(ByteBuffer buf, int start, int len) {
        if (len >= BTH_LENGTH) {
            int opcode = buf.get(start) & 0xFF;
            int psn = (buf.get(start + 9) & 0xFF) << 16 | (buf.get(start + 10) & 0xFF) << 8
                    | (buf.get(start + 11) & 0xFF);
            if (match(dropPsns, psnHits, psn) || match(dropOpcodes, opcodeHits, opcode)) {
                return true;
            }
            if (config.dropAcks() > 0 && (opcode == ACKNOWLEDGE || opcode == ATOMIC_ACKNOWLEDGE)
                    && random.nextDouble() < config.dropAcks()) {
                return true;
            }
        }
        return config.drop() > 0 && random.nextDouble() < config.drop();
    }

    private boolean match(int[] values, int[] hits, int v) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == v && hits[i] < config.times()) {
                hits[i]++;
                return true;
            }
        }
        return false;
    }

    /** A byte offset in {@code [0, len)} other than the BTH's FECN/BECN byte, which the ICRC does not cover. */
    private int corruptOffset(int len) {
        if (len <= BTH_FECN_BYTE + 1) {
            return random.nextInt(len);
        }
        int at = random.nextInt(len - 1);
        return at >= BTH_FECN_BYTE ? at + 1 : at;
    }
}
