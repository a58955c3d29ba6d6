package io.jrdma.tck.soft;

import io.jrdma.tck.WriteTck;

/** {@link WriteTck} on the soft device. */
class SoftWriteTest extends WriteTck {
}
