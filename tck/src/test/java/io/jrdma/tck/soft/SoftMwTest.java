package io.jrdma.tck.soft;

import io.jrdma.tck.MwTck;

/** {@link MwTck} on the soft device. */
class SoftMwTest extends MwTck {
}
