package io.jrdma.wire;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian (network order) unaligned layouts shared by every header flyweight; declared once. */
final class Layouts {
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Little-endian int: only the ICRC travels in this order. */
    static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Mask of a 24-bit field (QPN, PSN, MSN). */
    static final int MASK24 = 0xFF_FFFF;

    private Layouts() {
    }
}
