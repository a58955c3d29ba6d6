package io.jrdma.tck.soft;

import io.jrdma.tck.PdTck;

/** {@link PdTck} on the soft device. */
class SoftPdTest extends PdTck {
}
