package io.jrdma.tck.soft;

import io.jrdma.tck.MrTck;

/** {@link MrTck} on the soft device. */
class SoftMrTest extends MrTck {
}
