package io.jrdma.tck.soft;

import io.jrdma.tck.SrqTck;

/** {@link SrqTck} on the soft device. */
class SoftSrqTest extends SrqTck {
}
