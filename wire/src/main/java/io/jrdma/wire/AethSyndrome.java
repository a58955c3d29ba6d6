package io.jrdma.wire;

/**
 * AETH syndrome encoding (IBA 9.7.5.2): bit 7 reserved, bits 6-5 type, bits 4-0 value. For an ACK the
 * value is the credit count code, for an RNR NAK the {@link RnrTimer} code, for a NAK the {@link NakCode}.
 */
public final class AethSyndrome {
    /** Mask of the type bits (7-5; bit 7 is always 0). */
    public static final int TYPE_MASK = 0xE0;
    /** Mask of the value bits (4-0). */
    public static final int VALUE_MASK = 0x1F;
    /** Type ACK (0b000). */
    public static final int TYPE_ACK = 0x00;
    /** Type RNR NAK (0b001). */
    public static final int TYPE_RNR_NAK = 0x20;
    /** Reserved type (0b010). */
    public static final int TYPE_RESERVED = 0x40;
    /** Type NAK (0b011). */
    public static final int TYPE_NAK = 0x60;
    /** ACK credit code 0b11111 ("invalid": no end-to-end flow control); rxe sends it in every ACK. */
    public static final int ACK_UNLIMITED = 0x1F;

    private AethSyndrome() {
    }

    /** ACK syndrome with the given 5-bit credit code. */
    public static int ack(int credit) {
        return TYPE_ACK | (credit & VALUE_MASK);
    }

    /** RNR NAK syndrome with the given 5-bit {@link RnrTimer} code. */
    public static int rnrNak(int timerCode) {
        return TYPE_RNR_NAK | (timerCode & VALUE_MASK);
    }

    /** NAK syndrome for the given code. */
    public static int nak(NakCode code) {
        return TYPE_NAK | code.code();
    }

    /** Type bits are ACK. */
    public static boolean isAck(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_ACK;
    }

    /** Type bits are RNR NAK. */
    public static boolean isRnrNak(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_RNR_NAK;
    }

    /** Type bits are NAK. */
    public static boolean isNak(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_NAK;
    }

    /** The value bits (credit code, RNR timer code or NAK code). */
    public static int value(int syndrome) {
        return syndrome & VALUE_MASK;
    }

    /** The NAK code of a NAK syndrome, or null if the syndrome is not a NAK or its code is reserved. */
    public static NakCode nakCode(int syndrome) {
        return isNak(syndrome) ? NakCode.of(value(syndrome)) : null;
    }
}
