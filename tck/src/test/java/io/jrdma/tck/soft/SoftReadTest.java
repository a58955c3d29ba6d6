package io.jrdma.tck.soft;

import io.jrdma.tck.ReadTck;

/** {@link ReadTck} on the soft device. */
class SoftReadTest extends ReadTck {
}
